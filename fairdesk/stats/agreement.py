"""Agreement of annotators on the items they share
(docs/METHODS.md, "References from several annotators"): raw tone-mark agreement, Cohen's κ (two annotators), Krippendorff's α (nominal,
any number, missing values allowed), inter-annotator WER, DER and TER, each with a speaker
bootstrap 95% interval and the items and marks it rests on; the items ranked by how much their
versions disagree.

Mark units: the versions' base letters (marks removed, tone-preserving normaliser) are aligned
as TER aligns them (rapidfuzz Levenshtein opcodes); every aligned base letter that carries a
mark in any version is a unit, whose category in each version is its mark set (a letter a
version lacks: a missing value). With more than two annotators the first annotator with a
version of the item is the pivot the others align to. κ is scikit-learn's
``cohen_kappa_score`` and α the ``krippendorff`` package's on the same units (the point
estimates); the bootstrap replicates apply the same formulas to sums taken per speaker once
(:func:`_replicate_stats`), tested equal to the packages on every replicate.

Pure numbers: words are :mod:`fairdesk.presentation.agreement`'s.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..metrics.normalize import tone_preserving
from ..metrics.text import _units, tone_counts_units, word_counts_many

__all__ = [
    "AgreementGroup",
    "AgreementItem",
    "AgreementResult",
    "AgreementStat",
    "Disagreement",
    "NO_MARKS",
    "NOT_TWO",
    "NO_EXPECTED",
    "NO_WORDS",
    "ONE_CATEGORY",
    "TOO_FEW_ITEMS",
    "agreement",
    "mark_units",
]

#: Why a statistic has no value (the presentation says it in words).
TOO_FEW_ITEMS = "too_few_items"  # fewer than 2 shared items
NO_MARKS = "no_marks"  # no aligned letter carries a mark in two versions
NOT_TWO = "not_two_annotators"  # Cohen's κ is for exactly two annotators
ONE_CATEGORY = "one_category"  # every mark value is the same: κ/α are undefined
NO_EXPECTED = "no_expected_marks"  # DER/TER: no version has a mark to score against
NO_WORDS = "no_words"  # WER: the versions have no words after the normaliser

#: Fewest shared items for a number.
MIN_ITEMS = 2


@dataclass(frozen=True)
class AgreementStat:
    """One statistic: its value and 95% speaker-bootstrap interval (None where it has none),
    or the reason it has no value (one of the module's reason codes)."""

    value: float | None = None
    low: float | None = None
    high: float | None = None
    reason: str | None = None


@dataclass(frozen=True)
class AgreementGroup:
    """Agreement on the shared items of a group (``group`` None: every shared item).

    ``n_items``: shared items (two or more versions); ``n_marks``: mark units with two or
    more values (what the mark statistics rest on); ``n_speakers``: their speakers."""

    group: str | None
    n_items: int
    n_marks: int
    n_speakers: int
    raw: AgreementStat
    kappa: AgreementStat
    alpha: AgreementStat
    wer: AgreementStat
    der: AgreementStat
    ter: AgreementStat


@dataclass(frozen=True)
class Disagreement:
    """An item where annotators disagree: its versions, the mark units whose values differ
    (of ``n_marks``), and the word edits between the versions (mean over pairs)."""

    item: str
    group: str | None
    speaker: str | None
    versions: tuple[tuple[str, str], ...]  # (annotator, text)
    marks_differing: int
    n_marks: int
    word_edits: float


@dataclass(frozen=True)
class AgreementResult:
    """The agreement of ``annotators`` (overall, and per group of ``by``)."""

    annotators: tuple[str, ...]
    normaliser: str
    n_bootstrap: int
    seed: int
    by: str | None
    overall: AgreementGroup
    groups: tuple[AgreementGroup, ...]
    disagreements: tuple[Disagreement, ...]


@dataclass(frozen=True)
class AgreementItem:
    """One item's versions (``texts[k]``: annotator ``k``'s text, None without one)."""

    item: str
    speaker: str | None
    group: str | None
    texts: tuple[str | None, ...]


def _category(marks: tuple[str, ...]) -> str:
    return "".join(sorted(set(marks)))


def mark_units(texts: Sequence[str | None]) -> list[tuple[str | None, ...]]:
    """The mark units of one item's versions: per unit, each annotator's category (its mark
    set as a string, ``""`` for a bare letter; None: no such letter or no version)."""
    units = [None if t is None else _units(tone_preserving(t)) for t in texts]
    present = [k for k, u in enumerate(units) if u is not None]
    if len(present) < 2:
        return []
    n = len(texts)
    pivot = units[present[0]]
    assert pivot is not None
    rows: list[list[str | None]] = []
    for marks in pivot.marks:
        row: list[str | None] = [None] * n
        row[present[0]] = _category(marks)
        rows.append(row)
    extra: list[list[str | None]] = []
    for k in present[1:]:
        u = units[k]
        assert u is not None

        def alone(j: int, k: int = k, u=u) -> None:
            row: list[str | None] = [None] * n
            row[k] = _category(u.marks[j])
            extra.append(row)

        from rapidfuzz.distance import Levenshtein

        for op in Levenshtein.opcodes(pivot.base, u.base):
            tag, i1, i2, j1, j2 = op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end
            if tag in ("equal", "replace"):
                m = min(i2 - i1, j2 - j1)
                for d in range(m):
                    rows[i1 + d][k] = _category(u.marks[j1 + d])
                for j in range(j1 + m, j2):
                    alone(j)
            elif tag == "insert":
                for j in range(j1, j2):
                    alone(j)
    return [tuple(r) for r in rows + extra if any(v for v in r)]


# -- per-item statistics ---------------------------------------------------------------
@dataclass
class _Table:
    """The per-item and per-unit arrays every replicate re-weights."""

    speakers: np.ndarray  # item -> speaker code
    n_speakers: int
    wer_err: np.ndarray  # item × pair
    wer_words: np.ndarray
    der_num: np.ndarray  # item × ordered pair
    der_den: np.ndarray
    ter_num: np.ndarray
    ter_den: np.ndarray
    unit_item: np.ndarray  # unit -> item
    unit_codes: np.ndarray  # annotator × unit (float, NaN missing)
    n_categories: int
    agree: np.ndarray  # per unit: agreeing pairs of values
    pairs: np.ndarray  # per unit: pairs of values


def _table(items: Sequence[AgreementItem], n_ann: int, normalise: Callable) -> _Table:
    pairs = list(itertools.combinations(range(n_ann), 2))
    ordered = list(itertools.permutations(range(n_ann), 2))
    n = len(items)
    speakers: dict[str, int] = {}
    spk = np.array(
        [
            speakers.setdefault(
                it.speaker if it.speaker else "\0item " + str(it.item), len(speakers)
            )
            for it in items
        ],
        dtype=np.int64,
    )
    wer_err = np.zeros((n, len(pairs)))
    wer_words = np.zeros((n, len(pairs)))
    der_num = np.zeros((n, len(ordered)))
    der_den = np.zeros((n, len(ordered)))
    ter_num = np.zeros((n, len(ordered)))
    ter_den = np.zeros((n, len(ordered)))
    for i, it in enumerate(items):
        normed = [None if t is None else normalise(t) for t in it.texts]
        units = [None if t is None else _units(tone_preserving(t)) for t in it.texts]
        for p, (a, b) in enumerate(pairs):
            na, nb = normed[a], normed[b]
            if na is None or nb is None:
                continue
            ab, ba = word_counts_many([na, nb], [nb, na])
            wer_err[i, p] = ab.n_sub + ab.n_del + ab.n_ins
            wer_words[i, p] = (ab.n_words + ba.n_words) / 2
        for q, (a, b) in enumerate(ordered):
            ua, ub = units[a], units[b]
            if ua is None or ub is None:
                continue
            e, pr = ua.n_marked, ub.n_marked
            der_num[i, q] = max(0, e - pr) + max(0, pr - e)
            der_den[i, q] = e
            tc = tone_counts_units(ua, ub)
            ter_num[i, q] = tc.tone_dropped + tc.tone_hallucinated + tc.tone_wrong
            ter_den[i, q] = tc.tone_expected
    unit_rows: list[tuple[str | None, ...]] = []
    unit_item: list[int] = []
    for i, it in enumerate(items):
        for u in mark_units(it.texts):
            if sum(v is not None for v in u) >= 2:  # a unit two versions can agree on
                unit_rows.append(u)
                unit_item.append(i)
    cats = sorted({v for u in unit_rows for v in u if v is not None})
    code = {c: float(k) for k, c in enumerate(cats)}
    codes = np.full((n_ann, len(unit_rows)), np.nan)
    agree = np.zeros(len(unit_rows))
    total = np.zeros(len(unit_rows))
    for j, u in enumerate(unit_rows):
        vals = [v for v in u if v is not None]
        for k, v in enumerate(u):
            if v is not None:
                codes[k, j] = code[v]
        for x, y in itertools.combinations(vals, 2):
            total[j] += 1
            agree[j] += x == y
    return _Table(
        spk,
        len(speakers),
        wer_err,
        wer_words,
        der_num,
        der_den,
        ter_num,
        ter_den,
        np.array(unit_item, dtype=np.int64),
        codes,
        len(cats),
        agree,
        total,
    )


def _mean_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Per row of weights: the mean over pairs (columns) of Σnum/Σden where Σden > 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    ok = np.isfinite(r)
    cnt = ok.sum(axis=-1)
    s = np.where(ok, r, 0.0).sum(axis=-1)
    return np.where(cnt > 0, s / np.maximum(cnt, 1), np.nan)


def _kappa(codes: np.ndarray, w: np.ndarray) -> float:
    from sklearn.metrics import cohen_kappa_score

    both = np.isfinite(codes[0]) & np.isfinite(codes[1]) & (w > 0)
    if not both.any():
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one category: sklearn warns and gives NaN
        return float(cohen_kappa_score(codes[0, both], codes[1, both], sample_weight=w[both]))


def _alpha(codes: np.ndarray, w: np.ndarray, n_cats: int) -> float:
    import krippendorff

    if n_cats < 2:
        return float("nan")
    reps = np.repeat(codes, w.astype(np.int64), axis=1)
    if reps.shape[1] == 0:
        return float("nan")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(
                krippendorff.alpha(
                    reliability_data=reps,
                    value_domain=np.arange(n_cats, dtype=float),
                    level_of_measurement="nominal",
                )
            )
    except ValueError:  # one value used in every unit
        return float("nan")


def _stats(t: _Table, w_items: np.ndarray, n_ann: int) -> np.ndarray:
    """(raw, κ, α, WER, DER, TER) under item weights ``w_items``."""
    wu = w_items[t.unit_item] if len(t.unit_item) else np.zeros(0)
    tot = float(wu @ t.pairs) if len(wu) else 0.0
    raw = float(wu @ t.agree) / tot if tot > 0 else np.nan
    kappa = _kappa(t.unit_codes, wu) if n_ann == 2 and len(wu) else np.nan
    alpha = _alpha(t.unit_codes, wu, t.n_categories) if len(wu) else np.nan
    wer = _mean_ratio(w_items @ t.wer_err, w_items @ t.wer_words)
    der = _mean_ratio(w_items @ t.der_num, w_items @ t.der_den)
    ter = _mean_ratio(w_items @ t.ter_num, w_items @ t.ter_den)
    return np.array([raw, kappa, alpha, float(wer), float(der), float(ter)])


def _speaker_counts(draws: np.ndarray, n_speakers: int) -> np.ndarray:
    """``(B, n_speakers)``: how often each speaker is drawn in each replicate's row of
    ``draws``."""
    B = draws.shape[0]
    flat = (draws + n_speakers * np.arange(B)[:, None]).ravel()
    return np.bincount(flat, minlength=B * n_speakers).reshape(B, n_speakers).astype(float)


def _by_speaker(values: np.ndarray, owner: np.ndarray, n_speakers: int) -> np.ndarray:
    """``values`` (rows: items or units) summed per speaker (``owner[row]``)."""
    out = np.zeros((n_speakers, *values.shape[1:]))
    np.add.at(out, owner, values)
    return out


def _replicate_stats(t: _Table, counts: np.ndarray, n_ann: int) -> np.ndarray:
    """``(B, 6)``: :func:`_stats` of every replicate at once, the speakers drawn ``counts``
    times (``(B, n_speakers)``). Every statistic is a function of sums that are linear in the
    item weights, so the sums are taken per speaker once and each replicate is a product:
    raw agreement from the agreeing and total pairs; κ from the two annotators' weighted
    confusion matrix (scikit-learn's ``cohen_kappa_score`` formula, unweighted); α from the
    weighted coincidence matrix (the ``krippendorff`` package's ``_coincidences``, nominal
    distance). Equal to :func:`_stats` replicate by replicate (tests/annotators)."""
    S = t.n_speakers
    B = counts.shape[0]
    out = np.full((B, 6), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        for k, (num, den) in enumerate(
            ((t.wer_err, t.wer_words), (t.der_num, t.der_den), (t.ter_num, t.ter_den)), 3
        ):
            out[:, k] = _mean_ratio(
                counts @ _by_speaker(num, t.speakers, S), counts @ _by_speaker(den, t.speakers, S)
            )
        if not len(t.unit_item):
            return out
        owner = t.speakers[t.unit_item]
        tot = counts @ _by_speaker(t.pairs, owner, S)
        out[:, 0] = np.where(tot > 0, (counts @ _by_speaker(t.agree, owner, S)) / tot, np.nan)
        V = t.n_categories
        codes = t.unit_codes
        if n_ann == 2 and V:
            both = np.isfinite(codes[0]) & np.isfinite(codes[1])
            cell = np.zeros((len(owner), V * V))
            idx = np.flatnonzero(both)
            cell[idx, (codes[0, idx] * V + codes[1, idx]).astype(np.int64)] = 1.0
            conf = (counts @ _by_speaker(cell, owner, S)).reshape(B, V, V)
            sum0, sum1 = conf.sum(axis=1), conf.sum(axis=2)
            n = sum0.sum(axis=1)
            expected = sum0[:, :, None] * sum1[:, None, :] / n[:, None, None]
            off = 1.0 - np.eye(V)
            k_num = (off * conf).sum(axis=(1, 2))
            k_den = (off * expected).sum(axis=(1, 2))
            out[:, 1] = np.where((n > 0) & (k_den != 0), 1 - k_num / k_den, np.nan)
        if V >= 2:
            value_counts = np.stack([(codes == v).sum(axis=0) for v in range(V)], axis=1).astype(
                float
            )
            pairable = np.maximum(value_counts.sum(axis=1), 2)
            unit_o = (
                value_counts[:, :, None] * value_counts[:, None, :]
                - value_counts[:, None, :] * np.eye(V)[None]
            ) / (pairable - 1)[:, None, None]
            o = (counts @ _by_speaker(unit_o.reshape(len(owner), V * V), owner, S)).reshape(B, V, V)
            n_v = o.sum(axis=1)
            n = n_v.sum(axis=1)
            e = (n_v[:, :, None] * n_v[:, None, :] - n_v[:, None, :] * np.eye(V)[None]) / (n - 1)[
                :, None, None
            ]
            d = 1.0 - np.eye(V)
            a_den = (e * d).sum(axis=(1, 2))
            drawn = counts @ _by_speaker(np.ones(len(owner)), owner, S) > 0
            out[:, 2] = np.where(drawn & (a_den != 0), 1 - (o * d).sum(axis=(1, 2)) / a_den, np.nan)
    return out


def _group(
    name: str | None,
    items: Sequence[AgreementItem],
    n_ann: int,
    normalise: Callable,
    n_bootstrap: int,
    rng: np.random.Generator,
) -> AgreementGroup:
    shared = [it for it in items if sum(t is not None for t in it.texts) >= 2]
    n = len(shared)
    if n < MIN_ITEMS:
        none = AgreementStat(reason=TOO_FEW_ITEMS)
        spk = len({it.speaker or it.item for it in shared})
        return AgreementGroup(name, n, 0, spk, none, none, none, none, none, none)
    t = _table(shared, n_ann, normalise)
    point = _stats(t, np.ones(n), n_ann)
    reps = np.full((n_bootstrap, len(point)), np.nan)
    if t.n_speakers >= 2:
        draws = rng.integers(0, t.n_speakers, size=(n_bootstrap, t.n_speakers))
        reps = _replicate_stats(t, _speaker_counts(draws, t.n_speakers), n_ann)
    n_marks = int(len(t.unit_item))
    reasons = [
        NO_MARKS if n_marks == 0 else None,
        NOT_TWO if n_ann != 2 else (NO_MARKS if n_marks == 0 else ONE_CATEGORY),
        NO_MARKS if n_marks == 0 else ONE_CATEGORY,
        NO_WORDS,
        NO_EXPECTED,
        NO_EXPECTED,
    ]
    stats = []
    for k, v in enumerate(point):
        if not np.isfinite(v):
            stats.append(AgreementStat(reason=reasons[k]))
            continue
        col = reps[:, k][np.isfinite(reps[:, k])]
        if len(col) >= max(2, n_bootstrap // 2):
            lo, hi = np.percentile(col, [2.5, 97.5])
            stats.append(AgreementStat(float(v), float(lo), float(hi)))
        else:
            stats.append(AgreementStat(float(v)))
    return AgreementGroup(name, n, n_marks, t.n_speakers, *stats)


def _disagreements(
    items: Sequence[AgreementItem], annotators: Sequence[str], normalise: Callable
) -> list[Disagreement]:
    out = []
    for it in items:
        present = [k for k, t in enumerate(it.texts) if t is not None]
        if len(present) < 2:
            continue
        units = [u for u in mark_units(it.texts) if sum(v is not None for v in u) >= 2]
        differing = sum(len({v for v in u if v is not None}) > 1 for u in units)
        edits = []
        for a, b in itertools.combinations(present, 2):
            na, nb = normalise(it.texts[a]), normalise(it.texts[b])
            wc = word_counts_many([na], [nb])[0]
            edits.append(wc.n_sub + wc.n_del + wc.n_ins)
        word_edits = float(np.mean(edits)) if edits else 0.0
        if differing or word_edits:
            out.append(
                Disagreement(
                    it.item,
                    it.group,
                    it.speaker,
                    tuple((annotators[k], str(it.texts[k])) for k in present),
                    differing,
                    len(units),
                    word_edits,
                )
            )
    out.sort(key=lambda d: (-(d.marks_differing + d.word_edits), -d.marks_differing, d.item))
    return out


def agreement(
    items: Sequence[AgreementItem],
    annotators: Sequence[str],
    normalise: Callable[[str], str],
    normaliser: str,
    by: str | None = None,
    n_bootstrap: int = 2000,
    seed: int = 0,
    top: int = 20,
) -> AgreementResult:
    """The agreement of ``annotators`` on ``items`` (overall, per ``group`` of the items when
    ``by`` names the grouping), each statistic with its speaker-bootstrap 95% interval.

    Parameters
    ----------
    items : each item's versions, one text per annotator (None: no version).
    annotators : the annotators' names, in the order of ``texts``.
    normalise : the run's text normaliser (WER); ``normaliser`` its name.
    by : the grouping key the items' ``group`` holds (None: no groups).
    n_bootstrap, seed : speaker-bootstrap replicates and the seed of their draws.
    top : most disagreeing items listed.
    """
    from .bootstrap import comparison_rng

    n_ann = len(annotators)
    overall = _group(None, items, n_ann, normalise, n_bootstrap, comparison_rng(seed, "agreement"))
    groups = []
    if by is not None:
        names = sorted({it.group for it in items if it.group is not None})
        for g in names:
            groups.append(
                _group(
                    g,
                    [it for it in items if it.group == g],
                    n_ann,
                    normalise,
                    n_bootstrap,
                    comparison_rng(seed, "agreement", g),
                )
            )
    ranked = _disagreements(items, annotators, normalise)[: max(0, top)]
    return AgreementResult(
        tuple(annotators),
        normaliser,
        n_bootstrap,
        seed,
        by,
        overall,
        tuple(groups),
        tuple(ranked),
    )
