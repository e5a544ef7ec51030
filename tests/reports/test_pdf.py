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
