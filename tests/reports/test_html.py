"""The HTML report: parses, self-contained, every group and verdict, user text escaped."""

from __future__ import annotations

import base64
import io
import re

import html5lib
import pytest

from fairdesk.jobs.result import AuditRun
from fairdesk.presentation.readings import reading
from fairdesk.reports.data import load_run, verdict_style
from fairdesk.reports.html import render, report_context, write_report
from tests.reports.conftest import EVIL, with_interval_fields


def parse(text: str):
    """html5lib in strict mode: any parse error raises."""
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)


def external_references(text: str, tree) -> list[str]:
    """Every src/href/url()/@import that points outside the file."""
    bad = []
    for el in tree.iter():
        for k, v in el.attrib.items():
            name = k.split("}")[-1].split(":")[-1].lower()
            if name in ("src", "href", "srcset", "action", "poster", "data") and not (
                v.startswith("#") or v.startswith("data:")
            ):
                bad.append(f"{el.tag} {k}={v[:60]}")
    for m in re.finditer(r"url\(\s*['\"]?([^)'\"]*)", text):
        if not (m.group(1).startswith("#") or m.group(1).startswith("data:")):
            bad.append(f"url({m.group(1)[:60]})")
    if re.search(r"@import", text, re.I):
        bad.append("@import")
    return bad


@pytest.fixture(scope="module")
def report(speech_runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("html")
    files = write_report(
        speech_runs.project, speech_runs.run, out / "r.html", embed_audio=True, figures=out / "fig"
    )
    return files, files.html.read_text(encoding="utf-8")


def test_report_parses_and_is_self_contained(report):
    _files, text = report
    tree = parse(text)
    assert external_references(text, tree) == []
    assert tree.find(".//script") is None  # nothing executable at all
    assert text.count("<svg") >= 3  # value, gap and radar charts inline


def test_report_shows_every_group_verdict_and_section(report, speech_runs):
    _files, text = report
    d = load_run(speech_runs.project, speech_runs.run)
    plain = "".join(parse(text).itertext())
    for g in d.payload["groups"]:
        assert g["group"] in plain
    for c in d.audit.comparisons:
        assert verdict_style(c.verdict)[0] in plain
        assert reading(c, d.audit) in plain
    for heading in (
        "What was audited",
        "Corpus",
        "Verdicts",
        "Per-group values",
        "Gaps to the reference",
        "Charts",
        "Worst items per group",
        "Failures and notes",
        "Definitions used",
    ):
        assert heading in plain
    s = d.payload["settings"]
    for needle in (
        d.payload["model_key"].split("@")[1],
        str(s["n_bootstrap"]),
        s["normaliser"],
        "two_way",
        "matched",
    ):
        assert needle in plain
    assert "Word error rate (WER)" in plain and "Holm" in plain  # definitions


def test_planted_script_shows_as_text(report):
    _files, text = report
    assert EVIL not in text  # never as markup
    assert "&lt;script&gt;" in text
    tree = parse(text)
    assert tree.find(".//script") is None
    assert EVIL in "".join(tree.itertext())


def test_worst_items_have_the_aligned_diff_and_playable_audio(report):
    import soundfile as sf

    _files, text = report
    tree = parse(text)
    diffs = [d for d in tree.iter("div") if d.get("class") == "diff"]
    assert diffs
    ops = {s.get("class") for d in diffs for s in d.iter("span")}
    assert {"op-D", "op-S"} <= ops
    audios = list(tree.iter("audio"))
    assert len(audios) == len(diffs)
    src = audios[0].get("src")
    assert src.startswith("data:audio/ogg;codecs=opus;base64,")
    data, sr = sf.read(io.BytesIO(base64.b64decode(src.split(",", 1)[1])))
    assert sr in (16000, 48000) and 0.5 < len(data) / sr < 10


def test_figures_written_as_png_and_svg(report):
    files, _ = report
    names = {p.name for p in files.figures}
    for stem in ("values_wer", "gaps_wer", "radar"):
        assert {f"{stem}.png", f"{stem}.svg"} <= names
    png = next(p for p in files.figures if p.suffix == ".png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_radar_says_when_the_reference_is_zero(report):
    _files, text = report  # the reference group "us" has WER 0
    assert "The reference value is 0 on WER" in text
    assert "divided by the largest group value" in text


def test_new_interval_fields_and_estimability_verdicts(speech_runs):
    d = load_run(speech_runs.project, speech_runs.run)
    d.payload = with_interval_fields(d.payload)
    text = render(report_context(d))
    plain = "".join(parse(text).itertext())
    us = next(g for g in d.payload["groups"] if g["group"] == "scot")
    lo, hi = us["ci"]["wer"]
    assert f"[{lo * 100:.1f}%, {hi * 100:.1f}%]" in plain  # the group's own CI
    assert "all groups (corpus)" in plain and "[7.0%, 14.0%]" in plain
    assert "Not estimable" in plain and "speaker bootstrap needs at least 2" in plain
    assert "No variation" in plain and "rule-of-three bound 12.0%" in plain
    assert "stored no per-group CIs" not in plain
    assert "this run stored no per-group CIs" not in plain.lower()


def test_value_chart_draws_each_groups_interval(speech_runs):
    from matplotlib.collections import LineCollection

    from fairdesk.reports.charts import value_chart

    d = load_run(speech_runs.project, speech_runs.run)
    p = with_interval_fields(d.payload)
    ax = value_chart(AuditRun.from_json(p), "wer").figure.axes[0]
    bars = [
        seg for c in ax.collections if isinstance(c, LineCollection) for seg in c.get_segments()
    ]
    want = sorted(x * 100 for g in p["groups"] for x in g["ci"]["wer"])
    got = sorted(x for s in bars for x in (min(s[:, 1]), max(s[:, 1])))
    assert got == pytest.approx(want)
    old = value_chart(AuditRun.from_json(_without_intervals(d.payload)), "wer")
    assert "no bars are drawn" in old.caption


def _without_intervals(payload):
    """The payload as a fairdesk before per-group CIs stored it."""
    import copy

    old = copy.deepcopy(payload)
    for g in old["groups"]:
        for k in ("ci", "ci_scheme", "ci_note"):
            g.pop(k, None)
    for v in (old.get("summary") or {}).values():
        if isinstance(v, dict):
            v.pop("overall", None)
    return old


def test_older_result_without_intervals_still_renders(speech_runs):
    import dataclasses

    d = load_run(speech_runs.project, speech_runs.run)
    d = dataclasses.replace(d, payload=_without_intervals(d.payload))
    plain = "".join(parse(render(report_context(d))).itertext())
    assert "stored no per-group CIs" in plain


def test_chart_svg_escapes_user_text():
    from fairdesk.reports.charts import svg_text, value_chart

    payload = {
        "reference": "a",
        "tested_metrics": ["wer"],
        "comparisons": [
            {"metric": "wer", "group": EVIL + " & $x$", "verdict": "disparity_detected"}
        ],
        "groups": [
            {"group": "a", "values": {"wer": 0.1}, "excluded": False},
            {"group": EVIL + " & $x$", "values": {"wer": 0.3}, "excluded": False},
        ],
    }
    svg = svg_text(value_chart(AuditRun.from_json(payload), "wer").figure)
    assert "<script" not in svg and "&lt;script&gt;" in svg
    tree = parse(f"<!DOCTYPE html><html><head><title>t</title></head><body>{svg}</body></html>")
    assert external_references(svg, tree) == []


def test_reports_never_import_qt():
    import subprocess
    import sys

    code = (
        "import sys\nimport fairdesk.cli, fairdesk.reports.html, fairdesk.reports.charts, "
        "fairdesk.reports.praat, fairdesk.reports.elan, fairdesk.reports.tables, "
        "fairdesk.reports.pdf\nfairdesk.cli.build_parser()\n"
        "from fairdesk.reports.charts import value_chart, svg_text\n"
        "from fairdesk.jobs.result import AuditRun\n"
        "svg_text(value_chart(AuditRun.from_json({'groups': [{'group': 'a', "
        "'values': {'wer': 0.1}}], "
        "'reference': 'a'}), 'wer').figure)\n"
        "bad = [m for m in ('PySide6', 'pyqtgraph', 'torch', 'matplotlib.backends.backend_qtagg')"
        " if m in sys.modules]\nassert not bad, bad\nprint('ok')"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr + r.stdout


def test_grounding_and_representation_sections(speech_runs):
    d = load_run(speech_runs.project, speech_runs.run)
    p = d.payload
    for g in p["groups"]:
        g["values"]["grounding_lift"] = 1.8 if g["group"] == "us" else 1.2
    p["comparisons"].append(
        {
            **p["comparisons"][0],
            "metric": "grounding_lift",
            "value": 1.2,
            "reference_value": 1.8,
            "gap": -0.6,
            "ratio": 1.2 / 1.8,
            "verdict": "inconclusive_underpowered",
        }
    )
    p["explain"] = {
        "method": "occlusion",
        "regions": "reference word spans",
        "aligner": "whisper-tiny.en@x",
        "items_explained": {"us": 12, "scot": 11},
        "failures": [{"item": "scot-1-1", "reason": "grounding lift undefined"}],
    }
    p["representation"] = {
        "silhouette": 0.21,
        "leakage": {"leakage": 0.3, "balanced_accuracy": 0.8, "chance": 0.5},
        "threshold": 0.1,
        "structure": True,
        "cases": {"wer": "representation_only"},
        "n_items": 50,
    }
    plain = "".join(parse(render(report_context(d))).itertext())
    assert "Grounding" in plain and "1.80×" in plain and "1.20×" in plain and "0.67×" in plain
    assert "grounding lift undefined" in plain and "whisper-tiny.en@x" in plain
    assert "Silhouette" in plain and "0.210" in plain and "representation only" in plain
    assert "Grounding lift (the fairness-slicing panel)" in plain
    assert "Representation (the fairness-slicing panel)" in plain


def test_export_one_chart_by_extension(speech_runs, tmp_path):
    from fairdesk.reports.charts import export_chart, report_charts

    d = load_run(speech_runs.project, speech_runs.run)
    charts = {c.name: c for c in report_charts(AuditRun.from_json(d.payload))}
    assert {"values_wer", "gaps_wer", "radar"} <= set(charts)
    svg = export_chart(charts["radar"], tmp_path / "radar.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert export_chart(charts["values_wer"], tmp_path / "v.png").read_bytes()[:4] == b"\x89PNG"
    assert export_chart(charts["gaps_wer"], tmp_path / "g.pdf").read_bytes()[:5] == b"%PDF-"
    with pytest.raises(ValueError, match="png, .svg or .pdf"):
        export_chart(charts["radar"], tmp_path / "radar.gif")


def test_report_command(speech_runs, tmp_path, capsys):
    from fairdesk.cli import main

    base = ["report", "--project", str(speech_runs.project.folder), "--run", str(speech_runs.run)]
    assert (
        main(base + ["--html", str(tmp_path / "r.html"), "--figures", str(tmp_path / "figs")]) == 0
    )
    out = capsys.readouterr().out
    assert f"report: {tmp_path / 'r.html'}" in out and "figures:" in out
    assert parse((tmp_path / "r.html").read_text(encoding="utf-8")) is not None
    assert (tmp_path / "figs" / "radar.svg").exists()
    assert main(base + ["--html", str(tmp_path / "r.txt")]) == 2
    assert (
        main(
            [
                "report",
                "--project",
                str(speech_runs.project.folder),
                "--run",
                "999",
                "--html",
                str(tmp_path / "x.html"),
            ]
        )
        == 2
    )
    capsys.readouterr()
