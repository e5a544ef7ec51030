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
    assert "narrows the b-vs-a WER gap by 10.0 pp" in text
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


def test_gap_sentence_reads_the_change_in_the_gap_with_its_own_ci():
    from fairdesk.presentation.systems import gap_sentence
    from fairdesk.stats.system_results import GapDifference

    def gd(a, b, lo, hi, verdict="fairer"):
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
        )

    # child worse under both; B's gap smaller: narrows, the CI of the narrowing is positive
    s = gap_sentence(gd(0.10, 0.039, -0.103, -0.020))
    assert s == "B narrows the child-vs-adult WER gap by 6.1 pp [2.0, 10.3], p_adj 0.010: fairer"
    # child better under both (negative gaps); B's gap larger in size: widens
    s = gap_sentence(gd(-0.02, -0.10, -0.12, -0.04, "less_fair"))
    assert s.startswith("B widens the child-vs-adult WER gap by 8.0 pp [4.0, 12.0]")
    # the sign flips: both gaps and ΔGap are shown
    s = gap_sentence(gd(0.08, -0.07, -0.2, -0.1, "reversed"))
    assert "turns the child-vs-adult WER gap from +8.0 pp to -7.0 pp (ΔGap -15.0 pp" in s


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
