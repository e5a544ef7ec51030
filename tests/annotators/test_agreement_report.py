"""The report's agreement section (issue 47): on the two-annotator fixture its numbers are
``fairdesk agreement``'s JSON (same statistics function, same defaults), worded as the
console words them; a diacritic comparison's card carries the agreement, and a ``resample``
run's names it."""

from __future__ import annotations

import html
import json
import re

import pytest

from tests.annotators.fixture import two_annotators

N_BOOT = 200  # the report's number of resamples, made small for the test (the CLI's too)


def _req(preds, **kw):
    from fairdesk.jobs.audit import AuditRequest
    from fairdesk.stats.settings import AuditSettings

    return AuditRequest(
        dataset="d",
        model=f"predictions:{preds}",
        by=("accent",),
        settings=AuditSettings(n_bootstrap=200, min_items=2, min_speakers=2),
        **kw,
    )


def _section(text: str) -> str:
    m = re.search(r'<section id="agreement">(.*?)</section>', text, re.S)
    assert m, "the report has no agreement section"
    return m.group(1)


def _cells(section: str) -> dict[str, list[str]]:
    """{row name: [basis, statistic cells...]} of the section's table, unescaped."""
    rows = {}
    for tr in re.findall(r"<tr>(.*?)</tr>", section, re.S):
        cells = [html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
        if cells:
            rows[cells[0]] = cells[1:]
    return rows


def _numbers(cell: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", cell)]


def _expected(stat: dict, share: bool) -> list[float]:
    scale = 100.0 if share else 1.0
    return [stat[k] * scale for k in ("value", "low", "high")]


@pytest.fixture
def audited(tmp_path, monkeypatch):
    from fairdesk import constants
    from fairdesk.cli import main
    from fairdesk.jobs.audit import run_audit

    monkeypatch.setattr(constants, "AGREEMENT_BOOTSTRAP", N_BOOT)
    p, preds = two_annotators(tmp_path)
    out = tmp_path / "agreement.json"
    args = ["agreement", "--project", str(p.folder), "--dataset", "d", "--by", "accent"]
    assert main(args + ["--n-bootstrap", str(N_BOOT), "--json", str(out)]) == 0
    return p, preds, json.loads(out.read_text(encoding="utf-8")), run_audit


def test_the_agreement_section_has_the_agreement_commands_numbers(audited, tmp_path):
    from fairdesk.reports.html import write_report

    p, preds, data, run_audit = audited
    run = run_audit(p, _req(preds))
    path = write_report(p, run.run_id, tmp_path / "r.html").html
    text = path.read_text(encoding="utf-8")
    section = _section(text)
    assert "agreement of Ada, Obi on d" in html.unescape(section)
    assert f"({N_BOOT} resamples, seed 0)" in html.unescape(section)
    rows = _cells(section)
    blocks = {"overall": data["overall"]} | {f"accent = {g['group']}": g for g in data["groups"]}
    assert set(rows) == set(blocks) == {"overall", "accent = north", "accent = south"}
    stats = [("raw", True), ("kappa", False), ("alpha", False)]
    stats += [("wer", True), ("der", True), ("ter", True)]
    for name, g in blocks.items():
        basis, *cells = rows[name]
        assert _numbers(basis)[:2] == [g["n_items"], g["n_marks"]]
        for (field, share), cell in zip(stats, cells, strict=True):
            stat = g[field]
            if stat["value"] is None:  # the reason instead of a number
                assert cell.startswith("—") and stat["reason"]
                continue
            want = _expected(stat, share)
            got = _numbers(cell)
            # shares to 0.1 percentage point, κ/α to 3 decimals, as printed
            assert got == pytest.approx(want, abs=0.051 if share else 0.00051), (name, field)
    # the hand-counted fixture: 7 of 10 marks agree overall (tests/annotators/test_agreement)
    assert _numbers(rows["overall"][1])[0] == pytest.approx(70.0)
    # the ranked disagreements, as the console lists them
    assert "1. s1.wav: 2 of 2 marks differ" in html.unescape(section)

    # beside each diacritic comparison's card: its group's agreement
    cards = re.findall(r'<div class="reading agreement">(.*?)</div>', text, re.S)
    assert cards and all("annotators agree on" in html.unescape(c) for c in cards)
    south = next(g for g in data["groups"] if g["group"] == "south")
    assert any(f"{south['raw']['value'] * 100:.1f}%" in c and "accent = south" in c for c in cards)
    assert not any("so the interval includes" in c for c in cards)  # not resampled


def test_a_resample_runs_diacritic_cards_name_the_agreement(audited, tmp_path):
    from fairdesk.reports.data import load_run
    from fairdesk.reports.html import report_context

    p, preds, data, run_audit = audited
    run = run_audit(p, _req(preds, reference_text="resample"))
    ctx = report_context(load_run(p, run.run_id))
    from fairdesk.presentation import metric_short
    from fairdesk.presentation.agreement import is_diacritic

    dia = {metric_short(m) for m in run.result.tested_metrics if is_diacritic(m)}
    assert dia  # an Igbo audit tests DER/TER
    groups = {g["group"]: g for g in data["groups"]}
    for c in ctx["cards"]:
        if c["metric"] not in dia:
            assert c["agreement"] == ""  # only beside the diacritic comparisons
            continue
        g = groups[c["group"]]
        said = c["agreement"]
        assert said.startswith(f"annotators agree on {g['raw']['value'] * 100:.1f}% [")
        assert f"in accent = {c['group']}" in said
        if g["alpha"]["value"] is not None:
            assert f"α {g['alpha']['value']:.3f} [".replace("-", "\u2212") in said.replace(
                "-", "\u2212"
            )
        assert said.endswith(", so the interval includes their disagreement")


def test_a_dataset_with_one_annotator_has_no_agreement_section(tmp_path):
    from fairdesk.jobs.audit import run_audit
    from fairdesk.reports.html import build_report
    from tests.annotators.fixture import project

    p, preds = project(tmp_path)
    run = run_audit(p, _req(preds))
    assert '<section id="agreement">' not in build_report(p, run.run_id)
