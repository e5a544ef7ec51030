"""Streaming simulation on a fake backend: chunks, clock, policies (METHODS.md §6)."""

from __future__ import annotations

import pytest

from fairdesk.incremental import item_stats, simulate
from fairdesk.incremental.edits import tokens
from fairdesk.models.base import Transcription, Word

from .fakes import ScriptBackend, contiguous_script, indexed_audio

WORDS = "please play the song yesterday by the beatles in the kitchen now".split()


def test_chunks_last_partial_and_flush(clock):
    be = ScriptBackend(contiguous_script(WORDS[:8]), clock, cost=0.25)
    sim = simulate(be, indexed_audio(3.5), "concatenation", 1.0, timer=clock)
    assert [u.arrival_s for u in sim.updates] == [1.0, 2.0, 3.0, 3.5, 3.5]
    assert [u.is_flush for u in sim.updates] == [False] * 4 + [True]
    assert [u.span for u in sim.updates] == [(0, 1.0), (0, 2.0), (0, 3.0), (0, 3.5), None]
    assert sim.n_decodes == 4 and be.spans == [(0, 1.0), (0, 2.0), (0, 3.0), (0, 3.5)]
    # exact multiple of the chunk: no partial chunk, still a flush
    sim2 = simulate(be, indexed_audio(2.0), "concatenation", 0.5, timer=clock)
    assert [u.arrival_s for u in sim2.updates] == [0.5, 1.0, 1.5, 2.0, 2.0]


def test_computation_clock_with_fixed_decode_times(clock):
    be = ScriptBackend(contiguous_script(WORDS[:8]), clock, cost=1.5)
    sim = simulate(be, indexed_audio(3.5), "concatenation", 1.0, timer=clock)
    starts = [u.start_s for u in sim.updates]
    ends = [u.end_s for u in sim.updates]
    # decode k starts at max(arrival_k, end_{k-1})
    assert starts == pytest.approx([1.0, 2.5, 4.0, 5.5, 7.0])
    assert ends == pytest.approx([2.5, 4.0, 5.5, 7.0, 7.0])
    assert [u.decode_s for u in sim.updates] == pytest.approx([1.5, 1.5, 1.5, 1.5, 0.0])
    assert sim.decode_s == pytest.approx(6.0)
    # fast decoder: never waits, starts at each arrival
    fast = simulate(
        ScriptBackend(be.script, clock, cost=0.1),
        indexed_audio(3.5),
        "concatenation",
        1.0,
        timer=clock,
    )
    assert [u.start_s for u in fast.updates] == pytest.approx([1.0, 2.0, 3.0, 3.5, 3.6])


def test_stabilisation_and_final_word_latency_on_the_clock(clock):
    # 8 words of 0.4 s: 0..3.2 s, clip 3.5 s; decode 1.5 s each (clock as above)
    be = ScriptBackend(contiguous_script(WORDS[:8]), clock, cost=1.5)
    sim = simulate(be, indexed_audio(3.5), "concatenation", 1.0, timer=clock)
    st = item_stats(sim, " ".join(WORDS[:8]))
    assert st["n_final_words"] == 8 and st["n_words"] == 8 and st["n_sub"] == 0
    # the last word ("beatles", 2.8-3.2 s) is complete from the decode of [0, 3.5] (ends 7.0)
    assert st["fwl_s"] == pytest.approx(7.0 - 3.2)
    # words 0,1 final at update 0 (end 2.5); word 2 ("the" 0.8-1.2) partial "th" at update 0,
    # complete at update 1 (end 4.0); words 3,4 at update 1; word 5 (2.0-2.4) update 2 (5.5);
    # 6 (2.4-2.8) update 2; 7 update 3 (7.0)
    stab = [2.5, 2.5, 4.0, 4.0, 4.0, 5.5, 5.5, 7.0]
    ends = [0.4, 0.8, 1.2, 1.6, 2.0, 2.4, 2.8, 3.2]
    assert st["stab_s"] == pytest.approx(sum(s - e for s, e in zip(stab, ends)))
    assert st["n_stab"] == 8
    assert st["n_adds"] - st["n_revokes"] == 8
    # the partial "th" of "the" at update 0 and "be" of "beatles" at update 2
    assert st["n_revokes"] == 2
    assert st["n_updates"] == 5 and st["n_updates_with_revoke"] == 2


def test_sliding_snapped_cut_never_inside_a_word(clock):
    # irregular word lengths, no pauses: every point between word ends is inside a word
    script, t = [], 0.0
    for i, w in enumerate(WORDS * 2):
        d = 0.27 + 0.11 * (i % 4)
        script.append((f"{w}{i}", round(t, 4), round(t + d, 4)))
        t += d
    be = ScriptBackend(script, clock, cost=0.2)
    audio = indexed_audio(t + 0.3)
    sim = simulate(be, audio, "sliding", 1.0, timer=clock)
    assert sim.cuts, "the window should have been cut"
    ends = {round(b, 4) for _, _, b in script}
    for c in sim.cuts:
        assert not c.inside_word
        assert not any(a < c.cut_s - 1e-6 and c.cut_s + 1e-6 < b for _, a, b in script)
        assert round(c.cut_s, 4) in ends
        assert c.cut_s <= c.raw_s + 1e-9
    # the decode after a cut starts at that cut (a cut at the last chunk has no next decode)
    last_chunk = len(sim.updates) - 2
    cut_starts = {round(c.cut_s, 4) for c in sim.cuts if c.update < last_chunk}
    assert cut_starts <= {round(s0, 4) for s0, _ in be.spans}
    st = item_stats(sim, " ".join(w for w, _, _ in script))
    assert st["n_sub"] + st["n_del"] + st["n_ins"] == 0
    assert st["n_cuts_inside_word"] == 0

    lit = simulate(
        ScriptBackend(script, clock, cost=0.2, tail=True),
        audio,
        "sliding-literal",
        1.0,
        timer=clock,
    )
    assert lit.cuts and all(c.cut_s == c.raw_s for c in lit.cuts)
    assert sum(c.inside_word for c in lit.cuts) >= len(lit.cuts) - 1
    st_lit = item_stats(lit, " ".join(w for w, _, _ in script))
    assert st_lit["n_sub"] + st_lit["n_del"] + st_lit["n_ins"] > 0


def test_sliding_join_trims_a_repeated_ngram(clock):
    script = contiguous_script(WORDS)
    be = ScriptBackend(script, clock, cost=0.2, echo=True)
    sim = simulate(be, indexed_audio(5.0), "sliding", 1.0, timer=clock)
    assert sim.cuts and sim.n_trims >= 1
    final = [w.text for w in sim.final_words]
    assert final == WORDS  # the echoed word was dropped, never doubled
    # without the trim the echo would repeat the frozen tail
    assert all(a != b for a, b in zip(final, final[1:]))


def test_trim_drops_the_smallest_repeating_ngram_first():
    from fairdesk.incremental.simulate import _drop_repeated_ngram

    def ws(s):
        return [Word(t, None, None, None) for t in s.split()]

    kept, trimmed = _drop_repeated_ngram(ws("by the beatles"), ws("the beatles in the"))
    assert trimmed and [w.text for w in kept] == ["in", "the"]
    kept, trimmed = _drop_repeated_ngram(ws("a b c"), ws("c d"))
    assert trimmed and [w.text for w in kept] == ["d"]
    kept, trimmed = _drop_repeated_ngram(ws("a b c"), ws("x y"))
    assert not trimmed and [w.text for w in kept] == ["x", "y"]
    # more than 5 words never trimmed
    kept, trimmed = _drop_repeated_ngram(ws("a b c d e f"), ws("a b c d e f g"))
    assert not trimmed


class HypothesisBackend:
    """Returns a scripted hypothesis per call (word i spans 0.3 i .. 0.3 i + 0.3 s)."""

    id = "fake-hyp"
    settings: dict = {}

    def __init__(self, hyps):
        self.hyps = list(hyps)
        self.calls = 0

    def transcribe(self, audios):
        h = self.hyps[min(self.calls, len(self.hyps) - 1)].split()
        self.calls += 1
        words = tuple(
            Word(t, round(0.3 * i, 3), round(0.3 * i + 0.3, 3), 1.0) for i, t in enumerate(h)
        )
        return [Transcription(" ".join(h), words)]


def test_local_agreement_commits_only_the_common_prefix():
    be = HypothesisBackend(["a b c", "a b x y", "a b x z w"])
    sim = simulate(be, indexed_audio(2.5), "local-agreement", 1.0)
    committed = [[w.text for w in u.committed] for u in sim.updates]
    shown = [[w.text for w in u.words] for u in sim.updates]
    assert committed == [[], ["a", "b"], ["a", "b", "x"], ["a", "b", "x", "z", "w"]]
    assert shown == [
        ["a", "b", "c"],
        ["a", "b", "x", "y"],
        ["a", "b", "x", "z", "w"],
        ["a", "b", "x", "z", "w"],
    ]
    # committed words are a prefix of what is shown, and never revoked
    for c, s in zip(committed, shown):
        assert s[: len(c)] == c
    disp = item_stats(sim, "a b x z w", "displayed")
    comm = item_stats(sim, "a b x z w", "committed")
    assert comm["n_revokes"] == 0 and comm["n_adds"] == 5
    assert disp["n_revokes"] == 2 and disp["n_adds"] == 7
    assert disp["decode_s"] == comm["decode_s"]


def test_unknown_policy_and_bad_chunk():
    be = HypothesisBackend(["a"])
    with pytest.raises(ValueError, match="unknown policy"):
        simulate(be, indexed_audio(1.0), "magic")
    with pytest.raises(ValueError, match="chunk_s"):
        simulate(be, indexed_audio(1.0), "concatenation", 0)


def test_empty_audio_has_one_flush_update():
    be = HypothesisBackend(["a"])
    sim = simulate(be, indexed_audio(0.0), "concatenation")
    assert len(sim.updates) == 1 and sim.updates[0].is_flush and sim.n_decodes == 0
    st = item_stats(sim, "a")
    assert st["n_final_words"] == 0 and st["n_fwl"] == 0 and st["n_del"] == 1
    assert tokens(sim.final_words) == []


def test_one_list_of_policies_in_every_order():
    """The chooser's list (the CLI's ``--policy``, the Incremental tab) and the table's column
    order (``--policy all``) name the same policies, from the one list in fairdesk.constants."""
    from fairdesk.cli.incremental import _POLICY_CHOICES
    from fairdesk.constants import NATIVE_POLICY, REDECODING_POLICIES
    from fairdesk.incremental.run import ALL_POLICIES, COLUMN_ORDER

    assert ALL_POLICIES == (*REDECODING_POLICIES, NATIVE_POLICY)
    assert sorted(COLUMN_ORDER) == sorted(ALL_POLICIES)
    assert _POLICY_CHOICES == (*ALL_POLICIES, "whetten", "all")
