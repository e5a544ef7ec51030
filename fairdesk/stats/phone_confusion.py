"""Phone confusions per group: the model's (no annotations) and the speakers' (annotated).

Definitions (docs/METHODS.md, "Phone confusions" and "Accentedness regression")
---------------------------
model-side phone confusion
    Reference and hypothesis pass the run's normaliser; their words are aligned as jiwer
    aligns them (rapidfuzz Levenshtein opcodes, the same alignment). Every word
    becomes ARPAbet phones (:class:`fairdesk.metrics.phones.Phonemizer`: CMUdict, espeak-ng
    for the words it lacks). A correct word's phones are all correct; a deleted word's phones
    are deleted (``P → -``); an inserted word's phones are inserted (``- → P``); in a
    substitution chunk the phones of its reference words and of its hypothesis words are
    aligned with ``rapidfuzz.distance.Levenshtein.editops`` (replace: ``P → Q``, delete,
    insert; the rest are correct). This says which phones the *model* gets wrong, not what
    the speaker said.
annotated phone confusion
    From linguists' annotations (kind ``phone_error``, value ``{"canonical", "perceived",
    "type"}`` with type s/d/a): canonical → perceived counts per group (``-`` for a deletion's
    perceived phone and an addition's canonical one).
rate
    ``count(P → Q) / n(P)`` with ``n(P)`` the reference occurrences of ``P`` in the group
    (model side) or, for annotations, the canonical phones of the group's annotated items
    when known (``n_phones``), else among the errors only (then said so).
accentedness regression
    OLS ``WER ~ accentedness + C(group)`` (statsmodels; reference group as the baseline),
    accentedness = annotated errors per canonical phone of the item, next to
    ``WER ~ C(group)``: a group term that is significant without accentedness and not with
    it was absorbed by pronunciation; one that stays is a penalty beyond it. Descriptive.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np

from .notices import notice

__all__ = [
    "accentedness_regression",
    "annotated_phone_confusion",
    "confused_phone_pairs",
    "item_phone_pairs",
    "model_phone_confusion",
    "tabulate",
]

#: The accentedness regression's coded note when accentedness is a function of the group
#: (words: :mod:`fairdesk.presentation.run_notes`).
ACCENTEDNESS_COLLINEAR = "run.accentedness_collinear"

GAP = "-"


def _phone_pairs(
    reference: str, hypothesis: str, phonemizer, correct: bool
) -> list[tuple[str, str]]:
    """The phone pairs of one normalised item; ``correct=False`` leaves out the pairs whose
    two sides are equal (and so never expands a correct chunk)."""
    from rapidfuzz.distance import Levenshtein

    rw, hw = reference.split(), hypothesis.split()
    ph = phonemizer.phones
    if not rw and not hw:
        return []
    if not hw:
        return [(p, GAP) for w in rw for p in ph(w)]
    if not rw:
        return [(GAP, p) for w in hw for p in ph(w)]
    if rw == hw:
        return [(p, p) for w in rw for p in ph(w)] if correct else []
    out: list[tuple[str, str]] = []
    # the word alignment jiwer makes (rapidfuzz Levenshtein opcodes over the word lists)
    for ch in Levenshtein.opcodes(rw, hw):
        if ch.tag == "equal" and not correct:
            continue
        r = [p for w in rw[ch.src_start : ch.src_end] for p in ph(w)]
        h = [p for w in hw[ch.dest_start : ch.dest_end] for p in ph(w)]
        if ch.tag == "equal":
            out += [(p, p) for p in r]
        elif ch.tag == "delete":
            out += [(p, GAP) for p in r]
        elif ch.tag == "insert":
            out += [(GAP, p) for p in h]
        else:
            touched_r = set()
            for op in Levenshtein.editops(r, h):
                if op.tag == "replace":
                    out.append((r[op.src_pos], h[op.dest_pos]))
                    touched_r.add(op.src_pos)
                elif op.tag == "delete":
                    out.append((r[op.src_pos], GAP))
                    touched_r.add(op.src_pos)
                else:
                    out.append((GAP, h[op.dest_pos]))
            if correct:
                out += [(p, p) for i, p in enumerate(r) if i not in touched_r]
    return out


def item_phone_pairs(reference: str, hypothesis: str, phonemizer) -> list[tuple[str, str]]:
    """(reference phone or ``-``, hypothesis phone or ``-``) pairs of one normalised item."""
    return _phone_pairs(reference, hypothesis, phonemizer, correct=True)


def confused_phone_pairs(reference: str, hypothesis: str, phonemizer) -> list[tuple[str, str]]:
    """The pairs of :func:`item_phone_pairs` whose two sides differ (the confusions, the
    deleted and the inserted phones), without expanding the correct chunks."""
    return _phone_pairs(reference, hypothesis, phonemizer, correct=False)


def tabulate(pairs: Counter, top: int = 15, n_by_phone: Counter | None = None) -> dict:
    """One group's confusion table from (reference, produced) pair counts.

    ``n_by_phone``: reference occurrences per phone (default: from the pairs themselves).
    """
    if n_by_phone is None:
        n_by_phone = Counter()
        for (r, _h), c in pairs.items():
            if r != GAP:
                n_by_phone[r] += c
    errors = Counter({k: c for k, c in pairs.items() if k[0] != k[1]})
    n_ref = int(sum(n_by_phone.values()))
    n_err = int(sum(c for (r, _h), c in errors.items() if r != GAP))
    per_phone = {}
    for p in sorted(n_by_phone):
        e = int(sum(c for (r, _h), c in errors.items() if r == p))
        per_phone[p] = {
            "n": int(n_by_phone[p]),
            "errors": e,
            "rate": e / n_by_phone[p] if n_by_phone[p] else None,
        }
    confs = [
        {
            "ref": r,
            "hyp": h,
            "count": int(c),
            "rate": (c / n_by_phone[r]) if r != GAP and n_by_phone[r] else None,
        }
        for (r, h), c in errors.most_common()
    ]
    phones = sorted({p for k in errors for p in k})
    matrix = [[int(errors.get((r, h), 0)) for h in phones] for r in phones]
    return {
        "n_ref_phones": n_ref,
        "n_errors": n_err,
        "n_insertions": int(sum(c for (r, _h), c in errors.items() if r == GAP)),
        "phone_error_rate": n_err / n_ref if n_ref else None,
        "top": confs[:top],
        "per_phone": per_phone,
        "matrix": {"phones": phones, "counts": matrix},
    }


def model_phone_confusion(
    frame, normalizer, *, group_col: str = "group", top: int = 15, phonemizer=None
) -> dict:
    """Model-side phone confusions per group (see the module docstring).

    Returns
    -------
    dict
        ``{"groups": {g: table}, "from_espeak": [...], "unknown": [...], "method": str}``
        where each table is :func:`tabulate`'s.
    """
    from ..metrics.normalize import memoised
    from ..metrics.phones import Phonemizer

    ph = phonemizer or Phonemizer()
    # each distinct (group, reference, hypothesis) is normalised and aligned once and
    # counted as often as it occurs (a prompt read correctly by many speakers)
    import pandas as pd

    rows = pd.DataFrame(
        {
            "g": frame[group_col].astype(str).to_numpy(),
            "r": frame["reference"].fillna("").to_numpy(dtype=object),
            "h": frame["hypothesis"].fillna("").to_numpy(dtype=object),
        }
    )
    times = rows.value_counts(sort=False).to_dict()
    norm = memoised(normalizer)  # each distinct text normalised once
    triples = [(g, norm(r), norm(h), n) for (g, r, h), n in times.items()]
    texts = {t for _g, r, h, _n in triples for t in (r, h)}
    ph.prepare(w for t in texts for w in t.split())
    # per group: how often each reference text and each (reference, hypothesis) pair occurs;
    # the reference phones (every phone's n) and the confused pairs are then counted once per
    # distinct text and pair and weighted by those counts
    refs_of: dict[str, Counter[str]] = defaultdict(Counter)
    pairs_of: dict[str, Counter[tuple[str, str]]] = defaultdict(Counter)
    for g, r, h, n in triples:
        n = int(n)
        refs_of[g][r] += n
        if r != h:
            pairs_of[g][(r, h)] += n
    ref_phones: dict[str, Counter] = {}
    confused: dict[tuple[str, str], Counter] = {}
    out = {}
    for g in sorted(refs_of):
        n_by_phone: Counter = Counter()
        for r, n in refs_of[g].items():
            if r not in ref_phones:
                ref_phones[r] = Counter(p for w in r.split() for p in ph.phones(w))
            for p, c in ref_phones[r].items():
                n_by_phone[p] += c * n
        errors: Counter = Counter()
        for rh, n in pairs_of[g].items():
            if rh not in confused:
                confused[rh] = Counter(confused_phone_pairs(*rh, ph))
            for pq, c in confused[rh].items():
                errors[pq] += c * n
        out[g] = tabulate(errors, top, n_by_phone)
    return {
        "groups": out,
        "from_espeak": sorted(ph.from_espeak)[:200],
        "unknown": sorted(ph.unknown)[:200],
        "method": "words aligned as jiwer aligns them (rapidfuzz Levenshtein opcodes); "
        "phones from CMUdict (pocketsphinx), espeak-ng for words it lacks; "
        "phones of substituted words aligned with rapidfuzz Levenshtein "
        "editops",
    }


def annotated_phone_confusion(errors, n_phones: dict | None = None, top: int = 15) -> dict:
    """Annotated canonical → perceived confusions per group.

    Parameters
    ----------
    errors : iterable of ``(group, canonical, perceived)`` (``-`` or empty for a gap).
    n_phones : ``{group: Counter(canonical phone → occurrences)}`` over the annotated items,
        for rates per phone; None: rates are among errors only.
    """
    per: dict[str, Counter] = defaultdict(Counter)
    for g, c, p in errors:
        per[str(g)][(c or GAP, p or GAP)] += 1
    out = {}
    for g in sorted(set(per) | set(n_phones or {})):
        counts = per.get(g, Counter())
        base = (n_phones or {}).get(g)
        if base is not None:
            counts = counts + Counter(
                {
                    (ph, ph): max(0, n - sum(c for (r, _h), c in counts.items() if r == ph))
                    for ph, n in base.items()
                }
            )
        out[g] = tabulate(counts, top, n_by_phone=Counter(base) if base is not None else None)
        out[g]["rates_over"] = (
            "canonical phones of the annotated items"
            if base is not None
            else "annotated errors only (no phone counts)"
        )
    return out


def accentedness_regression(
    frame,
    *,
    outcome: str = "wer",
    reference: str | None = None,
    alpha: float = 0.05,
    group_col: str = "group",
) -> dict | None:
    """OLS ``outcome ~ accentedness + C(group)`` next to ``outcome ~ C(group)``.

    Parameters
    ----------
    frame : one row per annotated item with ``outcome``, ``accentedness`` and ``group_col``.
    reference : the baseline group (default: the largest).

    Returns
    -------
    dict or None (fewer than 2 groups or too few rows to fit)
        ``estimable`` (False with a ``reason`` when accentedness and group are collinear),
        ``beta_accentedness`` (coef, CI, p), ``groups``: per group ``without`` and ``with``
        (coef, CI, p of its term), ``survives`` (significant with accentedness), ``absorbed``
        (significant without it, not with it); ``n``, ``r2``, ``formula``.
    """
    import pandas as pd
    import statsmodels.formula.api as smf

    d = pd.DataFrame(
        {
            "y": pd.to_numeric(frame[outcome], errors="coerce"),
            "acc": pd.to_numeric(frame["accentedness"], errors="coerce"),
            "g": frame[group_col].astype(str),
        }
    ).dropna()
    groups = d["g"].value_counts()
    if len(groups) < 2 or len(d) < len(groups) + 3:
        return None
    ref = reference if reference in groups.index else str(groups.index[0])
    term = "C(g, Treatment(reference=" + repr(ref) + "))"
    m1 = smf.ols("y ~ acc + " + term, d)
    x = m1.exog
    base = {
        "formula": outcome + " ~ accentedness + C(group)",
        "reference": ref,
        "n": int(len(d)),
        "n_per_group": {str(k): int(v) for k, v in groups.items()},
        "alpha": alpha,
    }
    if np.linalg.matrix_rank(x) < x.shape[1]:
        return {
            **base,
            "estimable": False,
            "reason": notice(ACCENTEDNESS_COLLINEAR),
        }
    m0 = smf.ols("y ~ " + term, d).fit()
    m1 = m1.fit()

    def coef(m, name):
        ci = m.conf_int(alpha).loc[name]
        return {
            "coef": float(m.params[name]),
            "ci": [float(ci[0]), float(ci[1])],
            "p": float(m.pvalues[name]),
        }

    out_groups = {}
    for g in sorted(groups.index):
        if g == ref:
            continue
        name = term + "[T." + str(g) + "]"
        w0, w1 = coef(m0, name), coef(m1, name)
        out_groups[g] = {
            "without": w0,
            "with": w1,
            "survives": bool(w1["p"] < alpha),
            "absorbed": bool(w0["p"] < alpha and w1["p"] >= alpha),
        }
    return {
        **base,
        "estimable": True,
        "beta_accentedness": coef(m1, "acc"),
        "r2": float(m1.rsquared),
        "r2_without": float(m0.rsquared),
        "groups": out_groups,
        "mean_accentedness": {str(g): float(np.mean(s)) for g, s in d.groupby("g")["acc"]},
    }
