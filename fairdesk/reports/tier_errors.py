"""The ``errors`` tier of the TextGrid and ELAN exports (:mod:`fairdesk.reports.tiers`): the
run's own word alignment of an item (as ``fairdesk show`` and the item view give it) placed
on the spans of the written reference words each operation comes from."""

from __future__ import annotations

__all__ = ["error_labels", "token_owners"]


def token_owners(words: list[str], tokens, norm) -> list[tuple[int, int]]:
    """For each token of the whole text's normalisation, the first and last written word
    it comes from: ``(first, last)`` indices into ``words``.

    Whole-text normalisation can join or split words (``zero nine three`` is one token
    ``093``; ``4342`` stays one word), so tokens and written words are matched by their
    letters: each word normalised on its own gives the letters it owns, and a Levenshtein
    alignment of those letters with the tokens' letters (rapidfuzz, spaces left out) hands
    each token the words whose letters it holds. A token none of whose letters match
    takes the word after the previous token's (or the first word); a word no token took
    goes with the next token (the last one at the end).
    """
    from rapidfuzz.distance import Levenshtein

    if not words:
        return [(0, 0)] * len(tokens)
    owned: list[str] = []
    owner: list[int] = []
    for i, word in enumerate(words):
        for ch in norm(word).replace(" ", ""):
            owned.append(ch)
            owner.append(i)
    chars: list[str] = []
    char_token: list[int] = []
    for j, t in enumerate(tokens):
        for ch in t:
            chars.append(ch)
            char_token.append(j)
    hits: list[list[int]] = [[] for _ in tokens]
    for op in Levenshtein.opcodes(chars, owned):
        if op.tag not in ("equal", "replace"):
            continue
        a0, a1, b0, b1 = op.src_start, op.src_end, op.dest_start, op.dest_end
        for k in range(a1 - a0):  # a replaced stretch maps letter to letter, in proportion
            b = b0 + (k * (b1 - b0)) // max(a1 - a0, 1)
            hits[char_token[a0 + k]].append(owner[b])
    out: list[tuple[int, int]] = []
    for h in hits:
        if h:
            a, b = min(h), max(h)
        else:
            a = b = min(out[-1][1] + 1, len(words) - 1) if out else 0
        if out:  # in order, as the alignment is
            a = max(a, out[-1][0])
            b = max(b, a)
        out.append((a, b))
    # a word none of whose letters a token took (``one`` alone is ``one``, in ``ONE ONE
    # ZERO`` it is part of ``110``; a filler the normaliser drops) goes with the next token
    covered = {w for a, b in out for w in range(a, b + 1)}
    for w in range(len(words)):
        if w in covered or not out:
            continue
        nxt = next((j for j, (a, _) in enumerate(out) if a > w), None)
        if nxt is None:
            out[-1] = (out[-1][0], max(out[-1][1], w))
        else:
            out[nxt] = (w, out[nxt][1])
    return out


def error_labels(ref_spans, row: dict, language: str, norm_name) -> list[tuple[float, float, str]]:
    """The ``errors`` tier: the operations of the run's own alignment of the item
    (:func:`fairdesk.review.word_alignment`, as ``fairdesk show`` and the item view give
    them) on the spans of the written reference words they come from."""
    from ..metrics.normalize import tone_preserving
    from ..review import word_alignment
    from .align import Op, _mark_detail, base_letters, normaliser

    norm = normaliser(norm_name, language)
    al = word_alignment(row.get("reference"), row.get("hypothesis"), language, norm_name)
    ref_words = [w for _, _, w in ref_spans]
    hyp_words = str(row.get("hypothesis") or "").split()
    rown = token_owners(ref_words, al.ref, norm)
    hown = token_owners(hyp_words, al.hyp, norm)
    labels: list[tuple[tuple[int, int], str]] = []
    before = None  # the written words of the last reference token
    for o in al.ops:
        r = al.ref[o.ref_index] if o.ref_index is not None else ""
        h = al.hyp[o.hyp_index] if o.hyp_index is not None else ""
        if o.ref_index is not None:
            at = before = rown[o.ref_index]
        else:  # an insertion: on the reference word before it (the first one if none)
            at = (before[1], before[1]) if before is not None else (0, 0)
        if o.op == "=" and o.hyp_index is not None:  # a match has both indices
            # a normaliser that strips marks (Whisper's English one) hides tone-mark errors;
            # they are shown, and said not to be scored
            rw = tone_preserving(" ".join(ref_words[at[0] : at[1] + 1]))
            ha, hb = hown[o.hyp_index]
            hw = tone_preserving(" ".join(hyp_words[ha : hb + 1]))
            if rw == hw or base_letters(rw) != base_letters(hw):
                continue
            detail = _mark_detail(rw, hw)
            lab = Op("T", rw, hw, o.ref_index, o.hyp_index, f"{detail}; not scored").label()
        elif o.op == "S":
            detail = _mark_detail(r, h)
            kind = "T" if detail and base_letters(r) == base_letters(h) else "S"
            lab = Op(kind, r, h, o.ref_index, o.hyp_index, detail).label()
        else:
            lab = Op(o.op, r, h, o.ref_index, o.hyp_index).label()
        labels.append((at, lab))
    # one interval per stretch of written words; stretches that overlap are joined
    merged: list[list] = []
    for (a, b), lab in labels:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
            merged[-1][2].append(lab)
        else:
            merged.append([a, b, [lab]])
    return [(ref_spans[a][0], ref_spans[b][1], "; ".join(labs)) for a, b, labs in merged]
