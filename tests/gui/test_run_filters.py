"""A run's filters and non-default settings are named wherever the run is (issue 30, 1):
the Results header, the run lists, ``fairdesk runs`` / ``show``; and the Audit panel makes
a filtered run with the request the command line builds."""

from __future__ import annotations

import html
import re

import pytest

from fairdesk.cli import main
from fairdesk.presentation.runs import short_model
from tests.gui.conftest import ACCENTS, SENTENCES, SPEAKERS, MiniProject, build_data, small_settings


@pytest.fixture(scope="module")
def filtered(tmp_path_factory) -> MiniProject:
    """A project of its own (the session's mini project keeps its one run) with one run
    filtered to the female speakers, minimums lowered and small-cluster scaling off."""
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project
    from fairdesk.jobs.audit import AuditRequest, run_audit

    base = tmp_path_factory.mktemp("filtered")
    manifest, preds = build_data(base / "data")
    project = Project(base / "project")
    rep = import_dataset(project, "mini", manifest, fmt="manifest")
    assert rep.imported == len(ACCENTS) * SPEAKERS * len(SENTENCES)
    out = run_audit(
        project,
        AuditRequest(
            dataset="mini",
            model=f"predictions:{preds}",
            by=("accent",),
            filters=(("gender", ("female",)),),
            reference="north",
            settings=small_settings(small_cluster_scaling=False),
        ),
    )
    project.close()
    return MiniProject(base / "project", base / "data", preds, out.run_id, rep.imported)


@pytest.fixture
def fctx(qtbot, filtered):
    from fairdesk.gui.context import Context

    c = Context(filtered.folder)
    yield c
    c.close(10000)


#: What the filtered run's name says beyond its grouping (small_settings: B 200, 5 items,
#: 2 speakers; scaling off).
CONDITIONS = (
    "only gender = female",
    "200 resamples",
    "min. 5 items per group",
    "min. 2 speakers per group",
    "small-cluster scaling off",
)


def _plain(rich: str) -> str:
    from PySide6.QtGui import QTextDocument

    doc = QTextDocument()
    doc.setHtml(rich)
    return doc.toPlainText()


def test_the_results_header_and_run_lists_name_the_filter(qtbot, fctx, filtered):
    from fairdesk.gui.audit.audit_panel import AuditPanel
    from fairdesk.gui.audit.run_history import HOW
    from fairdesk.gui.results.results_panel import ResultsPanel

    results, audit = ResultsPanel(fctx), AuditPanel(fctx)
    for w in (results, audit):
        qtbot.addWidget(w)
    fctx.select_run(filtered.run_id)
    head = _plain(results.header.text())
    expected = (
        f"predictions:{filtered.predictions} on mini · by accent · reference north · 20 items · "
        + " · ".join(CONDITIONS)
    )
    assert head.startswith(expected + " · design ")
    label = results.runs.itemText(results.runs.findData(filtered.run_id))
    assert " · by accent · " + " · ".join(CONDITIONS) + " · " in label
    (row,) = [
        i
        for i in range(audit.history.rowCount())
        if audit.history.item(i, 0).text() == str(filtered.run_id)
    ]
    how = audit.history.item(row, HOW).text()
    assert how.endswith(" on mini · by accent · " + " · ".join(CONDITIONS)), how


def test_console_names_the_run_as_the_gui_does(qtbot, fctx, filtered, capsys):
    from fairdesk.gui.results.results_panel import ResultsPanel

    results = ResultsPanel(fctx)
    qtbot.addWidget(results)
    fctx.select_run(filtered.run_id)
    head = _plain(results.header.text())
    label = results.runs.itemText(results.runs.findData(filtered.run_id))

    capsys.readouterr()
    assert main(["show", "--project", str(filtered.folder), "--run", str(filtered.run_id)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    prefix = f"run {filtered.run_id}: "
    assert first.startswith(prefix)
    assert head.startswith(first[len(prefix) :] + " · design ")

    assert main(["runs", "--project", str(filtered.folder)]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    m = re.fullmatch(r"run (\d+) +done +(\d{4}-\d\d-\d\d \d\d:\d\d)  (.*)", line)
    assert m and int(m[1]) == filtered.run_id
    model = short_model(f"predictions:{filtered.predictions}")
    assert m[3] == f"{model} on mini · by accent · " + " · ".join(CONDITIONS)
    assert label == f"run {filtered.run_id} · {m[3]} · {m[2]}"  # the run list's label


def test_runs_json_lists_the_request(filtered, tmp_path):
    import json

    out = tmp_path / "runs.json"
    assert main(["runs", "--project", str(filtered.folder), "--json", str(out)]) == 0
    (r,) = json.loads(out.read_text(encoding="utf-8"))
    assert r["run_id"] == filtered.run_id and r["by"] == ["accent"]
    assert r["filters"] == {"gender": ["female"]} and r["sample"] is None
    assert r["conditions"] == list(CONDITIONS)


def test_the_audit_panel_filter_reaches_the_request_and_the_run(qtbot, fctx, filtered):
    from fairdesk.cli.common import parse_filters
    from fairdesk.gui.audit.audit_panel import AuditPanel
    from fairdesk.gui.results.results_panel import ResultsPanel
    from fairdesk.jobs.request import request_filters

    audit, results = AuditPanel(fctx), ResultsPanel(fctx)
    for w in (audit, results):
        qtbot.addWidget(w)
    audit.set_model(f"predictions:{filtered.predictions}")
    audit.by1.setCurrentText("accent")
    audit.n_boot.setValue(200)
    audit.min_items.setValue(5)
    audit.min_speakers.setValue(2)
    assert audit.request().filters == ()
    row = audit.filters.add_row()
    # the values are the dataset's, with their item counts
    row.column.setCurrentText("gender")
    assert [row.value.itemData(i) for i in range(row.value.count())] == ["female", "male"]
    assert row.value.itemText(0) == "female (20 items)"
    assert audit.filters.add_row("gender", "female") is not None
    audit.filters.rows[0].set("gender", "male")
    audit.filters.add_row("intent", "PlayMusic")
    req = audit.request()
    cli = request_filters(
        parse_filters(["gender=male", "gender=female", "intent=PlayMusic"]), ("accent",)
    )
    assert req.filters == cli == (("gender", ("male", "female")), ("intent", ("PlayMusic",)))
    assert audit.filters.add_row("gender", "nobody") is None  # not a value of the dataset

    # a filter on the grouping column is refused as the command line refuses it
    audit.filters.add_row("accent", "north")
    with pytest.raises(ValueError, match="can't be both a filter and a grouping key"):
        audit.request()
    audit.start()
    assert "['accent'] can't be both a filter and a grouping key" in html.unescape(
        audit.stage.text()
    )
    for r in list(audit.filters.rows):
        r.remove.click()
    assert not audit.filters.rows and audit.request().filters == ()

    audit.filters.add_row("gender", "male")
    state = audit.save_state()
    assert state["filters"] == [["gender", "male"]]
    with qtbot.waitSignal(audit.run_done, timeout=60000) as blocker:
        audit.start()
    assert fctx.jobs.wait(5000)
    run = results.result
    assert blocker.args[0] == results.run_id
    assert {k: list(v) for k, v in run.run_settings.filters.items()} == {"gender": ["male"]}
    assert sum(g.n_items for g in run.groups) == 20  # the 4 male speakers × 5 sentences
    assert "only gender = male" in _plain(results.header.text())

    # the remembered filters come back (a restarted window reproduces the run)
    again = AuditPanel(fctx)
    qtbot.addWidget(again)
    again.restore_state(state)
    assert again.request().filters == (("gender", ("male",)),)


def test_the_report_header_names_the_run_as_the_console_does(filtered, capsys, tmp_path):
    out = tmp_path / "r.html"
    args = ["--project", str(filtered.folder), "--run", str(filtered.run_id)]
    assert main(["report", *args, "--html", str(out)]) == 0
    capsys.readouterr()
    assert main(["show", *args]) == 0
    name = capsys.readouterr().out.splitlines()[0].split(": ", 1)[1]
    assert "only gender = female" in name
    assert f'<p class="run-name"><b>{html.escape(name)}</b></p>' in out.read_text("utf-8")
