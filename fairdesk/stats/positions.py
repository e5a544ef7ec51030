"""Word-position error heatmap for matched designs (docs/METHODS.md, "Word-position heatmap").

When every speaker reads the same text, each reference word has a position, and the error
rate per position per group turns "this group's WER is higher" into "this group loses these
words".

Definitions
-----------
aligned reference word
    Reference and hypothesis pass the run's normaliser (the same as for WER), then jiwer
    aligns their words. Reference word ``i`` is an *error* when it lies in a substitution or a
    deletion chunk; insertions belong to no reference word and are not counted here.
rate
    For a content_id and a group, at position ``i``: errors at ``i`` ÷ items of that group
    that read that content. Descriptive, shown with n (items per group), no test.
which contents
    Only contents read by at least two groups (the shared content of a matched or partially
    matched design) and at least ``min_items`` items in all; at most ``max_contents`` of them
    (the most-read first), so a long corpus does not bloat the result.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

__all__ = ["reference_word_errors", "word_position_heatmap"]


def reference_word_errors(reference: str, hypothesis: str) -> tuple[list[str], list[int]]:
    """(reference words, 1/0 error flag per reference word) of one normalised pair.

    Parameters
    ----------
    reference, hypothesis : already normalised texts (words split on whitespace).

    Returns
    -------
    (words, flags)
        ``flags[i]`` is 1 when reference word ``i`` is substituted or deleted.
    """
    import jiwer

    words = reference.split()
    if not words:
        return [], []
    if not hypothesis.split():
        return words, [1] * len(words)
    out = jiwer.process_words(reference, hypothesis)
    flags = [0] * len(words)
    for chunk in out.alignments[0]:
        if chunk.type in ("substitute", "delete"):
            for i in range(chunk.ref_start_idx, chunk.ref_end_idx):
                flags[i] = 1
    return words, flags


def word_position_heatmap(
    frame,
    normalizer,
    *,
    group_col: str = "group",
    content_col: str = "content_id",
    min_items: int = 2,
    max_contents: int = 50,
) -> dict:
    """Error rate per reference word position per group, for every shared content.

    Parameters
    ----------
    frame : per-item frame with ``reference``, ``hypothesis``, ``group_col`` and
        ``content_col`` (derived from the normalised reference when absent).
    normalizer : ``str -> str``, the run's WER normaliser.
    min_items, max_contents : see the module docstring.

    Returns
    -------
    dict
        ``{content_id: {"reference": str, "words": [...], "n_items": int,
        "groups": {group: [rate per position]}, "n": {group: items},
        "errors": {group: [count per position]}}}``; empty when no content is shared.
    """
    if (
        frame is None
        or len(frame) == 0
        or "reference" not in frame.columns
        or "hypothesis" not in frame.columns
    ):
        return {}
    if content_col in frame.columns:
        contents = frame[content_col].astype(str).to_numpy()
    else:
        from .compare import derive_content_ids

        contents = derive_content_ids(frame["reference"]).astype(str).to_numpy()
    groups = frame[group_col].astype(str).to_numpy()
    import pandas as pd

    by_content: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(contents):
        by_content[c].append(i)
    n_groups = pd.Series(groups).groupby(contents, sort=False).nunique().to_dict()
    shared = [
        (c, rows) for c, rows in by_content.items() if len(rows) >= min_items and n_groups[c] >= 2
    ]
    shared.sort(key=lambda cr: (-len(cr[1]), cr[0]))
    refs = frame["reference"].to_numpy(dtype=object)
    hyps = frame["hypothesis"].to_numpy(dtype=object)
    out: dict[str, dict] = {}
    from ..metrics.normalize import memoised

    normalised = memoised(normalizer)  # each distinct text normalised once
    flagged: dict = {}  # each distinct (reference, hypothesis) aligned once

    def norm(text):
        return normalised("" if text is None else text)

    for c, rows in shared[:max_contents]:
        norm_refs = {i: norm(refs[i]) for i in rows}
        # the most common normalised reference is the content's word list; a row whose
        # normalised text differs (a variant spelling under the same id) is left out
        counts: dict[str, int] = defaultdict(int)
        for t in norm_refs.values():
            counts[t] += 1
        ref_text = max(counts.items(), key=lambda kv: (kv[1], kv[0]))[0]
        words = ref_text.split()
        if not words:
            continue
        err: dict[str, np.ndarray] = {}
        n: dict[str, int] = defaultdict(int)
        for i in rows:
            if norm_refs[i] != ref_text:
                continue
            hyp = norm(hyps[i])
            if (ref_text, hyp) not in flagged:
                flagged[(ref_text, hyp)] = reference_word_errors(ref_text, hyp)[1]
            flags = flagged[(ref_text, hyp)]
            g = groups[i]
            err.setdefault(g, np.zeros(len(words), dtype=int))
            err[g] += np.asarray(flags, dtype=int)
            n[g] += 1
        if len(n) < 2:
            continue
        out[c] = {
            "reference": ref_text,
            "words": words,
            "n_items": int(sum(n.values())),
            "n": {g: int(k) for g, k in sorted(n.items())},
            "errors": {g: err[g].tolist() for g in sorted(err)},
            "groups": {g: (err[g] / n[g]).round(6).tolist() for g in sorted(err)},
        }
    return out
