"""How fairdesk shows its numbers, in every view (pure: no Qt, no matplotlib).

The GUI, the reports and the console format through this package, so one reading prints the
same everywhere: the units of :mod:`.numbers` (from the metric registry's specs), the labels
of :mod:`.labels`, the basis E of the diacritic metrics (:mod:`.basis`), the radar of
:mod:`.radars`, the group rows of :mod:`.rows`, a run's name (:mod:`.runs`) and the
incremental timelines of :mod:`.timeline`.
"""

from .basis import comparison_basis, fmt_basis, group_basis, with_basis
from .labels import (
    MISSING_MARK,
    MISSING_STATUS,
    corpus_label,
    corpus_note,
    higher_is_better,
    metric_label,
    metric_short,
    missing_row_note,
    short_group,
    text_sources,
)
from .numbers import (
    MISSING,
    P_FLOOR,
    count,
    finite,
    fmt_bound,
    fmt_ci,
    fmt_count,
    fmt_gap,
    fmt_interval,
    fmt_number,
    fmt_p,
    fmt_p_exact,
    fmt_percent,
    fmt_ratio,
    fmt_sig,
    fmt_stream_value,
    fmt_value,
    fmt_value_ci,
    is_ratio,
    number,
    p_clause,
    p_log10,
    plural,
    scale,
    unit,
)
from .radars import MAX_AXES, MIN_AXES, RadarScale, radar, radar_axes, radar_scale
from .rows import GroupRow, group_rows
from .runs import SEPARATOR, RunSpec, run_conditions, run_name
from .timeline import timeline_points

__all__ = [
    "MAX_AXES",
    "MIN_AXES",
    "MISSING",
    "P_FLOOR",
    "SEPARATOR",
    "MISSING_MARK",
    "MISSING_STATUS",
    "GroupRow",
    "RadarScale",
    "RunSpec",
    "corpus_label",
    "corpus_note",
    "comparison_basis",
    "count",
    "finite",
    "fmt_basis",
    "fmt_bound",
    "fmt_ci",
    "fmt_count",
    "fmt_gap",
    "fmt_interval",
    "fmt_number",
    "fmt_stream_value",
    "fmt_p",
    "fmt_p_exact",
    "fmt_percent",
    "fmt_ratio",
    "fmt_sig",
    "fmt_value",
    "fmt_value_ci",
    "group_basis",
    "group_rows",
    "higher_is_better",
    "is_ratio",
    "p_clause",
    "p_log10",
    "metric_label",
    "metric_short",
    "missing_row_note",
    "number",
    "plural",
    "radar",
    "radar_axes",
    "radar_scale",
    "run_conditions",
    "run_name",
    "scale",
    "short_group",
    "text_sources",
    "timeline_points",
    "unit",
    "with_basis",
]
