"""The one presentation module: every formatter's known outputs, the units from the metric
registry, the group labels, the group rows, the timeline points and the radar (the same
axes and radii for the GUI and the report)."""

from __future__ import annotations

import math

import pytest

from fairdesk import presentation as p
from fairdesk.jobs.result import AuditRun
from fairdesk.metrics.registry import METRICS, display_spec
from fairdesk.stats.results import GroupInfo

M = p.MISSING


# -- the missing marker and signed zeros -----------------------------------------------------
@pytest.mark.parametrize("missing", [None, math.nan, math.inf, -math.inf, "text", ""])
def test_one_missing_marker_for_every_formatter(missing):
    assert M == "–"
    for text in (
        p.fmt_value("wer", missing),
        p.fmt_gap("wer", missing),
        p.fmt_ratio(missing),
        p.fmt_ci("wer", missing, 0.1),
        p.fmt_ci("wer", 0.1, missing),
        p.fmt_interval("wer", [missing, 0.1]),
        p.fmt_p(missing),
        p.fmt_p_exact(missing),
        p.fmt_number(missing),
        p.fmt_sig(missing),
        p.fmt_percent(missing),
        p.fmt_value_ci("wer", missing, [0.1, 0.2]),
    ):
        assert text == M
    assert p.fmt_interval("wer", None) == p.fmt_interval("wer", [0.1]) == M


def test_a_value_that_rounds_to_zero_has_no_sign():
    assert p.number(-0.00011, 1) == "0.0"
    assert p.number(-0.0, 2) == "0.00"
    assert p.number(-0.04, 1, signed=True) == "0.0"
    assert p.fmt_gap("wer", -0.0000011) == "0.0 pp"  # −0.00011 pp
    # a CI bound keeps the sign and the digits that show it: does the CI hold zero?
    assert p.fmt_ci("wer", -0.0000011, 0.04) == "[-0.0001 pp, +4.0 pp]"
    assert p.fmt_ci("cer", -0.00036787, 0.0469) == "[-0.04 pp, +4.7 pp]"
    assert p.fmt_bound("wer", 0.0) == "0.0 pp" and p.fmt_bound("wer", -1e-12) == "0.0 pp"
    assert p.fmt_bound("wer", 0.0004, gap=False) == "0.04%"
    assert p.number(-0.037, 1, keep_sign=True) == "-0.04"
    assert p.number(-0.037, 1, signed=True, keep_sign=True) == "-0.04"
    assert p.number(0.037, 1, signed=True, keep_sign=True) == "+0.04"
    assert p.number(-0.25, 1, keep_sign=True) == "-0.2" and "-0.0" not in p.fmt_ci("wer", -1e-9, 0)
    assert p.fmt_number(-0.00011, 1) == "0.0" and p.fmt_sig(-0.0) == "0"
    assert p.fmt_percent(-0.0000011) == "0.0%"
    assert p.number(-0.06, 1) == "-0.1" and p.number(0.06, 1, signed=True) == "+0.1"


# -- units from the registry ---------------------------------------------------------------------
def test_units_come_from_the_registry():
    assert display_spec("wer") == ("%", 100.0, 1)
    assert display_spec("grounding_lift") == ("×", 1.0, 2)
    assert display_spec("balanced_accuracy") == ("%", 100.0, 1)  # a class metric: a rate
    assert METRICS["grounding_lift"].is_ratio and not METRICS["wer"].is_ratio
    ratios = {m for m, s in METRICS.items() if s.unit == "×"}
    assert ratios == {"grounding_lift"}
    assert {m for m in METRICS if p.is_ratio(m)} == ratios
    assert p.unit("wer") == "%" and p.unit("wer", gap=True) == "pp"
    # a difference of two lifts is no multiplier: plain, unit "lift difference"
    assert p.unit("grounding_lift") == "×"
    assert p.unit("grounding_lift", gap=True) == "lift difference"
    assert p.scale("em") == 100.0 and p.scale("grounding_lift") == 1.0


def test_metric_values_gaps_and_ratios():
    assert p.fmt_value("wer", 0.1234) == "12.3%"
    assert p.fmt_value("wer", 0.1234, decimals=2) == "12.34%"
    assert p.fmt_value("wer", 0.1234, with_unit=False) == "12.3"
    assert p.fmt_value("grounding_lift", 1.2345) == "1.23×"
    # a rate's gap is in percentage points, never a percentage
    assert p.fmt_gap("wer", -0.1216) == "-12.2 pp"
    assert p.fmt_gap("em", 0.031) == "+3.1 pp"
    assert p.fmt_gap("grounding_lift", -0.123) == "-0.12"
    assert p.fmt_ci("grounding_lift", -0.3, 0.01) == "[-0.30, +0.01]"
    assert p.fmt_ratio(1.5) == "1.50×" and p.fmt_ratio(3.14159, 1) == "3.1×"
    assert p.fmt_percent(0.05) == "5.0%" and p.fmt_percent(0.05, 0, signed=True) == "+5%"


def test_diacritic_values_carry_their_basis():
    class G:
        basis = {"der": 8.0}

    assert p.group_basis(G, "der") == 8.0 and p.group_basis(G, "wer") is None
    assert p.fmt_basis(1234) == "E = 1,234" and p.fmt_basis(None) == p.MISSING
    assert p.with_basis("12.5%", 8) == "12.5% (E = 8)" and p.with_basis("3.0%", None) == "3.0%"


def test_confidence_intervals():
    assert p.fmt_ci("wer", -0.012, 0.04) == "[-1.2 pp, +4.0 pp]"
    assert p.fmt_ci("wer", 0.101, 0.146, gap=False) == "[10.1%, 14.6%]"
    assert p.fmt_ci("wer", -0.012, 0.04, with_unit=False) == "[-1.2, +4.0]"
    assert p.fmt_ci("grounding_lift", 1.1, 1.4, gap=False) == "[1.10×, 1.40×]"
    assert p.fmt_interval("wer", (0.1, 0.2)) == "[10.0%, 20.0%]"
    assert p.fmt_interval("wer", (-0.1, 0.2), gap=True) == "[-10.0 pp, +20.0 pp]"
    assert p.fmt_value_ci("wer", 0.123, [0.1, 0.15]) == "12.3% [10.0, 15.0]"
    assert p.fmt_value_ci("wer", 0.123, [0.1, 0.15], with_unit=False) == "12.3 [10.0, 15.0]"
    assert p.fmt_value_ci("wer", 0.5, None) == "50.0% [–]"


def test_p_values_including_underflow():
    assert p.fmt_p(0.0423) == "0.042"
    assert p.fmt_p(0.0004) == "< 0.001"
    assert p.fmt_p(1.0) == "1.000"
    assert "p " + p.fmt_p(0.0) == "p < 1e-300"  # a regression p that underflowed
    assert p.fmt_p_exact(0.0) == "< 1e-300"
    assert p.fmt_p_exact(1.234e-5) == "1.23e-05"
    # below 1e-300 (the smallest float, 5e-324, too) reads as the floor, with its log10 where
    # the regression kept it (p_log10, from the log survival function)
    assert p.fmt_p(5e-324) == "< 1e-300 (log10 p = -323.3)"
    assert p.fmt_p(0.0, log10=-412.345) == "< 1e-300 (log10 p = -412.3)"
    assert p.fmt_p_exact(0.0, log10=-412.345) == "< 1e-300 (log10 p = -412.3)"
    assert p.fmt_p(1e-300) == "< 0.001" and p.fmt_p(0.0423, log10=-1.3737) == "0.042"
    assert p.p_clause("LR p", 0.0, -412.345) == "LR p < 1e-300 (log10 p = -412.3)"
    assert p.p_clause("LR p", 0.0423) == "LR p = 0.042"
    assert p.p_clause("p", 0.0004) == "p = 4.0e-04"
    assert p.p_clause("p", None) == "p = n/a"
    assert p.p_log10(0.0) is None and p.p_log10(0.01) == pytest.approx(-2.0)


def test_counts_and_plurals():
    assert p.count(1, "item") == "1 item"
    assert p.count(2, "item") == "2 items"
    assert p.count(0, "word") == "0 words"
    assert p.count(1234, "word") == "1,234 words"
    assert p.count(1, "speaker") == "1 speaker"
    assert p.count(3, "child", "children") == "3 children"
    assert p.count(1.0, "item") == "1 item"
    assert p.count(None, "speaker") == p.count(math.nan, "speaker") == "– speakers"
    assert p.plural(1, "item") == "item" and p.plural(5, "item") == "items"


# -- labels -------------------------------------------------------------------------------------
def test_short_group_and_metric_labels():
    assert p.short_group("accent=en-gb × gender=male") == "en-gb × male"
    assert p.short_group("north") == "north"
    assert p.short_group("a=x=y") == "x=y"  # only the first '=' splits
    assert p.metric_short("wer") == "WER" and p.metric_short("grounding_lift") == "Grounding lift"
    assert p.metric_short("hallucination_rate") == "Halluc." and p.metric_short("x_y") == "x y"
    assert p.metric_label("wer") == METRICS["wer"].label
    assert p.metric_label("balanced_accuracy") == "Balanced accuracy"
    assert p.higher_is_better("em") and p.higher_is_better("macro_recall")
    assert not p.higher_is_better("wer")


# -- group rows ---------------------------------------------------------------------------------
def _g(group, values, ci=None, excluded=False):
    return GroupInfo(group, 10, 2, excluded, None, values, ci or {})


def test_group_rows_in_display_units_with_the_verdicts():
    groups = [
        _g("accent=us", {"wer": 0.2}, {"wer": [0.18, 0.22]}),
        _g("accent=scot", {"wer": 0.3127}),
        _g("accent=solo", {"wer": 0.5}, excluded=True),
        _g("accent=none", {"wer": math.nan}),
    ]
    rows = p.group_rows(groups, "wer", "accent=us", {"accent=scot": "disparity_detected"})
    assert [r.group for r in rows] == ["accent=us", "accent=scot", "accent=none"]
    us, scot, none = rows
    assert us.label == "us" and us.verdict == "reference"
    assert us.value == pytest.approx(20.0) and (us.low, us.high) == pytest.approx((18.0, 22.0))
    assert us.text == "20.0%" and us.text_ci == "20.0% [18.0, 22.0]"
    assert scot.verdict == "disparity_detected" and scot.low is None and scot.high is None
    assert scot.text_ci == "31.3% [–]"
    assert none.value is None and none.text == M and none.verdict == ""
    lift = p.group_rows([_g("a", {"grounding_lift": 1.25})], "grounding_lift", "a")
    assert lift[0].value == 1.25 and lift[0].text == "1.25×"


# -- timeline points -----------------------------------------------------------------------------
def test_timeline_points():
    from fairdesk.incremental.result_parts import Timeline, TimelineEvent

    def event(i, shown, position, added, revoked):
        return TimelineEvent(i, shown - 0.5, shown, False, 0, 0, position, added, revoked)

    tl = Timeline(
        "concatenation",
        "displayed",
        1.0,
        0.5,
        events=(
            event(0, 0.5, 0, (("a", 0.0, None), ("b", 0.1, None)), ()),
            event(1, 1.0, 1, (("c", 0.2, None),), (("b", 0.1, None),)),
        ),
    )
    adds, revs = p.timeline_points(tl)
    assert adds == [(0.5, 0, "a"), (0.5, 1, "b"), (1.0, 1, "c")]
    assert revs == [(1.0, 1, "b")]
    assert p.timeline_points(Timeline("concatenation")) == ([], [])


def test_one_timeline_points_for_the_gui_and_the_report():
    pytest.importorskip("PySide6")
    from fairdesk.gui.incremental import incremental_panel
    from fairdesk.reports import incremental

    assert incremental_panel.timeline_points is incremental.timeline_points is p.timeline_points


# -- the radar ----------------------------------------------------------------------------------
def test_radar_scale_puts_the_reference_on_the_unit_circle():
    values = {
        "ref": {"wer": 0.20, "cer": 0.10, "em": 0.5},
        "a": {"wer": 0.30, "cer": 0.05, "em": 0.25},
        "b": {"wer": 0.20, "cer": None, "em": 1.0},
    }
    s = p.radar_scale(values, "ref", ["wer", "cer", "em"])
    assert s.groups == ("ref", "a", "b")
    assert s.radius["ref"] == (1.0, 1.0, 1.0)
    assert s.radius["a"] == pytest.approx((1.5, 0.5, 0.5))
    assert s.radius["b"][0] == pytest.approx(1.0) and math.isnan(s.radius["b"][1])
    assert s.radius["b"][2] == pytest.approx(2.0)
    assert s.divisor == {"wer": 0.20, "cer": 0.10, "em": 0.5}
    assert s.by_max == () and s.outer == 2.0


def test_radar_scale_where_the_reference_is_zero_uses_the_largest_group():
    values = {
        "ref": {"wer": 0.0, "ins_rate": 0.0, "cer": 0.1},
        "a": {"wer": 0.4, "ins_rate": 0.0, "cer": 0.35},
        "b": {"wer": 0.1, "ins_rate": 0.0, "cer": 0.1},
    }
    s = p.radar_scale(values, "ref", ["wer", "ins_rate", "cer"])
    assert s.by_max == ("wer",) and s.empty == ("ins_rate",)
    assert s.divisor["wer"] == 0.4  # the largest group value
    assert s.radius["a"] == pytest.approx((1.0, 0.0, 3.5))
    assert s.radius["b"] == pytest.approx((0.25, 0.0, 1.0))
    assert s.radius["ref"] == pytest.approx((0.0, 0.0, 1.0))
    assert s.outer == 3.5


def test_radar_axes():
    vals = {
        "r": {"wer": 0.1, "cer": 0.0, "sub_rate": 0.05, "del_rate": 0.0, "wer_unflagged": 0.1},
        "g": {"wer": 0.2, "cer": 0.0, "sub_rate": 0.1, "del_rate": 0.02, "ins_rate": 0.01},
    }
    tested = ["wer", "cer", "wer_unflagged"]
    axes, zero = p.radar_axes(vals, tested, ["sub_rate", "del_rate", "ins_rate"])
    # CER is 0 everywhere: left out; no flagged items: WER unflagged is the WER itself;
    # descriptive rates fill up to three axes
    assert axes == ["wer", "sub_rate", "del_rate"] and zero == ["cer"]
    axes, _ = p.radar_axes(vals, tested, ["sub_rate"], n_flagged=2)
    assert axes == ["wer", "wer_unflagged", "sub_rate"]
    vals["g"]["hallucination_rate"] = 0.05  # issue 18: always an axis when the run has it
    axes, _ = p.radar_axes(vals, ["wer"], [])
    assert axes == ["wer", "hallucination_rate"]
    many = {"r": {f"m{i}": 1.0 for i in range(12)}}
    assert len(p.radar_axes(many, [f"m{i}" for i in range(12)])[0]) == p.MAX_AXES


def _payload():
    groups = [
        {"group": "accent=us", "n_items": 20, "values": {"wer": 0.0, "cer": 0.05, "em": 0.6}},
        {"group": "accent=scot", "n_items": 20, "values": {"wer": 0.2, "cer": 0.1, "em": 0.4}},
        {"group": "accent=ng", "n_items": 20, "values": {"wer": 0.1, "cer": 0.2, "em": 0.5}},
        {"group": "accent=x", "n_items": 2, "excluded": True, "values": {"wer": 0.9}},
    ]
    for g in groups:
        g["values"]["sub_rate"] = g["values"]["wer"] / 2
        g["values"]["ter"] = 0.0
    return {
        "reference": "accent=us",
        "groups": groups,
        "comparisons": [],
        "tested_metrics": ["wer", "cer", "ter"],
        "descriptive_metrics": ["sub_rate"],
    }


def test_the_gui_and_the_report_draw_the_same_radar():
    pytest.importorskip("PySide6")
    pytest.importorskip("matplotlib")
    from fairdesk.gui.results.radar import radar_inputs
    from fairdesk.reports.charts import radar_chart, radar_metrics, radar_scale_of

    payload = _payload()
    run = AuditRun.from_json(payload)
    vals, ref, gui_axes = radar_inputs(run)
    assert gui_axes == radar_metrics(run) == ["wer", "cer", "sub_rate"]
    report = radar_scale_of(run)
    gui = p.radar(vals, ref, payload["tested_metrics"], payload["descriptive_metrics"])
    assert gui == report
    assert report.by_max == ("wer", "sub_rate") and report.empty == ("ter",)
    assert report.radius["accent=scot"] == pytest.approx((1.0, 2.0, 1.0))
    chart = radar_chart(run)
    ticks = [t.get_text() for t in chart.figure.axes[0].get_xticklabels()]
    assert ticks == ["WER *", "CER", "Sub. rate *"]
    assert "Left out because every group is at 0: TER." in chart.caption


def test_the_module_is_pure():
    import subprocess
    import sys

    code = (
        "import sys, fairdesk.presentation\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'matplotlib', "
        "'pyqtgraph')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_gui_and_the_report_value_charts_read_the_same_rows():
    pytest.importorskip("PySide6")
    from fairdesk.gui.results import charts as gui_charts
    from fairdesk.reports import charts as report_charts

    payload = _payload()
    payload["groups"][1]["ci"] = {"wer": [0.15, 0.25]}
    payload["comparisons"] = [{"metric": "wer", "group": "accent=scot", "verdict": "x"}]
    rows = report_charts.group_rows(AuditRun.from_json(payload), "wer")
    assert gui_charts.group_rows is report_charts.group_rows
    assert [(r.label, r.verdict) for r in rows] == [
        ("us", "reference"),
        ("scot", "x"),
        ("ng", ""),
    ]
    assert (rows[1].value, rows[1].low, rows[1].high) == pytest.approx((20.0, 15.0, 25.0))


def test_stream_values_read_the_same_in_the_gui_tab_and_the_report():
    from fairdesk.presentation import fmt_stream_value

    assert fmt_stream_value("wer", 0.125) == "12.5%"
    assert fmt_stream_value("eo", 0.12345) == "0.123"
    assert fmt_stream_value("spr", float("inf")) == "inf"
    assert fmt_stream_value("rps", None) == "–"


def test_text_sources_in_words_without_zero_counts():
    assert p.text_sources({"annotation": 0, "import": 460}) == (
        "460 items with the imported reference"
    )
    assert p.text_sources({"annotation": 1, "import": 459}) == (
        "459 items with the imported reference; 1 item with a reference annotated in fairdesk"
    )
    assert p.text_sources({}) == p.text_sources(None) == "the dataset's reference transcripts"


def test_one_plural_rule():
    from fairdesk.core import plurals

    assert p.count is not plurals.count and p.plural is plurals.plural
    assert [p.count(n, "item") for n in (0, 1, 2, 1234)] == [
        "0 items",
        "1 item",
        "2 items",
        "1,234 items",
    ]
    assert p.count(1, "analysis", "analyses") == "1 analysis"
    assert p.count(3, "analysis", "analyses") == "3 analyses"
    assert p.count(None, "word") == f"{M} words" == plurals.count(math.nan, "word")


def test_worse_and_better_only_for_found_gaps():
    assert p.direction_word("disparity_detected", "worse", 0.1) == "▼ worse"
    assert p.direction_word("significant_but_small", "better", -0.02) == "▲ better"
    assert p.direction_word("inconclusive_underpowered", "worse", 0.044) == "▲ higher"
    assert p.direction_word("no_disparity_detected", "better", -0.01) == "▼ lower"
    assert p.direction_word("no_variation", "equal", 0.0) == ""
    assert p.direction_word("inconclusive_underpowered", "worse", None) == ""


def test_a_gaps_size_is_unsigned_in_the_gaps_unit():
    from fairdesk.presentation import MISSING, fmt_gap, fmt_size

    assert fmt_size("wer", 0.165) == "16.5 pp" == fmt_size("wer", -0.165)
    assert fmt_size("wer", 0.165, with_unit=False) == "16.5"
    assert fmt_size("grounding_lift", 0.31) == fmt_gap("grounding_lift", 0.31).lstrip("+")
    assert fmt_size("wer", None) == MISSING


def test_an_axis_below_one_percent_in_every_group_is_left_off_and_named():
    # issue 45 item 5: one flagged item in 200 is 0.5% in one group, 0 in the others
    vals = {
        "adult": {"wer": 0.10, "cer": 0.05, "sub_rate": 0.04, "hallucination_rate": 0.0},
        "child": {"wer": 0.20, "cer": 0.08, "sub_rate": 0.09, "hallucination_rate": 0.005},
        "teen": {"wer": 0.15, "cer": 0.06, "sub_rate": 0.07, "hallucination_rate": 0.0},
    }
    s = p.radar(vals, "adult", ["wer", "cer"], ["sub_rate"], n_flagged=1)
    assert s.metrics == ("wer", "cer", "sub_rate") and s.small == ("hallucination_rate",)
    note = p.small_note(s, p.metric_short)
    assert note.startswith(f"Left off: {p.metric_short('hallucination_rate')}, ")
    assert "below 1%" in note
    vals["child"]["hallucination_rate"] = 0.01  # at 1% it is an axis again
    s = p.radar(vals, "adult", ["wer", "cer"], ["sub_rate"], n_flagged=2)
    assert "hallucination_rate" in s.metrics and s.small == () and p.small_note(s, str) == ""


def test_one_ci_of_an_estimate_for_odds_ratios_rate_ratios_and_coefficients():
    from fairdesk.presentation import fmt_estimate_ci, fmt_ratio

    assert fmt_ratio(3.2149) == "3.21×"
    assert fmt_estimate_ci(0.8123, 1.4167) == "[0.81, 1.42]"
    assert fmt_estimate_ci(0.0037, 2.0) == "[0.004, 2.00]"  # a bound near zero keeps a digit
    assert fmt_estimate_ci(-0.01234, 0.5, 4) == "[-0.0123, 0.5000]"
    assert fmt_estimate_ci(None, 1.0) == fmt_estimate_ci(0.5, float("nan")) == "–"


def test_incremental_rows_and_numbers_from_one_table():
    from fairdesk.presentation.incremental import (
        fmt_stream_ci,
        fmt_stream_gap,
        fmt_stream_value,
        row_help,
        row_name,
    )
    from fairdesk.presentation.labels import INCREMENTAL_ROW_HELP, INCREMENTAL_ROW_NAMES

    assert row_name("wer") == "WER"
    assert row_name("lat_seed001") == INCREMENTAL_ROW_NAMES["lat_seed001"]
    assert row_help("eo") == INCREMENTAL_ROW_HELP["eo"] and row_help("unknown") == ""
    assert row_name("unknown") == "unknown"
    # METHODS' own example: "WER 17.0%, EO 0.30"
    assert fmt_stream_value("wer", 0.17) == "17.0%" and fmt_stream_value("eo", 0.3) == "0.300"
    assert fmt_stream_gap("wer", 0.031) == "+3.1 pp" and fmt_stream_gap("eo", -0.05) == "-0.050"
    assert fmt_stream_ci("wer", -0.012, 0.04) == "[-1.2 pp, +4.0 pp]"
    assert fmt_stream_ci("rtf", -0.01, 0.00002) == "[-0.010, +0.00002]"
    assert fmt_stream_ci("rtf", None, 1.0) == "–"


def test_every_view_of_an_incremental_run_names_its_rows_from_presentation():
    import fairdesk.cli.incremental as cli
    import fairdesk.reports.incremental as report

    for mod in (cli, report):
        assert not hasattr(mod, "ROW_NAMES") and not hasattr(mod, "_ROW_NAMES")
    # no second table: the only dict in fairdesk keyed by the rows' ids is presentation.labels'
    import ast
    from pathlib import Path

    from fairdesk.presentation.labels import INCREMENTAL_ROW_NAMES

    pkg = Path(cli.__file__).resolve().parents[1]
    rows = set(INCREMENTAL_ROW_NAMES)
    tables = sorted(
        f"{py.relative_to(pkg).as_posix()}:{node.lineno}"
        for py in pkg.rglob("*.py")
        for node in ast.walk(ast.parse(py.read_text(encoding="utf-8")))
        if isinstance(node, ast.Dict)
        and len({k.value for k in node.keys if isinstance(k, ast.Constant)} & rows) >= 3
    )
    assert [t.split(":")[0] for t in tables] == ["presentation/labels.py"] * 2, tables
