"""The public Python API (fairdesk.api): the guide's Notebooks page runs, and the API gives
the numbers the command line's ``--json`` gives for the same table."""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairdesk
from fairdesk.cli import main
from fairdesk.jobs.result import AuditRun

NOTEBOOKS = Path(__file__).resolve().parents[1] / "docs" / "notebooks.md"


def notebook_blocks() -> list[str]:
    """The Python blocks of the guide's Notebooks page, in order."""
    return re.findall(r"```python\n(.*?)```", NOTEBOOKS.read_text(encoding="utf-8"), re.S)


def run_notebook() -> tuple[dict, list[str]]:
    """Run every Python block of the Notebooks page in one namespace, as a notebook's cells:
    (the namespace, what each block printed)."""
    scope: dict = {}
    printed = []
    for i, code in enumerate(notebook_blocks(), 1):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"{NOTEBOOKS}, Python block {i}", "exec"), scope)
        printed.append(out.getvalue())
    return scope, printed


def test_guide_example_runs_and_prints_a_group_table():
    scope, printed_blocks = run_notebook()
    everything = "".join(printed_blocks)
    assert "<AuditRun of a table by accent" in everything and "table='table'" not in everything
    strict = scope["strict"]  # random_state is seed; the settings object's options kept
    assert (strict.settings.seed, strict.settings.alpha, strict.settings.n_bootstrap) == (
        7,
        0.01,
        500,
    )
    # the groups given as a Series give the numbers of the column
    pd.testing.assert_series_equal(
        scope["again"].by_group["wer"], scope["run"].by_group["wer"], check_names=False
    )
    assert len(printed_blocks) >= 1
    printed = printed_blocks[0]
    lines = printed.splitlines()
    # the group table: a header with the metrics, one row per group with its WER
    assert re.match(r"\s+wer\s+cer$", lines[0]) and lines[1].strip() == "group"
    rows = {ln.split()[0]: [float(x) for x in ln.split()[1:]] for ln in lines[2:4]}
    assert set(rows) == {"scot", "us"}
    df, run = scope["df"], scope["run"]
    for g, (wer, _cer) in rows.items():
        sub = df[df["accent"] == g]
        errors = sum(r != h for r, h in zip(sub["reference"], sub["hypothesis"], strict=True))
        words = sum(len(t.split()) for t in sub["reference"])
        assert wer == pytest.approx(errors / words, abs=1e-6)  # one substitution per error
        assert run.by_group.loc[g, "wer"] == pytest.approx(errors / words)
    assert "disparity_detected" in printed


def _table(tmp_path):
    rng = np.random.default_rng(5)
    sents = [f"play track {w} from the album" for w in "one two three four five six".split()]
    rows = []
    for acc, p in (("us", 0.03), ("scot", 0.3), ("nyc", 0.05)):
        for s in range(8):
            for c, t in enumerate(sents):
                hyp = " ".join(w if rng.random() > p else "zzz" for w in t.split())
                rows.append(
                    {"ref": t, "hyp": hyp, "spk": f"{acc}{s}", "content_id": f"c{c}", "accent": acc}
                )
    df = pd.DataFrame(rows)
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    return df, path


def _cli_json(path, *extra) -> dict:
    out = path.parent / "o.json"
    args = ["audit", "--table", str(path), "--ref-col", "ref", "--hyp-col", "hyp"]
    args += ["--speaker-col", "spk", "--by", "accent", "--n-bootstrap", "300", "--min-items", "20"]
    assert main([*args, *extra, "--quiet", "--json", str(out)]) == 0
    return json.loads(out.read_text())


def test_api_gives_the_numbers_of_the_cli_json(tmp_path):
    df, path = _table(tmp_path)
    d = _cli_json(path, "--reference", "us")
    kw = {"ref_col": "ref", "hyp_col": "hyp", "speaker_col": "spk", "reference": "us"}
    for source in (df, path):  # a DataFrame or the file
        run = fairdesk.audit_table(source, by="accent", n_bootstrap=300, min_items=20, **kw)
        assert isinstance(run, AuditRun)
        assert AuditRun.from_json(d).comparisons == run.comparisons
        # --json writes the CI notes in words: they read back as those words
        back = AuditRun.from_json(d).groups
        assert [_worded(g) for g in back] == [_worded(g) for g in run.groups]
        assert run.reference == d["reference"] == "us"
        # the group table is the JSON's group values; the comparisons its comparisons
        for g in d["groups"]:
            for m, v in g["values"].items():
                got = run.by_group.loc[g["group"], m]
                assert (v is None and math.isnan(got)) or got == pytest.approx(v)
        table = run.comparisons_table.set_index(["metric", "group"])
        for c in d["comparisons"]:
            row = table.loc[(c["metric"], c["group"])]
            assert row["verdict"] == c["verdict"] and row["gap"] == pytest.approx(c["gap"])
            assert row["p_adjusted"] == pytest.approx(c["p_adjusted"])
        assert run.overall["wer"] == pytest.approx(d["summary"]["wer"]["overall"]["value"])
    # and WER by hand (no normalisation needed: lower-case words, no punctuation)
    for g, sub in df.groupby("accent"):
        errors = sum(
            sum(a != b for a, b in zip(r.split(), h.split(), strict=True))
            for r, h in zip(sub["ref"], sub["hyp"], strict=True)
        )
        words = sum(len(r.split()) for r in sub["ref"])
        assert run.by_group.loc[g, "wer"] == pytest.approx(errors / words)
    # to_json is the CLI's --json (timings aside), which writes in each comparison's reading
    # in words (fairdesk.reading: written at output time, not stored)
    from fairdesk.presentation.readings import readings_json

    assert "reading" not in run.to_json()["comparisons"][0]
    mine = json.loads(json.dumps(readings_json(run.to_json(), run)))
    assert [c["reading"] for c in mine["comparisons"]] == [
        fairdesk.reading(c, run) for c in run.comparisons
    ]
    assert set(mine) == set(d)
    assert {k: v for k, v in mine.items() if k not in ("timings", "table", "problems")} == {
        k: v for k, v in d.items() if k not in ("timings", "table", "problems")
    }


def test_api_options_and_errors(tmp_path):
    df, _path = _table(tmp_path)
    kw = {"ref_col": "ref", "hyp_col": "hyp", "speaker_col": "spk"}
    with pytest.raises(TypeError, match="n_bootstraps"):
        fairdesk.audit_table(df, by="accent", n_bootstraps=300, **kw)
    run = fairdesk.audit_table(df, by="accent", metrics=["wer"], n_bootstrap=200, **kw)
    assert run.tested_metrics == ("wer",) and run.settings.n_bootstrap == 200
    assert run.settings.small_cluster_scaling is True  # the default (docs/METHODS.md)
    off = fairdesk.audit_table(
        df, by="accent", metrics=["wer"], n_bootstrap=200, small_cluster_scaling=False, **kw
    )
    assert off.settings.small_cluster_scaling is False
    assert {c.metric for c in run.comparisons} == {"wer"}
    text = repr(run)
    verdicts = sorted(c.verdict for c in run.comparisons)
    assert text == (
        f"<AuditRun of a table by accent: 3 groups, reference {run.reference!r}, "
        f"2 comparisons ({', '.join(f'{v} 1' for v in verdicts)})>"
    )
    assert "table='table'" not in text and len(text) < 300
    html = run._repr_html_()
    assert "<table" in html and "Verdicts" in html and "scot" in html


def test_the_root_package_stays_lazy():
    import subprocess

    code = (
        "import sys, fairdesk; assert 'fairdesk.api' not in sys.modules; "
        "assert 'pandas' not in sys.modules; fairdesk.audit_table; "
        "assert 'fairdesk.api' in sys.modules; print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_open_project_runs_and_audit(tmp_path):
    from tests.conftest import tone_project

    p, root = tone_project(tmp_path, {"a": 0.5, "b": 0.7}, 6, 6, "play the song")
    p.close()
    preds = root / "preds.csv"
    lines = ["path,text"] + [
        f"{acc}/{s}_{c}.wav,{'play the song' if acc == 'a' else 'play song'}"
        for acc in "ab"
        for s in range(6)
        for c in range(6)
    ]
    preds.write_text("\n".join(lines) + "\n")
    with fairdesk.open_project(tmp_path / "proj") as proj:
        assert proj.datasets == ["d"]
        assert proj.runs().empty
        run = proj.audit(
            dataset="d",
            model=f"predictions:{preds}",
            by="accent",
            reference="a",
            request_options={"nlu": "none"},
            n_bootstrap=200,
            min_items=5,
            min_speakers=2,
        )
        assert isinstance(run, AuditRun) and not run.from_cache
        assert run.by_group.loc["b", "wer"] == pytest.approx(1 / 3)
        assert run.by_group.loc["a", "wer"] == 0
        runs = proj.runs()
        assert runs["run_id"].tolist() == [run.run_id] and runs["dataset"].tolist() == ["d"]
        assert proj.run(run.run_id) == run
        again = proj.audit(
            dataset="d",
            model=f"predictions:{preds}",
            by="accent",
            reference="a",
            request_options={"nlu": "none"},
            n_bootstrap=200,
            min_items=5,
            min_speakers=2,
        )
        assert again.from_cache and again.comparisons == run.comparisons


def test_difference_and_ratio_tables_are_the_comparisons(tmp_path):
    df, _ = _table(tmp_path)
    kw = {"ref_col": "ref", "hyp_col": "hyp", "speaker_col": "spk"}
    run = fairdesk.audit_table(df, by="accent", reference="us", n_bootstrap=300, **kw)
    diff, ratio = run.difference(), run.ratio()
    assert list(diff.index.names) == ["metric", "group"] and len(diff) == len(run.comparisons)
    for c in run.comparisons:
        d, r = diff.loc[(c.metric, c.group)], ratio.loc[(c.metric, c.group)]
        assert d["difference"] == pytest.approx(c.gap) and d["reference"] == "us"
        assert (d["ci_low"], d["ci_high"]) == pytest.approx((c.ci_low, c.ci_high))
        # the ratio from the group values, computed here
        sub = run.by_group[c.metric]
        assert r["ratio"] == pytest.approx(sub[c.group] / sub["us"])
        assert r["ci_low"] <= r["ratio"] <= r["ci_high"]
        # the same replicates: a gap interval above 0 is a ratio interval above 1, and so on
        assert (d["ci_low"] > 0) == (r["ci_low"] > 1) and (d["ci_high"] < 0) == (r["ci_high"] < 1)
        assert r["verdict"] == c.verdict and r["p_adjusted"] == pytest.approx(c.p_adjusted)
    one = run.difference("wer")
    assert list(one.index) == sorted({"scot", "nyc"}, key=list(one.index).index)
    assert set(one.index) == {"scot", "nyc"}
    # fairlearn's spread: max - min and min / max of the groups' values, descriptive
    wer = run.by_group["wer"]
    assert run.difference(method="between_groups")["wer"] == pytest.approx(wer.max() - wer.min())
    assert run.ratio("wer", method="between_groups")["wer"] == pytest.approx(wer.min() / wer.max())
    with pytest.raises(KeyError, match="no metric 'wrr'"):
        run.difference("wrr")
    with pytest.raises(ValueError, match="between_groups"):
        run.ratio(method="max_min")


def test_ratio_interval_is_the_percentiles_of_the_replicate_ratios():
    from fairdesk.stats.comparison import ratio_interval

    rng = np.random.default_rng(3)
    g, r = rng.uniform(0.2, 0.4, 500), rng.uniform(0.1, 0.2, 500)
    g[7] = np.nan  # an undefined replicate is left out, as for the gap
    ok = ~np.isnan(g)
    want = np.percentile(g[ok] / r[ok], [2.5, 97.5])
    assert ratio_interval(g, r) == pytest.approx(tuple(want))
    r[3] = 0.0  # a reference of 0 in one replicate: no interval
    assert ratio_interval(g, r) is None


def test_by_takes_a_series_or_a_list_and_says_what_is_wrong(tmp_path):
    df, _ = _table(tmp_path)
    kw = {"ref_col": "ref", "hyp_col": "hyp", "speaker_col": "spk", "n_bootstrap": 200}
    by_name = fairdesk.audit_table(df, by="accent", reference="us", **kw)
    shuffled = df["accent"].sample(frac=1, random_state=1)  # the same rows in another order
    by_series = fairdesk.audit_table(df.drop(columns="accent"), by=shuffled, reference="us", **kw)
    assert by_series.by == ("accent",)
    assert [c.gap for c in by_series.comparisons] == [c.gap for c in by_name.comparisons]
    two = fairdesk.audit_table(
        df, by=["accent", pd.Series(np.where(df.index % 2, "odd", "even"), index=df.index)], **kw
    )
    assert two.by == ("accent", "by_2") and len(two.groups) == 6
    assert "by_2" not in df.columns  # the caller's table is not changed
    with pytest.raises(ValueError, match="index is not the table's"):
        fairdesk.audit_table(df, by=df["accent"].iloc[:10], **kw)
    with pytest.raises(ValueError, match="differs from the table's column 'accent'"):
        fairdesk.audit_table(df, by=df["accent"].str.upper(), **kw)
    with pytest.raises(TypeError, match="column name or a pandas Series"):
        fairdesk.audit_table(df, by=df["accent"].to_numpy(), **kw)
    with pytest.raises(TypeError, match="random_state is another name for seed"):
        fairdesk.audit_table(df, by="accent", seed=1, random_state=2, **kw)
    assert fairdesk.audit_table(df, by="accent", random_state=4, **kw).settings.seed == 4


def test_audit_settings_is_exported():
    from fairdesk.api import AuditSettings
    from fairdesk.stats.settings import AuditSettings as Defined

    assert fairdesk.AuditSettings is AuditSettings is Defined
    assert "AuditSettings" in fairdesk.__all__


def _worded(g):
    """A group with its coded CI notes in today's words (as ``--json`` writes them)."""
    import dataclasses

    from fairdesk.presentation.notices import notice_text

    return dataclasses.replace(g, ci_note={m: notice_text(n) for m, n in g.ci_note.items()})
