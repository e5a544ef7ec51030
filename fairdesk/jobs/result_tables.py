"""The comparison tables of an audit run for the Python API: each group against the reference
as a difference (the gap) or a ratio, with its 95% interval, and fairlearn's between-groups
spread as a descriptive option (docs/METHODS.md, "Comparisons with the reference").

:meth:`AuditRun.difference` and :meth:`AuditRun.ratio` call these; they read the run's typed
comparisons, computing nothing new.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

#: The typed run (:class:`fairdesk.jobs.result.AuditRun`, which imports this module; not
#: imported here, so that the two are no circle).
AuditRun = Any

__all__ = ["METHODS", "comparison_table"]

#: ``to_reference``: each group against the reference group, with intervals (the default);
#: ``between_groups``: fairlearn's max − min (difference) or min ÷ max (ratio) over the analysed
#: groups' values, descriptive (no interval, no test).
METHODS = ("to_reference", "between_groups")


def _num(x) -> float:
    return float("nan") if x is None else float(x)


def comparison_table(
    run: AuditRun, kind: str, metric: str | None = None, method: str = "to_reference"
) -> pd.DataFrame | pd.Series:
    """The ``difference`` or ``ratio`` table of ``run`` (see :meth:`AuditRun.difference`)."""
    import pandas as pd

    if method not in METHODS:
        raise ValueError(f"method={method!r}: expected one of {', '.join(METHODS)}")
    known = sorted({c.metric for c in run.comparisons} | set(run.by_group.columns))
    if metric is not None and metric not in known:
        raise KeyError(f"no metric {metric!r} in this run (metrics: {', '.join(known)})")
    if method == "between_groups":
        return _between_groups(run, kind, metric)
    value = "difference" if kind == "difference" else "ratio"
    rows = []
    for c in run.comparisons:
        if metric is not None and c.metric != metric:
            continue
        if kind == "difference":
            est, low, high = c.gap, c.ci_low, c.ci_high
        else:
            est, low, high = c.ratio, c.ratio_ci_low, c.ratio_ci_high
        rows.append(
            {
                "metric": c.metric,
                "group": c.group,
                "reference": c.reference,
                "value": _num(c.value),
                "reference_value": _num(c.reference_value),
                value: _num(est),
                "ci_low": _num(low),
                "ci_high": _num(high),
                "p_adjusted": _num(c.p_adjusted),
                "verdict": c.verdict,
            }
        )
    cols = ["metric", "group", "reference", "value", "reference_value", value]
    cols += ["ci_low", "ci_high", "p_adjusted", "verdict"]
    frame = pd.DataFrame(rows, columns=cols)
    if metric is not None:
        return frame.drop(columns="metric").set_index("group")
    return frame.set_index(["metric", "group"])


def _between_groups(run: AuditRun, kind: str, metric: str | None) -> pd.Series:
    """fairlearn's spread over the analysed groups (no excluded group, no row of missing
    values): max − min, or min ÷ max (NaN where the max is 0), per metric."""
    import pandas as pd

    analysed = [g for g in run.groups if not g.excluded and not g.missing]
    metrics = [metric] if metric is not None else sorted(run.by_group.columns)
    out = {}
    for m in metrics:
        vals = [v for g in analysed if (v := g.values.get(m)) is not None and math.isfinite(v)]
        if len(vals) < 2:
            out[m] = float("nan")
        elif kind == "difference":
            out[m] = max(vals) - min(vals)
        else:
            out[m] = min(vals) / max(vals) if max(vals) != 0 else float("nan")
    return pd.Series(out, dtype=float, name=f"{kind} between groups")
