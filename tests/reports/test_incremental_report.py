"""The report of a stored incremental run: parses strictly, self-contained, the models ×
policies table equals the stored payload, the timeline SVG has one marker per stored add and
revoke, and user text (a ``<script>`` item id) is escaped."""

from __future__ import annotations

import argparse
import csv
import math

import pytest

from fairdesk.incremental.store import load_incremental
from tests.cli.test_incremental import SENTENCE, PrefixBackend, StreamingEngine
from tests.conftest import write_wav
from tests.reports.conftest import EVIL
from tests.reports.test_html import external_references, parse


@pytest.fixture(scope="module")
def stored(tmp_path_factory, request):
    """A project whose first item's id is a ``<script>`` tag, run through
    ``fairdesk incremental`` with two fake engines (one natively streaming), grouped by
    accent and stored."""
    import fairdesk.models
    from fairdesk.cli import incremental as cli_incremental
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project

    tmp = tmp_path_factory.mktemp("increp")
    root = tmp / "data"
    rows = []
    for accent, secs in (("a", 1.8), ("b", 2.6)):
        for s in range(3):
            for c in range(2):
                rel = f"{accent}/{s}_{c}.wav"
                write_wav(root / rel, seconds=secs, freq=200 + 10 * c + 3 * s)
                item = EVIL if (accent, s, c) == ("b", 0, 0) else f"{accent}-{s}-{c}"
                rows.append(
                    {
                        "id": item,
                        "path": rel,
                        "text": " ".join(SENTENCE),
                        "speaker_id": f"{accent}{s}",
                        "content_id": f"c{c}",
                        "accent": accent,
                    }
                )
    with open(root / "m.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    project = Project(tmp / "proj")
    assert import_dataset(project, "d", root / "m.csv").imported == len(rows)
    made = {"whisper-fake": PrefixBackend, "stream-fake": StreamingEngine}
    mp = pytest.MonkeyPatch()
    mp.setattr(fairdesk.models, "get_backend", lambda m, *a, **k: made[m]())
    try:
        parser = argparse.ArgumentParser()
        cli_incremental.add_command(parser.add_subparsers())
        a = parser.parse_args(
            [
                "incremental",
                "--project",
                str(project.folder),
                "--dataset",
                "d",
                "--model",
                "whisper-fake",
                "--model",
                "stream-fake",
                "--policy",
                "seed001",
                "--policy",
                "local-agreement",
                "--by",
                "accent",
                "--min-items",
                "3",
                "--min-speakers",
                "2",
                "--n-bootstrap",
                "200",
                "--quiet",
            ]
        )
        assert a.func(a) == 0
    finally:
        mp.undo()
    run_id = project.conn.execute("SELECT max(id) FROM runs").fetchone()[0]
    return project, int(run_id)


@pytest.fixture(scope="module")
def report(stored, tmp_path_factory):
    from fairdesk.reports.html import write_report

    project, run_id = stored
    out = tmp_path_factory.mktemp("increp_out")
    files = write_report(project, run_id, out / "inc.html", worst=4, figures=out / "fig")
    return files, files.html.read_text(encoding="utf-8")


def test_parses_strictly_and_is_self_contained(report):
    _files, text = report
    tree = parse(text)
    assert external_references(text, tree) == []
    assert tree.find(".//script") is None
    assert text.count("<svg") == 4


def test_table_values_equal_the_stored_payload(report, stored):
    project, run_id = stored
    p = load_incremental(project, run_id)
    tree = parse(report[1])
    table = tree.find(".//table[@class='models']")
    trs = list(table.iter("tr"))
    engines, heads = trs[0], trs[1]
    rows = {tr.get("data-metric"): tr for tr in trs if tr.get("data-metric")}
    t = p.table
    assert list(rows) == list(t.rows)
    assert list(t.rows) == ["wer", "lat_seed001", "lat_pooled", "eo", "rps", "spr", "rtf"]
    n_cols = len(t.columns)
    # per engine: sliding literal, snapped, Con., local agreement displayed and committed;
    # the streaming engine's own partials first
    assert n_cols == 11 and len(heads.findall("th")) == n_cols
    assert [th.text for th in heads.findall("th")][:3] == [
        "sliding (literal)",
        "sliding (snapped)",
        "Con.",
    ]
    for m, tr in rows.items():
        tds = tr.findall("td")
        assert len(tds) == n_cols
        for td, v in zip(tds, t.values[m]):
            if not math.isfinite(v):
                assert td.get("data-value") == ""
                assert td.text == ("–" if math.isnan(v) else "inf")
                continue
            assert float(td.get("data-value")) == v  # exact, not rounded
            assert td.text == (f"{v:.1%}" if m == "wer" else f"{v:.3f}")
    # SPR without revokes is inf; the native engine's own partials have revokes
    summ = {r.key: r for r in p.summary}
    for td, c in zip(rows["spr"].findall("td"), t.columns):
        revokes = summ[c.key].totals.n_revokes
        assert (td.text == "inf") == (revokes == 0)
    # an engine header spans its columns
    spans = [(th.text, int(th.get("colspan"))) for th in engines.findall("th")[1:]]
    assert spans == [("whisper-fake", 5), ("stream-fake", 6)]


SVG = "{http://www.w3.org/2000/svg}"


def _group(tree, gid):
    return [g for g in tree.iter(f"{SVG}g") if g.get("id") == gid]


def test_timeline_markers_match_the_stored_events(report, stored):
    from fairdesk.reports.incremental import worst_timelines

    project, run_id = stored
    p = load_incremental(project, run_id)
    shown = worst_timelines(p, 4)
    assert len(shown) == 4
    eos = []
    for tl in p.timelines:
        a = sum(len(e.added) for e in tl.events)
        r = sum(len(e.revoked) for e in tl.events)
        eos.append(r / (a + r) if a + r else 0.0)
    top = sorted(eos, reverse=True)[:4]
    got = []
    for tl in shown:
        a = sum(len(e.added) for e in tl.events)
        r = sum(len(e.revoked) for e in tl.events)
        got.append(r / (a + r))
    assert got == pytest.approx(top) and top[0] > 0
    tree = parse(report[1])
    for i, tl in enumerate(shown):
        adds = _group(tree, f"t{i}-adds")
        revs = _group(tree, f"t{i}-revokes")
        ups = _group(tree, f"t{i}-updates")
        assert len(adds) == len(revs) == len(ups) == 1
        n_add = sum(len(e.added) for e in tl.events)
        n_rev = sum(len(e.revoked) for e in tl.events)
        assert len(list(adds[0].iter(f"{SVG}use"))) == n_add
        assert len(list(revs[0].iter(f"{SVG}use"))) == n_rev
        assert len(list(ups[0].iter(f"{SVG}use"))) == len(tl.events)
    # the figures were written too
    files = report[0]
    assert sorted(f.name for f in files.figures) == sorted(
        f"timeline_{k}.{ext}" for k in range(1, 5) for ext in ("png", "svg")
    )


def test_planted_script_shows_as_text(report, stored):
    from fairdesk.reports.incremental import worst_timelines

    project, run_id = stored
    text = report[1]
    assert "<script" not in text
    tree = parse(text)
    plain = "".join(tree.itertext())
    # the <script> item's own-partials stream is among the worst: its heading and the
    # figure's title show the id as text
    shown = [tl.item for tl in worst_timelines(load_incremental(project, run_id), 4)]
    assert EVIL in shown
    assert plain.count(EVIL) >= 2
    titles = [t for t in tree.iter("{http://www.w3.org/2000/svg}text") if EVIL in (t.text or "")]
    assert titles
    assert "&lt;script&gt;" in text


def test_groups_section(report, stored):
    project, run_id = stored
    p = load_incremental(project, run_id)
    tree = parse(report[1])
    sec = tree.find(".//section[@id='groups']")
    assert sec is not None
    heads = ["".join(h.itertext()) for h in sec.iter("h3")]
    assert len(heads) == len(p.groups)
    assert all("(reference" in h for h in heads)
    verdicts = [c.verdict for b in p.groups for c in b.stats.comparisons]
    tags = [s for s in sec.iter("span") if s.get("class") == "tag"]
    assert len(tags) == len(verdicts)


def test_report_command_on_an_incremental_run(stored, tmp_path, capsys):
    from fairdesk.cli import main

    project, run_id = stored
    out = tmp_path / "inc.html"
    assert (
        main(
            [
                "report",
                "--project",
                str(project.folder),
                "--run",
                str(run_id),
                "--html",
                str(out),
                "--worst",
                "1",
                "--figures",
                str(tmp_path / "f"),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert f"report: {out}" in printed and "figures: 2 files" in printed
    text = out.read_text(encoding="utf-8")
    assert parse(text) is not None and text.count("<svg") == 1
    assert "Models × policies" in text


def test_pdf_has_the_table_and_the_timelines(stored, tmp_path):
    import re
    import shutil
    import subprocess

    from fairdesk.reports.html import write_report
    from fairdesk.reports.pdf import PdfUnavailable

    exe = shutil.which("pdftotext")
    if exe is None:
        pytest.skip("pdftotext is not installed (apt install poppler-utils)")
    project, run_id = stored
    try:
        files = write_report(project, run_id, tmp_path / "r.html", worst=2, pdf=tmp_path / "r.pdf")
    except PdfUnavailable as exc:
        pytest.skip(str(exc))
    text = subprocess.run(
        [exe, "-enc", "UTF-8", str(files.pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    flat = re.sub(r"\s+", " ", text)
    for heading in ("What was run", "Models × policies", "Groups", "Add/revoke timelines"):
        assert heading in flat
    assert 'alert("x")' in flat
