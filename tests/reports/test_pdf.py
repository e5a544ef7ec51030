"""The PDF report has the same groups and verdicts as the HTML (read with pdftotext)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from fairdesk.reports.data import load_run, verdict_style
from fairdesk.reports.html import write_report


def test_pdf_has_the_same_groups_and_verdicts(speech_runs, tmp_path):
    exe = shutil.which("pdftotext")
    if exe is None:
        pytest.skip("pdftotext is not installed (apt install poppler-utils)")
    files = write_report(
        speech_runs.project, speech_runs.run, tmp_path / "r.html", pdf=tmp_path / "r.pdf"
    )
    assert files.pdf.read_bytes()[:5] == b"%PDF-"
    text = subprocess.run(
        [exe, "-enc", "UTF-8", str(files.pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    flat = " ".join(text.split())
    squeezed = re.sub(r"[\s-]", "", text)  # words hyphenated or wrapped at a line end
    d = load_run(speech_runs.project, speech_runs.run)
    for g in d.payload["groups"]:
        assert g["group"] in flat
    for c in d.payload["comparisons"]:
        assert re.sub(r"[\s-]", "", verdict_style(c["verdict"])[0]) in squeezed
    for heading in (
        "What was audited",
        "Verdicts",
        "Gaps to the reference",
        "Worst items per group",
        "Definitions used",
    ):
        assert heading in flat
    assert 'alert("x")' in flat  # the planted speaker name, as text


def _pages(exe, pdf) -> list[str]:
    text = subprocess.run(
        [exe, "-layout", "-enc", "UTF-8", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    return [" ".join(p.split()) for p in text.split("\f")]


def test_pdf_tables_fit_the_page_and_no_page_is_left_blank(speech_runs, tmp_path):
    """The per-group table lost its last columns off an A4 page, and the landscape page of
    the gaps left the page before it (and the title page) mostly blank: every metric's column
    head is in the PDF, in tables of at most MAX_GROUP_COLUMNS metrics, the gaps table has all
    its heads, and the sections run on without a forced page break."""
    from fairdesk.presentation import metric_short
    from fairdesk.reports.html import MAX_GROUP_COLUMNS, column_blocks

    exe = shutil.which("pdftotext")
    if exe is None:
        pytest.skip("pdftotext is not installed (apt install poppler-utils)")
    files = write_report(
        speech_runs.project, speech_runs.run, tmp_path / "r.html", pdf=tmp_path / "r.pdf"
    )
    pages = [p for p in _pages(exe, files.pdf) if p]
    flat = " ".join(pages)
    start = flat.index("Per-group values")
    section = flat[start : flat.index("Gaps to the reference", start)]
    d = load_run(speech_runs.project, speech_runs.run)
    metrics = list(dict.fromkeys(d.payload["tested_metrics"] + d.payload["descriptive_metrics"]))
    heads = [metric_short(m) for m in metrics]
    assert len(heads) > MAX_GROUP_COLUMNS  # the case that ran off the page
    for h in heads:
        assert h in section, h
    assert section.count("group ") >= len(column_blocks(len(heads)))  # one table per block
    gaps = flat[flat.index("Gaps to the reference") :]
    for h in (
        "metric",
        "group",
        "value (ref.)",
        "gap",
        "ratio",
        "95% CI of the gap",
        "p adj.",
        "MDE",
        "effect",
        "resampling",
        "design",
        "verdict",
        "flags / reason",
    ):
        assert h in gaps or all(w in gaps for w in h.split()), h  # a head may wrap
    # the title page carries the first section; the per-group values and the gaps follow on
    # the same or the next page (no landscape page break in between)
    assert "What was audited" in pages[0]
    first = next(i for i, p in enumerate(pages) if "Per-group values" in p)
    gaps_page = next(i for i, p in enumerate(pages) if "Gaps to the reference" in p)
    assert gaps_page - first <= 1


def test_column_blocks_split_evenly():
    from fairdesk.reports.html import column_blocks

    assert column_blocks(0) == [(0, 0)] and column_blocks(6) == [(0, 6)]
    assert column_blocks(10) == [(0, 5), (5, 10)]
    assert column_blocks(13) == [(0, 5), (5, 9), (9, 13)]
