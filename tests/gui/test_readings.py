"""Seed 002's readings: the radar's inputs (its scaling is tested in
tests/test_presentation.py), each group's value with its CI, grounding lift as a ratio,
neutral cards for untested verdicts, and every user-supplied string rendered as plain
text."""

from __future__ import annotations

import copy
import html

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from fairdesk.gui.results.radar import radar_inputs
from fairdesk.jobs.result import AuditRun
from fairdesk.presentation.estimability_words import reason_text

HOSTILE = "<h1>x</h1><img src=/etc/passwd>"


@pytest.fixture
def payload(ctx, mini):
    """The mini run's stored payload with the statistics issue's new fields: per-group CIs,
    an overall summary with its CI, grounding lift, and the two untested verdicts."""
    from fairdesk.core.runs import run_payload

    r = copy.deepcopy(run_payload(ctx.project, mini.run_id))
    for g in r["groups"]:
        v = g["values"]["wer"]
        g["ci"] = {"wer": [max(0.0, v - 0.04), v + 0.05]}
        g["values"]["grounding_lift"] = 1.1087 if g["group"] == "north" else 0.93
        g["ci"]["grounding_lift"] = [
            g["values"]["grounding_lift"] - 0.1,
            g["values"]["grounding_lift"] + 0.1,
        ]
    r["summary"].setdefault("wer", {})["overall"] = {"value": 0.1, "ci": [0.07, 0.13]}
    r["tested_metrics"] = list(r["tested_metrics"]) + ["grounding_lift"]
    base = next(c for c in r["comparisons"] if c["metric"] == "wer")
    r["comparisons"].append(
        {
            **base,
            "metric": "grounding_lift",
            "value": 0.93,
            "reference_value": 1.1087,
            "gap": -0.1787,
            "ci_low": -0.3,
            "ci_high": -0.05,
            "verdict": "disparity_detected",
            "reading": "south's grounding lift is lower.",
        }
    )
    others = [c for c in r["comparisons"] if c["metric"] not in ("wer", "grounding_lift")]
    others[0]["verdict"] = "not_estimable"
    others[0]["reason"] = "fewer than 2 speakers with a value in south"
    if len(others) > 1:
        others[1]["verdict"] = "no_variation"
        others[1]["reason"] = "every item has the same value"
    return r


def _results(qtbot, ctx, width=1300):
    from fairdesk.gui.results.results_panel import ResultsPanel

    w = ResultsPanel(ctx)
    qtbot.addWidget(w)
    w.resize(width, 900)
    w.show()
    return w


def test_group_values_have_their_ci_and_old_runs_none(qtbot, ctx, payload):
    import pyqtgraph as pg

    w = _results(qtbot, ctx)
    w.show_result(AuditRun.from_json(payload))
    assert w.values.has_ci
    bars = [i for i in w.values.plots["wer"].items if isinstance(i, pg.ErrorBarItem)]
    assert len(bars) == 1
    north = next(g for g in payload["groups"] if g["group"] == "north")
    # the bar spans the group's own CI around its value (percent), not a gap
    x, top = bars[0].opts["x"], bars[0].opts["top"]
    assert list(x) == [0.0, 1.0]
    assert top[0] == pytest.approx((north["ci"]["wer"][1] - north["values"]["wer"]) * 100)
    old = copy.deepcopy(payload)
    for g in old["groups"]:
        g.pop("ci")
    w.show_result(
        AuditRun.from_json(old)
    )  # a run stored before per-group CIs: points, no error bar, no error
    assert not w.values.has_ci and "wer" in w.values.plots


def test_grounding_lift_reads_as_a_ratio_and_its_card_is_in_view(qtbot, ctx, payload):
    w = _results(qtbot, ctx, width=1280)
    w.show_result(AuditRun.from_json(payload))
    qtbot.wait(50)
    card = next(c for c in w.cards.cards if c.comparison.metric == "grounding_lift")
    texts = " ".join(lab.text() for lab in card.labels)
    assert "0.93× vs 1.11×" in texts and "<b>-0.18</b>" in texts and "-0.18×" not in texts
    assert "%" not in texts and "pp" not in texts and "110.87" not in texts
    row = [w.groups.item(0, j).text() for j in range(w.groups.columnCount())]
    assert "1.11×" in row
    # the reading describes the most severe card: it is selected and scrolled into view
    w.cards.show_reading(card.comparison)
    qtbot.wait(50)
    vp = w.cards.scroll.viewport()
    top_left = card.mapTo(vp, card.rect().topLeft())
    assert 0 <= top_left.y() and top_left.y() + card.height() <= vp.height() + 2


def test_untested_verdicts_get_neutral_cards_with_their_reason(qtbot, ctx, payload):
    from fairdesk.gui.widgets.theme import verdict_style

    w = _results(qtbot, ctx)
    w.show_result(AuditRun.from_json(payload))
    green = verdict_style("no_disparity_detected")[1].name()
    seen = set()
    for card in w.cards.cards:
        v = card.comparison.verdict
        if v in ("not_estimable", "no_variation"):
            seen.add(v)
            assert green not in card.styleSheet()
            text = " ".join(lab.text() for lab in card.labels)
            assert (reason_text(card.comparison.reason) or card.reading_text).split()[0] in text
            assert card.verdict_label in ("Not estimable", "No variation")
    assert "not_estimable" in seen


def test_cards_keep_p_adj_readable_at_1280(qtbot, ctx, payload):
    w = _results(qtbot, ctx, width=1280)
    w.show_result(AuditRun.from_json(payload))
    qtbot.wait(50)
    for card in w.cards.cards:
        lab = card.p_adj_label
        if lab is None:
            continue
        assert lab.isVisible()
        assert lab.heightForWidth(lab.width()) <= lab.height() + 1  # nothing cut off


def test_user_strings_render_as_plain_text(qtbot, ctx, payload):
    r = copy.deepcopy(payload)
    old = {g["group"] for g in r["groups"]}
    rename = {name: f"accent={HOSTILE}{i}" for i, name in enumerate(sorted(old))}
    for g in r["groups"]:
        g["group"] = rename[g["group"]]
    for c in r["comparisons"]:
        c["group"] = rename.get(c["group"], c["group"])
        c["reference"] = rename.get(c["reference"], c["reference"])
        c["reading"] = f"{c['group']} is worse"
    r["reference"] = rename[r["reference"]]
    r["dataset"] = HOSTILE
    r["notes"] = [f"speaker {HOSTILE} has one item"]
    w = _results(qtbot, ctx)
    w.show_result(AuditRun.from_json(r))
    head = w.header.text()
    assert "<img" not in head and "<h1>" not in head
    assert html.escape(HOSTILE) in head
    heads = [lab for lab in w.cards.grid_host.findChildren(QLabel) if HOSTILE in lab.text()]
    assert heads and all(lab.textFormat() == Qt.PlainText for lab in heads)
    reading = w.cards.reading.text()
    assert "<img" not in reading and html.escape(HOSTILE) in reading
    for card in w.cards.cards:
        assert "<img" not in card.toolTip()
    assert w.radar.scale is not None and "<img" not in w.radar.caption.text()
    title = w.values.plots["wer"].titleLabel.text
    assert "<img" not in title


def test_record_prompt_and_import_messages_are_plain_text(qtbot, tmp_path):
    from fairdesk.gui.context import Context
    from fairdesk.gui.record.record_panel import RecordPanel

    c = Context(tmp_path / "proj")
    try:
        f = tmp_path / "hostile.txt"
        f.write_text(f"{HOSTILE}\n", encoding="utf-8")
        w = RecordPanel(c)
        qtbot.addWidget(w)
        w.open_list(str(f))
        assert w.prompt_label.textFormat() == Qt.PlainText
        assert w.prompt_label.text() == HOSTILE  # shown literally
        assert w.counter.textFormat() == Qt.PlainText and w.list_note.textFormat() == Qt.PlainText
        w.speaker_id.setText(HOSTILE)
        w.form.set_expanded(False)
        assert HOSTILE[:20] in w.form.toggle.text()  # a tool button's text is never HTML
        w.shutdown()
    finally:
        c.close(5000)


def test_radar_inputs_use_tested_metrics_and_descriptive_when_few(payload):
    vals, ref, metrics = radar_inputs(AuditRun.from_json(payload))
    assert ref == "north" and set(vals) == {"north", "south"}
    assert metrics[: len(payload["tested_metrics"])] == [
        m for m in payload["tested_metrics"] if any(v.get(m) is not None for v in vals.values())
    ]
    assert len(metrics) >= 3
