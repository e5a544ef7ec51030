"""Estimability checks made before any verdict (docs/METHODS.md, "Estimability").

A comparison gets a verdict only when its bootstrap distribution can say something:

* each side has at least 2 resampling units of the scheme (speakers, contents or
  utterances), and ``auto`` never picks a scheme with fewer; a single-speaker design is
  resampled by utterance only when the user asks for it;
* the replicate gaps vary, unless both groups are constant (then there is nothing to vary:
  ``no_variation`` when the constants are equal; a disparity when they differ).

These functions are pure and work on numpy arrays; ``compare`` wires them in.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from fairdesk.stats.bootstrap import MIN_SHARED_CONTENT, Side, _side_blocks, shared_contents
from fairdesk.stats.notices import Notice, notice
from fairdesk.stats.results import NoVariation

#: Fewest resampling units per side for an estimable comparison.
MIN_UNITS = 2
#: Fewest expected marks (the basis E) of a diacritic metric for an interval or a test
#: (docs/METHODS.md, "When the diacritic metrics apply"): fewer make it descriptive.
MIN_BASIS = 10
#: The basis of each diacritic metric's denominator, in words.
BASIS_UNITS = {"dia_expected": "expected diacritics", "tone_expected": "expected tone marks"}
#: Note codes (worded by fairdesk.presentation.estimability_words).
DESCRIPTIVE_BASIS = "estimability.descriptive_basis"
NO_SHARED_ITEMS = "estimability.no_shared_items"
ONE_UTTERANCE = "estimability.one_utterance"
FEW_SPEAKERS = "estimability.few_speakers"
FEW_SHARED = "estimability.few_shared"
#: the resampled gaps do not vary although the items do
NO_SPREAD = "estimability.no_spread"
#: a units note (``reason``) on a sampled metric's sample (``group``, ``reference``,
#: ``items``: the sample's sizes and what it counts)
ON_SAMPLE = "estimability.on_sample"
#: Relative spread below which replicate values count as not varying.
_ZERO_SPREAD = 1e-12


def has_basis(spec) -> bool:
    """Whether a metric's values carry a basis E (the diacritic metrics: DER, RDD, net loss,
    TER and its parts; docs/METHODS.md, "When the diacritic metrics apply")."""
    return (
        spec.family == "diacritic"
        and bool(spec.denominator)
        and (spec.denominator[0] in BASIS_UNITS)
    )


def basis_unit(spec) -> str:
    """What a diacritic metric's basis E counts (``expected diacritics``, ...)."""
    return BASIS_UNITS.get(spec.denominator[0], "expected marks") if spec.denominator else ""


def basis_of(spec, X: np.ndarray, c: list[int], rows=None) -> float:
    """The basis E of a metric on ``rows`` of ``X`` (the sum of its denominator)."""
    den = [c[spec.stats.index(d)] for d in spec.denominator if d in spec.stats]
    sub = X if rows is None else X[rows]
    return float(sub[:, den].sum()) if den else 0.0


def descriptive_reason(label: str, unit: str, bases: dict) -> Notice | None:
    """Why a diacritic comparison or value is descriptive (None when every side named in
    ``bases``, name → E, has at least :data:`MIN_BASIS`): the note
    ``estimability.descriptive_basis`` with the metric's ``label``, the basis ``unit``,
    ``minimum`` and the short ``sides`` as ``((name, E), ...)``."""
    few = tuple((name, e) for name, e in bases.items() if e < MIN_BASIS)
    if not few:
        return None
    return notice(DESCRIPTIVE_BASIS, label=label, unit=unit, minimum=MIN_BASIS, sides=few)


def scheme_units(group: Side, reference: Side, scheme: str) -> dict:
    """Resampling units of each side under ``scheme``.

    Returns
    -------
    dict
        ``group`` and ``reference`` (rows drawn per side: speakers for two_way/speaker,
        items for utterance; None when the scheme draws no rows), ``contents`` (shared
        content ids drawn, None when the scheme draws none), ``group_items`` and
        ``reference_items`` (items the scheme analyses).
    """
    shared = shared_contents(group, reference) if scheme in ("two_way", "content") else None
    gb = _side_blocks(group, scheme, shared)
    rb = _side_blocks(reference, scheme, shared)
    return {
        "group": gb.T.shape[0] if gb.draw_rows else None,
        "reference": rb.T.shape[0] if rb.draw_rows else None,
        "contents": gb.T.shape[1] if gb.draw_cols else None,
        "group_items": gb.n_items,
        "reference_items": rb.n_items,
    }


def units_problem(units: dict, scheme: str, group: str, reference: str) -> Notice | None:
    """Why ``units`` are too few for ``scheme`` (None when every side has ≥ 2), as a note:
    ``estimability.no_shared_items`` (``name``), ``estimability.one_utterance`` (``k``,
    ``name``), ``estimability.few_speakers`` (``k``, ``name``) or
    ``estimability.few_shared`` (``k``)."""
    for side, name in (("group", group), ("reference", reference)):
        k = units[side]
        if k is not None and k < MIN_UNITS:
            if units[side + "_items"] == 0:
                return notice(NO_SHARED_ITEMS, name=name)
            if scheme == "utterance":
                return notice(ONE_UTTERANCE, k=k, name=name)
            return notice(FEW_SPEAKERS, k=k, name=name)
    c = units.get("contents")
    if c is not None and c < MIN_UNITS:
        return notice(FEW_SHARED, k=c)
    return None


def too_few(units: dict) -> bool:
    """Whether some drawn axis of ``units`` has fewer than ``MIN_UNITS`` units."""
    return any(
        units.get(k) is not None and units[k] < MIN_UNITS
        for k in ("group", "reference", "contents")
    )


def auto_scheme(
    group: Side, reference: Side, has_speakers: bool, n_shared: int
) -> tuple[str | None, dict, str | None]:
    """The automatic scheme of docs/METHODS.md, "Resampling schemes" that has ≥ 2 units per side.

    Order: two_way (speakers and ≥ 5 shared contents), speaker (speakers), content (no
    speakers, shared contents), utterance (neither). With speaker ids, a side with fewer than
    2 speakers makes the comparison not estimable (utterance resampling of a single-speaker
    design is only used when asked for).

    Returns
    -------
    (scheme, units, problem)
        ``scheme`` None with ``problem`` (the first scheme tried) when no scheme is estimable.
    """
    paired = n_shared >= MIN_SHARED_CONTENT
    if has_speakers:
        candidates = ["two_way", "speaker"] if paired else ["speaker"]
    else:
        candidates = ["content"] if paired else ["utterance"]
    first_problem = None
    for scheme in candidates:
        units = scheme_units(group, reference, scheme)
        if not too_few(units):
            return scheme, units, None
        first_problem = first_problem or (scheme, units)
    assert first_problem is not None  # candidates is never empty
    return None, first_problem[1], first_problem[0]


def constant_value(item_values: np.ndarray) -> float | None:
    """The common value when every defined per-item value is equal, else None.

    ``item_values`` are the metric computed on each item alone (NaN where undefined).
    """
    v = np.asarray(item_values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return None
    lo, hi = float(v.min()), float(v.max())
    if hi - lo <= _ZERO_SPREAD * max(1.0, abs(lo), abs(hi)):
        return lo
    return None


def zero_spread(reps: np.ndarray, centre: float) -> bool:
    """Whether the finite replicates do not vary (or fewer than 2 are finite)."""
    r = np.asarray(reps, dtype=float)
    r = r[np.isfinite(r)]
    if r.size < 2:
        return True
    return float(np.ptp(r)) <= _ZERO_SPREAD * max(1.0, abs(centre) if math.isfinite(centre) else 1)


def rule_of_three(value: float, n_group: float, n_reference: float, unit: str) -> NoVariation:
    """The ``no_variation`` record: n per side and the rule-of-three bound 3/n.

    With no event of the other outcome in n independent trials, 3/n is an approximate 95%
    upper bound on that outcome's rate (the exact bound is 1 − 0.05^(1/n)).
    """

    def bound(n):
        return 3.0 / n if n and n > 0 else math.nan

    return NoVariation(
        value=value,
        unit=unit,
        n_group=n_group,
        n_reference=n_reference,
        bound_group=bound(n_group),
        bound_reference=bound(n_reference),
    )


#: The schemes whose replicate deviations ``small_cluster_scaling`` scales (docs/METHODS.md,
#: "Small numbers of speakers"): the speaker scheme only; the two-way scheme covers 94-99%
#: without it (docs/METHODS.md, "Validation").
SCALED_SCHEMES = ("speaker",)


#: Two-sided level of every percentile interval (95%): the t factor's quantile.
CI_LEVEL = 0.95


@functools.lru_cache(maxsize=256)
def small_cluster_factor(k: int, level: float = CI_LEVEL) -> float:
    """f = √(k/(k−1)) · t_{1−α/2, k−1} / z_{1−α/2} (docs/METHODS.md, "Small numbers of speakers").

    The percentile cluster bootstrap over k clusters has (k−1)/k of the unbiased variance
    (the square root restores it), and an interval whose SE comes from k clusters needs
    Student's t with k − 1 degrees of freedom, not z (the quantile ratio). ``level`` is the
    interval's two-sided level (α = 1 − level). ``k`` < 2 gives 1 (nothing to scale).
    """
    if k < 2:
        return 1.0
    return math.sqrt(k / (k - 1)) * t_ratio(k, level)


def t_ratio(k: int, level: float = CI_LEVEL) -> float:
    """t_{1−α/2, k−1} / z_{1−α/2}: the t part of :func:`small_cluster_factor` (1 for ``k`` < 2)."""
    if k < 2:
        return 1.0
    from scipy.stats import norm, t

    q = 1.0 - (1.0 - level) / 2.0
    return float(t.ppf(q, k - 1)) / float(norm.ppf(q))


def scale_small_clusters(reps: np.ndarray, estimate, k: int | None) -> np.ndarray:
    """Replicate deviations from the estimate times ``small_cluster_factor(k)`` (docs/METHODS.md, "Small numbers of speakers").

    ``reps`` may be replicate sums ``(B, n_stats)`` with ``estimate`` the observed sums (one
    stratum or one side of a comparison: each is scaled with its own k before sides are
    differenced or strata added). ``k`` None or < 2 leaves ``reps`` as is.
    """
    if k is None or k < 2:
        return reps
    est = np.asarray(estimate, dtype=float)
    return est + small_cluster_factor(int(k)) * (np.asarray(reps, dtype=float) - est)
