"""The report and the exports of a comparison of systems (docs/METHODS.md, "Comparing
systems on the same items"): the baseline run's report gets a "Comparison of systems"
section with the sentences of :mod:`fairdesk.presentation.systems`; ``export
--comparisons`` appends the system-difference and gap-difference rows in long format, equal
to the typed result's numbers; ``export --items`` gets a hypothesis and an error count per
system, equal to what each system's predictions lost."""

from __future__ import annotations

import html
import math

import pandas as pd
import pytest

from tests.conftest import predictions_csv, tone_project

N_SPK, N_SENT = 6, 5


def _lose_a(accent, s, c):  # the baseline loses the last word in 3 of b's 5 sentences
    return c < (3 if accent == "b" else 1)


def _lose_b(accent, s, c):  # the other system in 1 sentence of each accent
    return c < 1


def _preds(path, lose):
    return predictions_csv(path, lose, N_SPK, N_SENT)


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """(project folder, baseline run, other run, system names)."""
    from fairdesk.cli import main
    from fairdesk.jobs.system_run import stored_comparisons

    tmp = tmp_path_factory.mktemp("systems_report")
    p, _ = tone_project(tmp, {"a": 0.4, "b": 0.4}, N_SPK, N_SENT, "play the song now")
    a = _preds(tmp / "A.csv", _lose_a)
    b = _preds(tmp / "B.csv", _lose_b)
    folder = p.folder
    p.close()
    args = ["audit", "--project", str(folder), "--dataset", "d", "--quiet"]
    args += ["--model", f"predictions:{a}", "--model", f"predictions:{b}"]
    args += ["--by", "accent", "--reference", "a", "--nlu", "none", "--n-bootstrap", "200"]
    args += ["--min-items", "5", "--min-speakers", "2"]
    assert main(args) == 0
    from fairdesk.core.runs import done_run_ids
    from fairdesk.core.store import Project

    p = Project(folder)
    ids = sorted(done_run_ids(p))
    cmp = stored_comparisons(p, ids[0])[-1]
    p.close()
    assert cmp.run_ids == tuple(ids)
    return folder, ids[0], ids[1], cmp


def _text(page: str) -> str:
    return html.unescape(page)


def test_the_baseline_report_has_the_comparison_section_with_its_sentences(compared, tmp_path):
    from fairdesk.cli import main
    from fairdesk.presentation.systems import (
        classical_line,
        difference_sentence,
        gap_sentence,
        system_table,
    )

    folder, base, other, cmp = compared
    out = tmp_path / "r.html"
    args = ["report", "--project", str(folder), "--run", str(base), "--html", str(out)]
    assert main([*args, "--figures", str(tmp_path / "fig")]) == 0
    for m in {g.metric for g in cmp.result.gap_differences}:  # the chart as files too
        assert (tmp_path / "fig" / f"gap_differences_{m}.svg").is_file()
    page = _text(out.read_text(encoding="utf-8"))
    assert "Comparison of systems" in page
    section = page[page.index('<section id="systems">') :]
    section = section[: section.index("</section>")]
    res = cmp.result
    assert res.gap_differences and res.differences and res.classical
    for g in res.gap_differences:
        assert gap_sentence(g) in section
    for d in res.differences:
        assert difference_sentence(d) in section
    for c in res.classical:
        assert classical_line(c) in section and "assuming independent utterances" in section
    for m in dict.fromkeys(d.metric for d in res.differences):
        _head, rows = system_table(res, m)
        for row in rows:
            for cell in row[1:]:
                assert cell in section
    assert section.count("<svg") == len({g.metric for g in res.gap_differences})
    assert "Where the systems disagree most" in section and "one right, one wrong" in section
    # the other system's own run is not a baseline: no section
    out2 = tmp_path / "r2.html"
    assert main(["report", "--project", str(folder), "--run", str(other), "--html", str(out2)]) == 0
    assert 'id="systems"' not in out2.read_text(encoding="utf-8")


def test_export_comparisons_appends_the_systems_rows_in_long_format(compared, tmp_path):
    from fairdesk.cli import main

    folder, base, other, cmp = compared
    out = tmp_path / "c.csv"
    args = ["export", "--project", str(folder), "--run", str(base), "--comparisons", str(out)]
    assert main([*args, "--quiet"]) == 0
    t = pd.read_csv(out)
    assert list(t.columns[:3]) == ["kind", "system", "baseline"]
    res = cmp.result
    groups = t[t["kind"] == "group_comparison"]
    assert len(groups) == len(t) - len(res.differences) - len(res.gap_differences) > 0
    assert set(groups["system"]) == {res.baseline}
    for kind, entries in (
        ("system_difference", res.differences),
        ("gap_difference", res.gap_differences),
    ):
        rows = t[t["kind"] == kind]
        assert len(rows) == len(entries)
        for e in entries:
            grp = rows["group"].isna() if e.group is None else rows["group"] == e.group
            r = rows[(rows["metric"] == e.metric) & grp & (rows["system"] == e.system)]
            assert len(r) == 1
            r = r.iloc[0]
            assert r["baseline"] == res.baseline and r["verdict"] == e.verdict
            for k in ("difference", "ci_low", "ci_high", "p_value", "p_adjusted", "mde"):
                want = getattr(e, k)
                if want is None or (isinstance(want, float) and math.isnan(want)):
                    assert pd.isna(r[k])
                else:
                    assert r[k] == pytest.approx(want, rel=1e-12, abs=1e-15)
    # a run without a comparison keeps today's table (no kind column)
    out2 = tmp_path / "c2.csv"
    args2 = ["export", "--project", str(folder), "--run", str(other), "--comparisons", str(out2)]
    assert main([*args2, "--quiet"]) == 0
    assert "kind" not in pd.read_csv(out2).columns


def test_export_items_has_a_hypothesis_and_error_count_per_system(compared, tmp_path):
    from fairdesk.cli import main

    folder, base, other, cmp = compared
    out = tmp_path / "i.csv"
    args = ["export", "--project", str(folder), "--run", str(base), "--items", str(out)]
    assert main([*args, "--quiet"]) == 0
    t = pd.read_csv(out)
    a, b = cmp.result.systems
    assert len(t) == 2 * N_SPK * N_SENT
    for _, r in t.iterrows():
        accent, rest = str(r["path"]).split("/")
        s, c = (int(x) for x in rest.removesuffix(".wav").split("_"))
        for name, lose in ((a, _lose_a), (b, _lose_b)):
            lost = lose(accent, s, c)
            assert r[f"hypothesis.{name}"] == ("play the song" if lost else "play the song now")
            assert r[f"errors.{name}"] == (1 if lost else 0)  # one deleted word
    assert (t[f"hypothesis.{a}"] == t["hypothesis"]).all()  # the baseline's own column
