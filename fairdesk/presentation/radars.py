"""The disparity radar's axes and radii: one axis per metric, one line per group, each axis
scaled so that the reference group lies on the unit circle (pure; the GUI's QPainter canvas
and the report's matplotlib chart only draw what :func:`radar` returns, so one run draws the
same radar in both).

An axis on which every group's value is below :data:`SMALL` (1%, a rate or proportion) is
left off: one flagged item in 200 puts a group at 0.5% and another at 0, a ratio that is
only noise; the chart names the axes left off (:func:`small_note`).

Where the reference's value on a metric is 0 (a perfect WER, say) the ratio is undefined:
that axis is scaled by the largest group value instead (the largest group sits on the unit
circle, the reference at the centre), and the chart says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

#: The most axes a radar shows.
MAX_AXES = 10
#: The fewest axes worth drawing as a radar.
MIN_AXES = 3
#: A rate or proportion below this in every group gets no axis (the stored value, 1%).
SMALL = 0.01


@dataclass(frozen=True)
class RadarScale:
    """What the radar draws.

    Attributes
    ----------
    metrics : the axes, in order.
    groups : the lines, in order (the reference first).
    radius : group -> one radius per axis (NaN where the group has no value).
    divisor : metric -> the value that maps to radius 1.
    by_max : the axes scaled by the largest group value (the reference's value is 0 there).
    empty : metrics left at (or out because of) 0 for every group.
    small : metrics left out because every group's value is below :data:`SMALL`.
    """

    metrics: tuple[str, ...]
    groups: tuple[str, ...]
    radius: dict[str, tuple[float, ...]]
    divisor: dict[str, float]
    by_max: tuple[str, ...] = ()
    empty: tuple[str, ...] = field(default=())
    small: tuple[str, ...] = field(default=())

    @property
    def outer(self) -> float:
        """The outermost ring: 1 (the reference) or the largest radius, rounded up to 0.5."""
        top = max((r for rs in self.radius.values() for r in rs if math.isfinite(r)), default=1.0)
        return max(1.0, math.ceil(top * 2 - 1e-9) / 2)

    @property
    def drawable(self) -> bool:
        """At least two groups and :data:`MIN_AXES` axes."""
        return len(self.groups) >= 2 and len(self.metrics) >= MIN_AXES


def _get(values, g, m) -> float:
    raw = (values.get(g) or {}).get(m)
    if raw is None:
        return math.nan
    try:
        v = float(raw)
    except (TypeError, ValueError):
        return math.nan
    return v if math.isfinite(v) else math.nan


def radar_scale(
    values: Mapping[str, Mapping[str, float | None]], reference: str, metrics: Sequence[str]
) -> RadarScale:
    """Scale each metric axis so that the reference group's value is 1.

    Parameters
    ----------
    values : group -> metric -> value (None or NaN: missing).
    reference : the reference group (a key of ``values``).
    metrics : the axes.

    Returns
    -------
    RadarScale
        ``radius[g][k] = values[g][m_k] / values[reference][m_k]``; on an axis where the
        reference's value is 0 (or missing), ``values[g][m_k] / max_g values[g][m_k]`` and the
        metric is listed in ``by_max``; an axis where every value is 0 has radius 0 for every
        group and is listed in ``empty``.
    """
    groups = [reference] + [g for g in values if g != reference]
    divisor: dict[str, float] = {}
    by_max, empty = [], []
    for m in metrics:
        ref = _get(values, reference, m)
        if math.isfinite(ref) and ref > 0:
            divisor[m] = ref
            continue
        finite = [_get(values, g, m) for g in groups if math.isfinite(_get(values, g, m))]
        top = max(finite, default=math.nan)
        if math.isfinite(top) and top > 0:
            divisor[m] = top
            by_max.append(m)
        else:
            divisor[m] = math.nan
            empty.append(m)
    radius = {}
    for g in groups:
        rs = []
        for m in metrics:
            v, d = _get(values, g, m), divisor[m]
            if not math.isfinite(v):
                rs.append(math.nan)
            elif not math.isfinite(d):
                rs.append(0.0)
            else:
                rs.append(max(0.0, v / d))
        radius[g] = tuple(rs)
    return RadarScale(tuple(metrics), tuple(groups), radius, divisor, tuple(by_max), tuple(empty))


def too_small(values: Mapping[str, Mapping[str, float | None]], metric: str) -> bool:
    """Whether ``metric`` is a rate or proportion whose every group value is below
    :data:`SMALL` but not every one 0 (a ratio metric such as the grounding lift never is)."""
    from .units import is_ratio

    vals = [v for g in values if math.isfinite(v := _get(values, g, metric))]
    if not vals or not any(vals) or is_ratio(metric):
        return False
    return all(abs(v) < SMALL for v in vals)


def small_note(scale: RadarScale, name) -> str:
    """The sentence under a radar naming the axes left off as too small (``name``: a
    metric's short name), '' for none."""
    if not scale.small:
        return ""
    names = ", ".join(name(m) for m in scale.small)
    return (
        f"Left off: {names}, where every group is below {SMALL:.0%}: a ratio between such "
        "small values (one item more or less) is noise, not a disparity."
    )


def radar_axes(
    values: Mapping[str, Mapping[str, float | None]],
    tested: Sequence[str],
    descriptive: Sequence[str] = (),
    n_flagged: int = 0,
) -> tuple[list[str], list[str]]:
    """The radar's axes of a run, and the tested metrics left out because every group is 0.

    Parameters
    ----------
    values : group -> metric -> value of the analysed groups.
    tested : the run's tested metrics, in order.
    descriptive : its descriptive metrics (S/D/I rates...), added while there are fewer
        than :data:`MIN_AXES` axes.
    n_flagged : items flagged as hallucinations; without any, ``wer_unflagged`` is the WER
        itself and gets no axis.

    Returns
    -------
    (axes, zero)
        ``axes``: the tested metrics with a nonzero value in some group, then descriptive
        ones while fewer than three, then ``hallucination_rate`` whenever the run has it
        (none of them where :func:`too_small`)
        (docs/METHODS.md, "Audit pitfalls"), at most :data:`MAX_AXES`; ``zero``: tested metrics where every group's
        value is 0.
    """

    def finite(m):
        return [v for g in values if math.isfinite(v := _get(values, g, m))]

    def has(m):
        return any(v != 0 for v in finite(m)) and not too_small(values, m)

    skip = set() if n_flagged else {"wer_unflagged"}
    axes = [m for m in tested if m not in skip and has(m)]
    zero = [m for m in tested if m not in skip and finite(m) and not any(finite(m))]
    for m in descriptive:
        if len(axes) >= MIN_AXES:
            break
        if m not in axes and m not in skip and has(m):
            axes.append(m)
    if "hallucination_rate" not in axes and has("hallucination_rate"):
        axes.append("hallucination_rate")
    return axes[:MAX_AXES], zero


def radar(
    values: Mapping[str, Mapping[str, float | None]],
    reference: str,
    tested: Sequence[str],
    descriptive: Sequence[str] = (),
    n_flagged: int = 0,
) -> RadarScale:
    """The radar of a run: :func:`radar_axes` scaled by :func:`radar_scale`.

    Parameters
    ----------
    values : group -> metric -> value of the analysed groups.
    reference : the reference group.
    tested, descriptive, n_flagged : as in :func:`radar_axes`.

    Returns
    -------
    RadarScale
        Its ``empty`` lists the tested metrics left out because every group is 0, its
        ``small`` the tested metrics (and the hallucination rate) left out because every
        group is below :data:`SMALL`.
    """
    axes, zero = radar_axes(values, tested, descriptive, n_flagged)
    skip = set() if n_flagged else {"wer_unflagged"}
    small = [
        m
        for m in dict.fromkeys([*tested, "hallucination_rate"])
        if m not in skip and too_small(values, m)
    ]
    return replace(radar_scale(values, reference, axes), empty=tuple(zero), small=tuple(small))
