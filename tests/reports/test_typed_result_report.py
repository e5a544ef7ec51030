"""A run stored in today's payload layout, read through the typed result: the report's
sections and the export rows hold the stored numbers, and the stored dict, the decoded
``AuditRun`` and its ``to_json`` (schema 2) render the same report."""

from __future__ import annotations

import copy
import dataclasses
import math

import pytest

from fairdesk.jobs.result import AuditRun, as_audit_run
from fairdesk.reports.data import load_run
from fairdesk.reports.html import render, report_context
from fairdesk.reports.tables import comparisons_table, groups_table


def _todays_layout(stored: dict) -> dict:
    """The payload as ``run_audit`` writes it today: no ``schema_version`` and each group's
    values repeated as top-level keys of the group (whatever the store now holds)."""
    p = copy.deepcopy(stored)
    p.pop("schema_version", None)
    for g in p["groups"]:
        for m, v in (g.get("values") or {}).items():
            g.setdefault(m, v)
    return p


@pytest.fixture(scope="module")
def today(speech_runs):
    """(RunData with today's payload dict, that dict)."""
    from fairdesk.core.runs import run_payload

    stored = _todays_layout(run_payload(speech_runs.project, speech_runs.run))
    d = load_run(speech_runs.project, speech_runs.run)
    d.payload = stored
    return d, stored


@pytest.fixture(scope="module")
def context(today):
    return report_context(today[0])


def _pct(v) -> str:
    """A proportion in percent with one decimal, computed here (no sign on zero)."""
    x = round(100 * v, 1)
    return f"{0.0 if x == 0 else x:.1f}%"


def _pp(v) -> str:
    x = round(100 * v, 1)
    return "0.0 pp" if x == 0 else f"{x:+.1f} pp"


def _p(v) -> str:
    return "–" if v is None else ("< 0.001" if v < 0.001 else f"{v:.3f}")


def test_the_payload_is_todays_layout(today):
    _d, stored = today
    assert "schema_version" not in stored
    g = stored["groups"][0]
    assert all(g[m] == v for m, v in g["values"].items())  # the duplicated value keys
    run = as_audit_run(stored)
    assert isinstance(run, AuditRun) and run.schema_version == 1
    assert len(run.comparisons) == len(stored["comparisons"]) > 0


def test_dict_typed_and_schema_2_render_the_same_report(today):
    d, stored = today
    text = render(report_context(d))
    run = as_audit_run(stored)
    typed = dataclasses.replace(d, payload=run)
    assert typed.audit is run  # an AuditRun is used as is
    assert render(report_context(typed)) == text
    v2 = run.to_json()
    assert v2["schema_version"] == 2
    assert render(report_context(dataclasses.replace(d, payload=v2))) == text


def test_what_was_audited_and_the_corpus_hold_the_stored_settings(today, context):
    _d, stored = today
    s = stored["settings"]
    rows = dict(context["audited"])
    assert rows["Dataset"] == stored["dataset"]
    assert rows["Reference group"] == stored["reference"]
    assert rows["Seed"] == str(s["seed"])
    assert rows["Normaliser"] == s["normaliser"]
    assert rows["Language"] == s["language"]
    assert rows["Bootstrap resamples B"].startswith(str(s["n_bootstrap"]))
    assert rows["Grouped by"] == ", ".join(stored["by"])
    assert rows["Minimums per group"] == (f"{s['min_items']} items, {s['min_speakers']} speakers")
    assert rows["fairdesk version"].startswith(
        f"{s['fairdesk_version']} (metrics code {s['metrics_code_version']})"
    )
    corpus = context["corpus"]
    assert [(g["group"], g["n_items"], g["n_speakers"]) for g in corpus["groups"]] == [
        (g["group"], str(g["n_items"]), str(g["n_speakers"])) for g in stored["groups"]
    ]
    assert corpus["n_failed"] == str(len(stored["failures"]))
    assert corpus["counts"] == {
        "n_cached": str(stored["counts"]["n_cached"]),
        "n_inferred": str(stored["counts"]["n_inferred"]),
    }


def test_cards_gaps_and_group_values_hold_the_stored_numbers(today, context):
    from fairdesk.presentation.readings import reading

    d, stored = today
    comps = stored["comparisons"]
    assert {c["metric"] for c in comps} <= {"wer", "cer"}  # both shown in percent
    assert len(context["cards"]) == len(context["gaps"]) == len(comps)
    typed = d.audit.comparisons
    for card, row, c, t in zip(context["cards"], context["gaps"], comps, typed, strict=True):
        assert card["group"] == row["group"] == c["group"]
        assert card["gap"] == row["gap"] == _pp(c["gap"])
        assert card["values"] == f"{_pct(c['value'])} vs {_pct(c['reference_value'])}"
        assert card["ci"] == row["ci"] == f"[{_pp(c['ci_low'])}, {_pp(c['ci_high'])}]"
        assert card["p_adj"] == row["p_adj"] == _p(c["p_adjusted"])
        assert row["p"] == _p(c["p_value"])
        assert row["mde"] == f"{100 * c['mde']:.1f} pp"  # a gap's size, in the gaps' unit
        assert (t.metric, t.group) == (c["metric"], c["group"])
        assert card["reading"] == reading(t, d.audit)  # written from the typed comparison
    groups = context["groups"]
    metrics = list(dict.fromkeys(stored["tested_metrics"] + stored["descriptive_metrics"]))
    for r, g in zip(groups["rows"], stored["groups"], strict=True):
        assert r["group"] == g["group"]
        for cell, m in zip(r["cells"], metrics, strict=True):
            v = g["values"].get(m)
            assert cell["value"] == ("–" if v is None else _pct(v))
            ci = (g.get("ci") or {}).get(m)
            assert cell["ci"] == ("" if not ci else f"[{_pct(ci[0])}, {_pct(ci[1])}]")
    for row, m in zip(groups["summary"], stored["tested_metrics"], strict=True):
        s = stored["summary"][m]
        assert row["max_gap"] == _pp(s["max_gap"])
        assert (row["best"], row["worst"]) == (s["best_group"], s["worst_group"])


def test_pitfalls_section_holds_the_stored_block(today, context):
    _d, stored = today
    block = stored["pitfalls"]
    sec = context["pitfalls"]
    assert sec["n_flagged"] == str(block["n_flagged"])
    assert sec["checked"] == ", ".join(block["flags_checked"])
    assert [r["group"] for r in sec["rows"]] == list(block["by_group"])
    values = {g["group"]: g["values"] for g in stored["groups"]}
    for r in sec["rows"]:
        c = block["by_group"][r["group"]]
        assert r["n"] == str(c["n_items"]) and r["flagged"] == str(c["hallucinated"])
        assert r["wer"] == _pct(values[r["group"]]["wer"])


def _same(a, b) -> bool:
    """Equal, with None and NaN the same missing number."""
    missing = [x is None or (isinstance(x, float) and math.isnan(x)) for x in (a, b)]
    return all(missing) if any(missing) else a == pytest.approx(b)


def test_export_rows_hold_the_stored_values(today):
    d, stored = today
    groups = groups_table(d)
    by_key = {(r.group, r.metric): r for r in groups.itertuples()}
    n = 0
    for g in stored["groups"]:
        for m, v in g["values"].items():
            r = by_key[(g["group"], m)]
            ci = (g.get("ci") or {}).get(m) or [None, None]
            assert _same(r.value, v) and _same(r.ci_low, ci[0]) and _same(r.ci_high, ci[1])
            assert (r.n_items, r.reference) == (g["n_items"], g["group"] == stored["reference"])
            n += 1
    overall = sum(1 for s in stored["summary"].values() if s.get("overall"))
    assert len(groups) == n + overall
    comps = comparisons_table(d)
    want = []
    for c in stored["comparisons"]:  # a key only some comparisons have (the ratio's CI)
        for k, v in c.items():
            keys = (
                [f"{k}.{b}" for b in v]
                if k in ("n_blocks", "no_variation") and isinstance(v, dict)
                else [k]
            )
            want += [x for x in keys if x not in want]
            if k == "n_speakers" and "reading" not in want:
                want.append("reading")  # written from the numbers, where results held it
    assert list(comps.columns) == want  # the stored keys, in their order
    from fairdesk.presentation.readings import reading

    rows = comps.to_dict(orient="records")
    for row, c, t in zip(rows, stored["comparisons"], d.audit.comparisons, strict=True):
        assert row["reading"] == reading(t, d.audit)
        for k, v in c.items():
            if v in ("inf", "-inf") and k in ("ratio", "effect_size"):
                v = float(v)  # how the stored JSON writes an infinite ratio (schema 2)
            if k == "flags":
                assert row[k] == ";".join(v)
            elif k == "n_blocks":
                assert all(_same(row[f"n_blocks.{b}"], x) for b, x in v.items())
            elif isinstance(v, (int, float)) and not isinstance(v, bool) or v is None:
                assert _same(row[k], v), k
            elif not isinstance(v, dict):
                assert row[k] == v, k


def test_tiers_read_the_dataset_and_normaliser_of_the_stored_run(today):
    from fairdesk.reports.tiers import run_tiers

    d, stored = today
    first = str(d.items["id"].iloc[0])
    (t,) = run_tiers(d, "even", items=[first])
    assert t.dataset == stored["dataset"] and t.item == first
    assert d.normaliser_name == stored["settings"]["normaliser"]
    typed = dataclasses.replace(d, payload=as_audit_run(stored))
    (t2,) = run_tiers(typed, "even", items=[first])
    assert t2.tiers == t.tiers and t2.reference_source == t.reference_source


def test_a_failure_without_a_path_and_a_constant_value_in_its_unit(today):
    """A stage failure stored without ``path`` renders (the typed ``ItemFailure`` has it
    None); a no-variation comparison's constant reads in the metric's unit, like its
    rule-of-three bounds."""
    from tests.reports.conftest import with_interval_fields
    from tests.reports.test_html import parse

    d, stored = today
    p = with_interval_fields(stored)
    p["failures"] = [{"item": "x-1", "reason": "no audio"}]
    plain = "".join(parse(render(report_context(dataclasses.replace(d, payload=p)))).itertext())
    assert "x-1: no audio" in plain
    assert "constant at 0.0%; rule-of-three bound 12.0% (group), 12.0% (reference)" in plain
