"""Several systems on one dataset (docs/METHODS.md, "Comparing systems on the same items"):
``fairdesk audit --model A --model B`` stores one ordinary run per system and the comparison
with the baseline's run; ``fairdesk compare`` recomputes it from the stored runs; ``show``
lists where the systems disagree; a table with two ``--hyp-col`` compares its columns."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.conftest import predictions_csv, tone_project

N_SPK, N_SENT = 6, 5


def _preds(path, lose):
    return predictions_csv(path, lose, N_SPK, N_SENT)


@pytest.fixture
def project(tmp_path):
    p, _ = tone_project(tmp_path, {"a": 0.4, "b": 0.4}, N_SPK, N_SENT, "play the song now")
    # A: b loses a word in 3 of 5 sentences, a in 1; B: both in 1 (B closes the gap)
    a = _preds(tmp_path / "A.csv", lambda acc, s, c: c < (3 if acc == "b" else 1))
    b = _preds(tmp_path / "B.csv", lambda acc, s, c: c < 1)
    yield p, a, b
    p.close()


ARGS = ["--by", "accent", "--reference", "a", "--nlu", "none", "--n-bootstrap", "200"]
ARGS += ["--min-items", "5", "--min-speakers", "2"]


def _audit(p, a, b, tmp_path, *extra):
    from fairdesk.cli import main

    out = tmp_path / "out.json"
    rc = main(
        ["audit", "--project", str(p.folder), "--dataset", "d"]
        + ["--model", f"predictions:{a}", "--model", f"predictions:{b}"]
        + ARGS
        + ["--json", str(out), *extra]
    )
    return rc, json.loads(out.read_text(encoding="utf-8"))


def test_two_models_store_two_runs_and_the_comparison_with_the_baseline(project, tmp_path, capsys):
    from fairdesk.core.runs import results_for_run, run_items_frame
    from fairdesk.jobs.system_run import KIND, stored_comparisons

    p, a, b = project
    rc, doc = _audit(p, a, b, tmp_path)
    assert rc == 0
    ids = [s["run_id"] for s in doc["systems"]]
    assert len(ids) == 2 and ids[0] != ids[1]
    assert doc["comparison"]["run_ids"] == ids
    stored = stored_comparisons(p, ids[0])
    assert len(stored) == 1 and stored[0].run_ids == tuple(ids)
    assert results_for_run(p, ids[1], KIND) == []  # kept with the baseline only
    res = stored[0].result
    assert res.systems == (f"predictions:{a}", f"predictions:{b}")
    # the differences are those of the two runs' stored item rows
    fa, fb = (run_items_frame(p, i) for i in ids)
    errs = {
        k: (f["n_sub"] + f["n_del"] + f["n_ins"]).sum() / f["n_words"].sum()
        for k, f in (("a", fa), ("b", fb))
    }
    d = res.difference(res.systems[1], "wer", None)
    assert d.difference == pytest.approx(errs["b"] - errs["a"])
    # WER of A: a 1/5 sentences lose 1 of 4 words, b 3/5; B: both 1/5
    g = res.gap_difference(res.systems[1], "wer", "b")
    assert g.baseline_gap == pytest.approx((3 / 5 - 1 / 5) / 4)
    assert g.gap == pytest.approx(0.0)
    assert g.difference == pytest.approx(-0.1)
    text = capsys.readouterr().out
    assert "=== comparison of systems ===" in text
    # the reading names both gaps with their own CIs and verdicts; A's gap is not itself
    # significant, so nothing is said of a disadvantage (docs/METHODS.md, "Gap difference")
    (line,) = [x for x in text.splitlines() if "b-vs-a WER gap" in x]
    own = res.audits[res.systems[0]].comparison("wer", "b")
    assert own.verdict == "inconclusive_underpowered"
    lo, hi = (f"{100 * x:+.1f}".replace("+0.0", "0.0") for x in (own.ci_low, own.ci_high))
    assert f"A.csv's gap of +10.0 pp [{lo}, {hi}] was inconclusive_underpowered; " in line
    assert f"B.csv's is 0.0 pp, {res.audits[res.systems[1]].comparison('wer', 'b').verdict}" in line
    assert "ΔGap -10.0 pp [" in line and "disadvantage" not in line
    # the stored comparison reads back with each system's audit: the same table as fresh
    from fairdesk.jobs.system_run import compare_stored_runs
    from fairdesk.presentation.systems import MISSING, system_table

    fresh = compare_stored_runs(p, ids, store=False).result
    head, rows = system_table(res, "wer")
    assert (head, rows) == system_table(fresh, "wer")
    assert all(MISSING not in r[1] and MISSING not in r[2] for r in rows)


def test_compare_recomputes_the_same_numbers_from_the_stored_runs(project, tmp_path, capsys):
    from fairdesk.cli import main

    p, a, b = project
    _, doc = _audit(p, a, b, tmp_path)
    ids = [s["run_id"] for s in doc["systems"]]
    out = tmp_path / "cmp.json"
    argv = ["compare", "--project", str(p.folder), "--run", str(ids[0]), "--run", str(ids[1])]
    assert main([*argv, "--json", str(out)]) == 0
    again = json.loads(out.read_text(encoding="utf-8"))
    assert again["result"] == doc["comparison"]["result"]
    # show of the baseline run lists where the systems disagree, per group
    capsys.readouterr()
    assert main(["show", "--project", str(p.folder), "--run", str(ids[0])]) == 0
    text = capsys.readouterr().out
    assert "where the systems disagree most among b:" in text
    assert "one right, one wrong" in text


def test_compare_refuses_runs_of_different_slices_and_unknown_runs(project, tmp_path, capsys):
    from fairdesk.cli import main

    p, a, b = project
    base = ["audit", "--project", str(p.folder), "--dataset", "d", *ARGS]
    assert main([*base, "--model", f"predictions:{a}"]) == 0
    assert main([*base, "--model", f"predictions:{b}", "--sample", "10"]) == 0
    capsys.readouterr()
    rc = main(["compare", "--project", str(p.folder), "--run", "1", "--run", "2"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "run 2 differs from the baseline run 1 in its sample (10 against None)" in err
    rc = main(["compare", "--project", str(p.folder), "--run", "1", "--run", "9"])
    assert rc == 2 and "no run 9 in project" in capsys.readouterr().err
    rc = main(["compare", "--project", str(p.folder), "--run", "1"])
    assert rc == 2 and "needs two runs or more" in capsys.readouterr().err


def test_a_table_with_two_hypothesis_columns_compares_them(tmp_path, capsys):
    """Each column's audit equals the single-column audit; the comparison's corpus
    difference is the pooled difference of the common rows."""
    from fairdesk.cli import main

    rng = np.random.default_rng(3)
    rows = []
    words = "the cat sat on a mat with my big red dog".split()
    for g, p_err in (("x", 0.1), ("y", 0.3)):
        for s in range(8):
            for _u in range(6):
                ref = " ".join(rng.choice(words, 6))

                def hyp(p, ref=ref):
                    return " ".join(w if rng.random() > p else "zz" for w in ref.split())

                rows.append(
                    {
                        "speaker_id": f"{g}{s}",
                        "grp": g,
                        "reference": ref,
                        "s1": hyp(p_err),
                        "s2": hyp(p_err / 2),
                    }
                )
    table = tmp_path / "t.csv"
    pd.DataFrame(rows).to_csv(table, index=False)
    common = ["audit", "--table", str(table), "--by", "grp", "--n-bootstrap", "200"]
    out2 = tmp_path / "two.json"
    assert main([*common, "--hyp-col", "s1", "--hyp-col", "s2", "--json", str(out2)]) == 0
    doc = json.loads(out2.read_text(encoding="utf-8"))
    for i, col in enumerate(("s1", "s2")):
        one = tmp_path / f"{col}.json"
        assert main([*common, "--hyp-col", col, "--json", str(one)]) == 0
        alone = json.loads(one.read_text(encoding="utf-8"))
        assert doc["systems"][i]["audit"]["groups"] == alone["groups"]
    df = pd.DataFrame(rows)

    def wer(col):
        import jiwer

        o = jiwer.process_words(list(df["reference"]), list(df[col]))
        return (o.substitutions + o.deletions + o.insertions) / sum(
            len(r.split()) for r in df["reference"]
        )

    diffs = doc["comparison"]["result"]["differences"]
    corpus = [d for d in diffs if d["metric"] == "wer" and d["group"] is None][0]
    assert corpus["difference"] == pytest.approx(wer("s2") - wer("s1"))


def test_usage_errors_of_several_systems(tmp_path, capsys):
    from fairdesk.cli import main

    t = tmp_path / "t.csv"
    t.write_text("reference,hypothesis,a,g\nx y,x y,x,1\n", encoding="utf-8")
    rc = main(["audit", "--table", str(t), "--by", "g", "--hyp-col", "a", "--hyp-col", "a"])
    assert rc == 2 and "--hyp-col lists a column twice" in capsys.readouterr().err
    rc = main(["audit", "--table", str(t), "--by", "g", "--hyp-col", "a", "--hyp-col", "zz"])
    assert rc == 2 and "--hyp-col ['zz']: no such column" in capsys.readouterr().err


def _gap_difference(a, b, lo, hi, verdict="fairer", own=None):
    from fairdesk.stats.system_results import GapDifference

    return GapDifference(
        metric="wer",
        system="B",
        baseline="A",
        group="child",
        reference="adult",
        gap=b,
        baseline_gap=a,
        difference=b - a,
        ci_low=lo,
        ci_high=hi,
        p_value=0.001,
        p_adjusted=0.01,
        mde=0.02,
        threshold=0.05,
        estimator="speaker",
        n_blocks=None,
        design="unmatched",
        verdict=verdict,
        **(own or {}),
    )


def test_gap_sentence_names_both_gaps_and_a_disadvantage_only_where_the_gap_is_significant():
    """docs/METHODS.md, "Gap difference": both gaps with their own CIs and verdicts; the
    disadvantage narrowed / widened / moved only for a gap that is itself significant."""
    from fairdesk.presentation.systems import gap_sentence

    def own(ca, va, cb, vb):
        return dict(baseline_gap_ci=ca, baseline_gap_verdict=va, gap_ci=cb, gap_verdict=vb)

    # A's gap significant, B's smaller: the disadvantage narrowed, with the CI of the change
    s = gap_sentence(
        _gap_difference(
            0.10,
            0.039,
            -0.103,
            -0.020,
            own=own(
                (0.04, 0.16), "disparity_detected", (-0.01, 0.088), "inconclusive_underpowered"
            ),
        )
    )
    assert s == (
        "B vs A, child-vs-adult WER gap: A's gap of +10.0 pp [+4.0, +16.0] was "
        "disparity_detected; B's is +3.9 pp [-1.0, +8.8], inconclusive_underpowered; ΔGap "
        "-6.1 pp [-10.3, -2.0], p_adj 0.010: fairer; the disadvantage narrowed by 6.1 pp "
        "[2.0, 10.3]"
    )
    # negative gaps (the reference worse), B's larger in size: widened
    s = gap_sentence(
        _gap_difference(
            -0.06,
            -0.14,
            -0.12,
            -0.04,
            "less_fair",
            own((-0.1, -0.02), "disparity_detected", (-0.2, -0.08), "disparity_detected"),
        )
    )
    assert s.endswith("less fair; the disadvantage widened by 8.0 pp [4.0, 12.0]")
    # the case: A's gap inconclusive, B's on the other side and significant. The
    # verdict code stays reversed (ΔGap significant and practical), but nothing is said of a
    # disadvantage that moved: only the numbers
    s = gap_sentence(
        _gap_difference(
            -0.115,
            0.147,
            0.10,
            0.40,
            "reversed",
            own((-0.32, 0.073), "inconclusive_underpowered", (0.02, 0.27), "disparity_detected"),
        )
    )
    assert s == (
        "B vs A, child-vs-adult WER gap: A's gap of -11.5 pp [-32.0, +7.3] was "
        "inconclusive_underpowered; B's is +14.7 pp [+2.0, +27.0], disparity_detected; ΔGap "
        "+26.2 pp [+10.0, +40.0], p_adj 0.010: reversed (the gap changed sign)"
    )
    assert "disadvantage" not in s
    # both gaps significant on opposite sides: the disadvantage moved
    s = gap_sentence(
        _gap_difference(
            0.115,
            -0.147,
            -0.40,
            -0.10,
            "reversed",
            own((0.05, 0.2), "disparity_detected", (-0.27, -0.02), "disparity_detected"),
        )
    )
    assert s.endswith("reversed (the gap changed sign); the disadvantage moved to the other side")
    # A's significant but B's on the other side is not: no move is claimed
    s = gap_sentence(
        _gap_difference(
            0.115,
            -0.06,
            -0.30,
            -0.10,
            "reversed",
            own((0.05, 0.2), "disparity_detected", (-0.15, 0.03), "inconclusive_underpowered"),
        )
    )
    assert "disadvantage" not in s
    # without the per-system audits (older stored runs): both gaps as numbers, nothing more
    s = gap_sentence(_gap_difference(0.10, 0.039, -0.103, -0.020))
    assert s == (
        "B vs A, child-vs-adult WER gap: A's gap of +10.0 pp; B's is +3.9 pp; ΔGap -6.1 pp "
        "[-10.3, -2.0], p_adj 0.010: fairer"
    )


def test_disagreements_rank_one_right_one_wrong_first():
    from fairdesk.review.ranking import disagreements

    base = pd.DataFrame(
        {
            "item_id": ["1", "2", "3", "4"],
            "group": ["g", "g", "g", "h"],
            "speaker_id": ["s1", "s1", "s2", "s3"],
            "reference": ["a b c d"] * 4,
            "hypothesis": ["a b c d", "a b", "a", "a b c d"],
            "n_words": [4, 4, 4, 4],
            "n_sub": [0, 0, 0, 0],
            "n_del": [0, 2, 3, 0],
            "n_ins": [0, 0, 0, 0],
        }
    )
    other = base.copy()
    other["hypothesis"] = ["a", "a b c d", "a b", "a b c d"]
    other["n_del"] = [3, 0, 2, 0]
    out = disagreements({"A": base, "B": other}, per_group=5)
    assert list(out) == ["g"]  # item 4: same errors, no disagreement
    ids = [r["item_id"] for r in out["g"]]
    # items 1 (A right, B 3 errors) and 2 (B right) are one-right; 1 differs by 3, 2 by 2
    assert ids == ["1", "2", "3"]
    assert out["g"][0]["errors"] == {"A": 0, "B": 3} and out["g"][0]["one_right"]
    assert not out["g"][2]["one_right"]


def test_a_system_missing_items_is_compared_against_the_baselines_reference(project, tmp_path):
    """Issue 44: the second system lacks 5 items of group a, so its largest group is b;
    without --reference both per-system audits still compare against the baseline's
    reference group (the gaps keep their sign)."""
    from fairdesk.jobs.audit import AuditRequest
    from fairdesk.jobs.system_run import audit_systems
    from fairdesk.stats.settings import AuditSettings

    p, a, _b = project
    short = tmp_path / "short.csv"
    lines = a.read_text(encoding="utf-8").splitlines()
    dropped = [ln for ln in lines if ln.startswith("a/0_") or ln.startswith('"a/0_')]
    assert len(dropped) == N_SENT
    short.write_text("\n".join(ln for ln in lines if ln not in dropped) + "\n", encoding="utf-8")
    req = AuditRequest(
        dataset="d",
        model="x",
        by=("accent",),
        nlu="none",
        settings=AuditSettings(n_bootstrap=200, min_items=5, min_speakers=2),
    )
    out = audit_systems(p, req, [f"predictions:{a}", f"predictions:{short}"])
    base, second = out.runs
    assert len(second.failures) == N_SENT
    assert base.reference == second.reference == "a"
    gb, gs = (r.comparison("wer", "b").gap for r in (base, second))
    assert gb > 0 and gs > 0
