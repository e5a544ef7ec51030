"""Seed 001's LAT, the literal cut's straddle rule and local agreement (METHODS.md §6),
checked on hand-worked logs."""

from __future__ import annotations

import pandas as pd
import pytest

from fairdesk.incremental import item_stats, pooled, simulate
from fairdesk.incremental.agreement import prompt_words
from fairdesk.incremental.simulate import Simulation, Update
from fairdesk.models.base import Transcription, Word

from .fakes import ScriptBackend, contiguous_script, indexed_audio

WORDS = "please play the song yesterday by the beatles".split()


def _w(*texts):
    return tuple(Word(t, 0.3 * i, 0.3 * i + 0.3, None) for i, t in enumerate(texts))


def test_lat_seed001_on_a_hand_worked_log():
    # item 1: three chunk updates, the second one waits 0.5 s behind the first decode
    #   update 0: arrives 1.0, decode 1.0-2.5 (1.5 s), 3 words  -> 1.5 / 3 = 0.5
    #   update 1: arrives 2.0, queued, decode 2.5-3.5 (1.0 s), 0 words -> skipped, counted
    #   update 2: arrives 3.0, decode 3.5-4.3 (0.8 s), 4 words -> (4.3 - 3.0) / 4 = 0.325
    #   flush: no decode (not a prediction)
    a = Simulation(
        "concatenation",
        3.0,
        1.0,
        [
            Update(0, 1.0, False, (0, 1.0), 1.5, 1.0, 2.5, _w("a", "b", "c"), None, 3),
            Update(1, 2.0, False, (0, 2.0), 1.0, 2.5, 3.5, (), None, 0),
            Update(2, 3.0, False, (0, 3.0), 0.8, 3.5, 4.3, _w("a", "b", "c", "d"), None, 4),
            Update(3, 3.0, True, None, 0.0, 4.3, 4.3, _w("a", "b", "c", "d"), 4, None),
        ],
    )
    # item 2: one prediction of 2 words, decode 0.2 s right at arrival -> 0.2 / 2 = 0.1
    b = Simulation(
        "concatenation",
        0.8,
        1.0,
        [
            Update(0, 0.8, False, (0, 0.8), 0.2, 0.8, 1.0, _w("x", "y"), None, 2),
            Update(1, 0.8, True, None, 0.0, 1.0, 1.0, _w("x", "y"), 2, None),
        ],
    )
    rows = pd.DataFrame([item_stats(a, "a b c d"), item_stats(b, "x y")])
    assert rows.n_lat_pred.tolist() == [2, 1] and rows.n_pred_zero.tolist() == [1, 0]
    p = pooled(rows)
    # averaged over the 3 predictions with words, each weighing one
    assert p["lat_seed001"] == pytest.approx((0.5 + 0.325 + 0.1) / 3)
    # the pooled LAT: decode time / final words = (1.5 + 1.0 + 0.8 + 0.2) / (4 + 2)
    assert p["lat_pooled"] == pytest.approx(3.5 / 6)
    assert p["totals"]["n_pred_zero"] == 1


def test_lat_seed001_from_a_simulated_stream(clock):
    # 8 words of 0.4 s, decode 1.5 s each (the clock of test_simulate): decodes end at
    # 2.5, 4.0, 5.5, 7.0 for chunks arriving at 1, 2, 3, 3.5 s; the fake returns the words
    # inside the span plus a partial word at its end: 3, 5, 8, 8 words
    be = ScriptBackend(contiguous_script(WORDS), clock, cost=1.5)
    sim = simulate(be, indexed_audio(3.5), "concatenation", 1.0, timer=clock)
    assert [u.n_predicted for u in sim.updates] == [3, 5, 8, 8, None]
    st = item_stats(sim, " ".join(WORDS))
    expect = [(2.5 - 1) / 3, (4 - 2) / 5, (5.5 - 3) / 8, (7 - 3.5) / 8]
    assert st["n_lat_pred"] == 4 and st["n_pred_zero"] == 0
    assert st["lat_seed_sum"] == pytest.approx(sum(expect))
    assert pooled(pd.DataFrame([st]))["lat_seed001"] == pytest.approx(sum(expect) / 4)


class WindowBackend:
    """Returns fixed clip-time words that lie (even partly) in the decoded span, with times
    relative to the span start (the clip's samples hold their own index)."""

    id = "fake-window"
    settings: dict = {}

    def __init__(self, words):
        self.words = words
        self.spans = []

    def transcribe(self, audios):
        out = []
        for a in audios:
            s0, s1 = float(a[0]) / 16000, (float(a[-1]) + 1) / 16000
            self.spans.append((s0, s1))
            ws = tuple(
                Word(t, round(max(b, s0) - s0, 4), round(min(e, s1) - s0, 4), 1.0)
                for t, b, e in self.words
                if e > s0 + 1e-9 and b < s1 - 1e-9
            )
            out.append(Transcription(" ".join(w.text for w in ws), ws))
        return out


@pytest.mark.parametrize("c_span, frozen", [((0.5, 0.8), True), ((0.6, 0.9), False)])
def test_literal_cut_freezes_a_straddling_word_by_its_midpoint(c_span, frozen):
    # one 2 s chunk: the window [0, 2] yields 5 words, so it is cut at 0.35 x 2 = 0.7 s;
    # word "c" straddles the cut; its midpoint is 0.65 (frozen) or 0.75 (left to the window)
    words = [("a", 0.0, 0.25), ("b", 0.25, 0.5), ("c", *c_span), ("d", 0.9, 1.3), ("e", 1.3, 1.7)]
    be = WindowBackend(words)
    sim = simulate(be, indexed_audio(3.0), "sliding-literal", 2.0)
    cut = sim.cuts[0]
    assert cut.raw_s == cut.cut_s == pytest.approx(0.7)
    assert cut.n_straddled == 1 and cut.n_straddled_frozen == int(frozen)
    assert cut.n_frozen == (3 if frozen else 2)
    assert be.spans[1][0] == pytest.approx(0.7)  # the next window starts at the cut
    st = item_stats(sim, "a b c d e")
    assert st["n_straddled"] == 1 and st["n_straddled_frozen"] == int(frozen)
    # frozen: the next window re-hears c's tail as "c", dropped by the n-gram rule; not
    # frozen: the next window hears "c" itself. No word is lost either way.
    assert [w.text for w in sim.final_words] == ["a", "b", "c", "d", "e"]
    assert sim.n_trims == int(frozen)


class PromptBackend:
    """Scripted hypotheses for a streaming decode; records each prompt. Word i of a
    hypothesis spans (b0 + 0.5 i, b0 + 0.5 i + 0.5) in clip time; one segment per 2 words."""

    id = "fake-prompt"
    settings: dict = {}

    def __init__(self, hyps):
        self.hyps = list(hyps)
        self.prompts: list = []
        self.starts: list = []

    def transcribe(self, audios):  # the non-streaming path must not be used
        raise AssertionError("local agreement decodes through transcribe_streaming")

    def transcribe_streaming(self, audio, prompt):
        s0 = float(audio[0]) / 16000
        self.starts.append(round(s0, 4))
        self.prompts.append(prompt)
        text = self.hyps[min(len(self.prompts) - 1, len(self.hyps) - 1)]
        ws = [Word(t, 0.5 * i, 0.5 * i + 0.5, 1.0) for i, t in enumerate(text.split())]
        keep = [w for w in ws if w.end <= audio.size / 16000 + 1e-9]
        ends = [keep[i].end for i in range(1, len(keep), 2)] + (
            [keep[-1].end] if len(keep) % 2 else []
        )
        return Transcription(text, tuple(keep)), ends


def test_local_agreement_raw_strings_versus_normalised():
    hyps = ["Hello, world", "hello world again", "hello world again now"]
    raw = simulate(PromptBackend(hyps), indexed_audio(3.0), "local-agreement", 1.0)
    norm = simulate(PromptBackend(hyps), indexed_audio(3.0), "local-agreement-norm", 1.0)
    # raw strings: "Hello," != "hello", nothing agreed after update 1
    assert [len(u.committed) for u in raw.updates[:3]] == [0, 0, 3]
    assert [len(u.committed) for u in norm.updates[:3]] == [0, 2, 3]


def test_local_agreement_prompt_and_segment_trimming():
    # the same 8-word hypothesis every time: word i spans 0.5 i .. 0.5 i + 0.5 s of the
    # buffer; buffer_trim_s = 1.5 s so the buffer is trimmed early
    words = "one two three four five six seven eight".split()
    be = PromptBackend([" ".join(words)] * 10)
    sim = simulate(be, indexed_audio(4.0), "local-agreement", 1.0, buffer_trim_s=1.5)
    # update 0 (buffer 0-1): one, two (unconfirmed); update 1 (0-2): agrees one two, the
    # buffer is 2 s > 1.5: segment ends of the decode [1.0, 2.0]; the second-to-last (1.0)
    # is <= the last committed end (two: 1.0), so the buffer starts at 1.0
    assert be.starts[:3] == [0.0, 0.0, 1.0]
    # the prompt is the committed text that left the buffer (words ending <= 1.0 s), never
    # the last committed word (whisper_streaming's OnlineASRProcessor.prompt); none is None
    assert be.prompts[:3] == [None, None, "one"]
    assert (
        prompt_words([Word(w, i, i + 1.0, None) for i, w in enumerate(words)], 3.0)
        == "one two three"
    )  # words ending at or before the buffer start (3.0 s)
    long = [Word("x" * 49, i, i + 1.0, None) for i in range(10)]
    assert len(prompt_words(long, 100.0).split()) == 4  # 4 x (49 + 1) = 200 characters
    assert sim.updates[-1].n_committed == len(sim.final_words)
