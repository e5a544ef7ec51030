"""PocketSphinx's own partial results and silence splitting (METHODS.md §6), checked against
a recomputation from the logged word lists."""

from __future__ import annotations

import numpy as np
import pytest

from fairdesk.incremental import item_stats, simulate, timeline
from fairdesk.incremental.segment import simulate_segmented, speech_regions, split_points
from fairdesk.models.base import Word
from tests.conftest import espeak

from .fakes import ScriptBackend, contiguous_script, indexed_audio

TEXT_A = "Please call Stella and ask her to bring these things."
TEXT_B = "Six spoons of fresh snow peas for her brother Bob."


def _prefix_adds_revokes(lists):
    """Independent prefix counts on lower-cased words with only letters, digits and ' kept."""

    def norm(ws):
        out = []
        for w in ws:
            s = "".join(c for c in w.lower().replace("-", " ") if c.isalnum() or c in " '")
            out += s.split()
        return out

    adds = revs = 0
    prev: list[str] = []
    for ws in lists:
        cur = norm(ws)
        k = 0
        while k < min(len(prev), len(cur)) and prev[k] == cur[k]:
            k += 1
        adds += len(cur) - k
        revs += len(prev) - k
        prev = cur
    return adds, revs, len(prev)


class FakeStream:
    def __init__(self, partials, final):
        self.partials, self.final, self.fed = list(partials), final, []

    def feed(self, chunk):
        self.fed.append(chunk.size)
        return [Word(t, None, None, None) for t in self.partials[len(self.fed) - 1].split()]

    def finish(self):
        return [Word(t, None, None, None) for t in self.final.split()]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


class FakeEngine:
    id = "fake-stream"
    settings: dict = {}

    def __init__(self, partials, final):
        self.partials, self.final = partials, final

    def open_stream(self):
        self.stream = FakeStream(self.partials, self.final)
        return self.stream


def test_native_policy_logs_the_engines_partials():
    eng = FakeEngine(["the", "the cat sad", "the cat sat on"], "the cat sat on the mat")
    sim = simulate(eng, indexed_audio(2.5), "native", 1.0)
    assert eng.stream.fed == [16000, 16000, 8000]  # chunk by chunk, nothing re-decoded
    assert [" ".join(w.text for w in u.words) for u in sim.updates] == [
        "the",
        "the cat sad",
        "the cat sat on",
        "the cat sat on the mat",
    ]
    assert sim.updates[-1].is_flush and sim.updates[-1].n_committed == 6
    st = item_stats(sim, "the cat sat on the mat")
    # by hand: +1; +2; -1 +2 ("sad" -> "sat on"); +2
    assert (st["n_adds"], st["n_revokes"]) == (7, 1)
    assert st["n_lat_pred"] == 4  # every feed and the finish is a prediction


def test_pocketsphinx_partials_add_and_revoke(tmp_path):
    pytest.importorskip("pocketsphinx")
    from fairdesk.models import get_backend

    audio = espeak(TEXT_A, tmp_path)
    with get_backend("pocketsphinx-en-us", "cpu") as be:
        sim = simulate(be, audio, "native", 1.0)
    lists = [[w.text for w in u.words] for u in sim.updates]
    assert len(lists) == int(np.ceil(audio.size / 16000)) + 1
    st = item_stats(sim, TEXT_A)
    adds, revs, final = _prefix_adds_revokes(lists)
    assert (st["n_adds"], st["n_revokes"], st["n_final_words"]) == (adds, revs, final)
    assert st["n_adds"] - st["n_revokes"] == st["n_final_words"] == len(lists[-1]) > 0
    tl = timeline(sim)
    assert sum(len(e["added"]) for e in tl["events"]) == adds
    assert sum(len(e["revoked"]) for e in tl["events"]) == revs


def test_two_utterances_with_a_pause_give_two_segments(tmp_path):
    pytest.importorskip("faster_whisper")
    a = espeak(TEXT_A, tmp_path, name="a.wav")
    b = espeak(TEXT_B, tmp_path, name="b.wav")
    x = np.concatenate([a, np.zeros(32000, np.float32), b])
    regions = speech_regions(x)
    parts = split_points(regions, x.size)
    assert len(regions) == 2 and len(parts) == 2
    cut = parts[0][1] / 16000
    assert a.size / 16000 <= cut <= a.size / 16000 + 2.0  # inside the pause
    assert parts[0][0] == 0 and parts[-1][1] == x.size  # the segments tile the file


def test_segmented_stream_joins_the_segments_on_one_clock(clock):
    # speech at 0.2-1.4 s and 2.7-3.9 s (regions given): cut at 2.05 s; decode 0.5 s each
    words = "one two three four five six".split()
    script = contiguous_script(words[:3], 0.2) + contiguous_script(words[3:], 2.7)
    be = ScriptBackend(script, clock, cost=0.5, partial=False)
    item, segs = simulate_segmented(
        be, indexed_audio(5.0), "concatenation", 1.0, regions=[(0.2, 1.4), (2.7, 3.9)], timer=clock
    )
    assert [(s.start_s, s.end_s) for s in segs] == [(0.0, 2.05), (2.05, 5.0)]
    assert [w.text for w in item.final_words] == words
    # while segment 2 streams, segment 1's words come first; its arrivals are file times
    seg2 = item.updates[len(segs[0].sim.updates) :]
    assert all([w.text for w in u.words[:3]] == words[:3] for u in seg2)
    assert seg2[0].arrival_s == pytest.approx(3.05)
    # one clock: every decode starts at the later of its arrival and the previous end
    end = 0.0
    for u in item.updates:
        assert u.start_s == pytest.approx(max(u.arrival_s, end))
        end = u.end_s
    st = item_stats(item, " ".join(words))
    adds, revs, final = _prefix_adds_revokes([[w.text for w in u.words] for u in item.updates])
    assert (st["n_adds"], st["n_revokes"], st["n_final_words"]) == (
        adds,
        revs,
        final,
    ) and final == 6
    assert st["n_sub"] + st["n_del"] + st["n_ins"] == 0
