"""Word and character counts equal jiwer's own on arbitrary text (fairdesk aligns with the
rapidfuzz call jiwer makes, after jiwer's default transforms)."""

import jiwer
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdesk.metrics.text import char_counts_many, word_counts_many

WORDS = st.sampled_from(["a", "b", "the", "cat", "àkwà", "ọ́", "  ", "\t", "x y", ""])
TEXT = st.lists(WORDS, max_size=8).map(" ".join)


def _jiwer_rows(out):
    rows = []
    for ref, chunks in zip(out.references, out.alignments, strict=True):
        s = d = i = 0
        for c in chunks:
            if c.type == "substitute":
                s += c.ref_end_idx - c.ref_start_idx
            elif c.type == "delete":
                d += c.ref_end_idx - c.ref_start_idx
            elif c.type == "insert":
                i += c.hyp_end_idx - c.hyp_start_idx
        rows.append((len(ref), s, d, i))
    return rows


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=6))
def test_counts_equal_jiwer_process_words_and_characters(pairs):
    refs, hyps = [r for r, _ in pairs], [h for _, h in pairs]
    assert [tuple(c) for c in word_counts_many(refs, hyps)] == _jiwer_rows(
        jiwer.process_words(refs, hyps)
    )
    assert [tuple(c) for c in char_counts_many(refs, hyps)] == _jiwer_rows(
        jiwer.process_characters(refs, hyps)
    )


def test_known_counts():
    (w,) = word_counts_many(["the cat sat"], ["the bat sat down"])
    assert tuple(w) == (3, 1, 0, 1)
    (c,) = char_counts_many([" ab c "], ["abd c"])
    assert tuple(c) == (4, 0, 0, 1)
