"""``fairdesk audit --table`` and ``fairdesk regress --table``: no audio, no project."""

import json

import jiwer
import numpy as np
import pandas as pd
import pytest

from fairdesk.cli import main
from fairdesk.metrics import english

COMPARISON_FIELDS = {
    "metric",
    "group",
    "reference",
    "value",
    "reference_value",
    "gap",
    "ratio",
    "effect_size",
    "ci_low",
    "ci_high",
    "p_value",
    "p_adjusted",
    "mde",
    "estimator",
    "n_blocks",
    "design",
    "verdict",
    "direction",
    "flags",
    "n_items",
    "n_speakers",
    "reading",
}


def _table(tmp_path, fmt="csv"):
    rng = np.random.default_rng(3)
    sents = [
        f"play track {w} from the {v} album"
        for w, v in zip(
            "one two three four five six seven eight nine ten eleven twelve".split(),
            "red blue green white black gold pink grey brown teal navy plum".split(),
        )
    ]
    rows = []
    for acc, p, n_spk in (
        ("us", 0.03, 12),
        ("scot", 0.25, 12),
        ("nyc", 0.04, 12),
        ("tiny", 0.1, 2),
    ):
        for s in range(n_spk):
            for c, t in enumerate(sents):
                words = t.split()
                hyp = " ".join(w if rng.random() > p else "zzz" for w in words)
                intent_ok = rng.random() > p
                rows.append(
                    {
                        "ref": t,
                        "hyp": hyp,
                        "spk": f"{acc}{s}",
                        "content_id": f"c{c}",
                        "accent": acc,
                        "gender": "f" if s % 2 else "m",
                        "intent": "PlayMusic",
                        "hyp_intent": "PlayMusic" if intent_ok else "Pause",
                    }
                )
    df = pd.DataFrame(rows)
    path = tmp_path / f"t.{fmt}"
    if fmt == "csv":
        df.to_csv(path, index=False)
    elif fmt == "parquet":
        df.to_parquet(path)
    else:
        df.to_json(path, orient="records", lines=True)
    return df, path


@pytest.mark.parametrize("fmt", ["csv", "parquet", "jsonl"])
def test_audit_table_json(tmp_path, capsys, fmt):
    df, path = _table(tmp_path, fmt)
    out = tmp_path / "o.json"
    code = main(
        [
            "audit",
            "--table",
            str(path),
            "--ref-col",
            "ref",
            "--hyp-col",
            "hyp",
            "--speaker-col",
            "spk",
            "--by",
            "accent",
            "--n-bootstrap",
            "400",
            "--json",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    res = json.loads(out.read_text())
    assert res["reference"] in ("us", "scot", "nyc")
    groups = {g["group"]: {**g, **g["values"]} for g in res["groups"]}
    assert groups["tiny"]["excluded"] and "speakers" in groups["tiny"]["reason"]
    assert {e["group"] for e in res["excluded"]} == {"tiny"}
    # group WER equals jiwer's on the same normalised strings
    for acc, g in groups.items():
        sub = df[df["accent"] == acc]
        want = jiwer.wer([english(r) for r in sub["ref"]], [english(h) for h in sub["hyp"]])
        assert g["values"]["wer"] == pytest.approx(want, abs=1e-12)
        o = jiwer.process_words([english(r) for r in sub["ref"]], [english(h) for h in sub["hyp"]])
        n = o.hits + o.substitutions + o.deletions
        assert g["sub_rate"] == pytest.approx(o.substitutions / n)  # reported, not tested
        assert g["del_rate"] == pytest.approx(o.deletions / n)
        assert g["n_items"] == len(sub) and g["n_speakers"] == sub["spk"].nunique()
    comps = res["comparisons"]
    assert comps and all(set(c) >= COMPARISON_FIELDS for c in comps)
    metrics = {c["metric"] for c in comps}
    assert {"wer", "cer", "em", "intent_accuracy"} <= metrics
    assert "sub_rate" not in metrics and "sub_rate" in res["descriptive_metrics"]
    scot = [c for c in comps if c["group"] == "scot" and c["metric"] == "wer"][0]
    assert scot["verdict"] == "disparity_detected" and scot["direction"] == "worse"
    assert scot["ci_low"] > 0 and scot["estimator"] == "two_way"
    assert res["summary"]["wer"]["worst_group"] == "scot"
    # per-group intent confusion matrices sum to the group sizes
    for acc, m in res["intent_confusion"].items():
        assert sum(map(sum, m["matrix"])) == (df["accent"] == acc).sum()
        rows = dict(zip(m["true"], m["matrix"]))
        assert sum(rows["Pause"]) == 0  # no reference says Pause
        pred = dict(zip(m["predicted"], rows["PlayMusic"]))
        sub = df[df["accent"] == acc]
        assert pred["Pause"] == (sub["hyp_intent"] == "Pause").sum()
    assert set(res["settings"]) >= {
        "n_bootstrap",
        "seed",
        "alpha",
        "absolute_error_gap",
        "disparity_ratio",
        "grounding_gap",
        "min_items",
        "min_speakers",
        "normaliser",
    }


def test_audit_table_same_request_same_numbers(tmp_path):
    _df, path = _table(tmp_path)
    outs = []
    for i in range(2):
        o = tmp_path / f"o{i}.json"
        main(
            [
                "audit",
                "--table",
                str(path),
                "--ref-col",
                "ref",
                "--hyp-col",
                "hyp",
                "--speaker-col",
                "spk",
                "--by",
                "accent",
                "--by",
                "gender",
                "--metric",
                "wer",
                "--n-bootstrap",
                "300",
                "--min-speakers",
                "2",
                "--json",
                str(o),
                "--quiet",
            ]
        )
        outs.append(json.loads(o.read_text()))
    assert outs[0]["comparisons"] == outs[1]["comparisons"]
    assert any(" × " in g["group"] for g in outs[0]["groups"])


def test_audit_table_usage_errors(tmp_path, capsys):
    _df, path = _table(tmp_path)
    assert main(["audit", "--table", str(path), "--by", "accent", "--quiet"]) == 2
    assert "no column 'reference'" in capsys.readouterr().err
    # exit code 2 alone would also pass on any internal ValueError: check what it says
    assert (
        main(
            [
                "audit",
                "--table",
                str(path),
                "--ref-col",
                "ref",
                "--hyp-col",
                "hyp",
                "--by",
                "accent",
                "--metric",
                "nope",
                "--quiet",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.startswith("fairdesk audit: unknown metric id(s) ['nope']")
    assert "valid ids are: wer," in err
    assert (
        main(
            [
                "audit",
                "--table",
                str(path),
                "--ref-col",
                "ref",
                "--hyp-col",
                "hyp",
                "--by",
                "accent",
                "--filter",
                "accent=us",
                "--quiet",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "['accent'] can't be both a filter and a grouping key" in err
    assert (
        main(
            [
                "audit",
                "--table",
                str(path),
                "--ref-col",
                "ref",
                "--hyp-col",
                "hyp",
                "--by",
                "accent",
                "--n-bootstrap",
                "50",
                "--quiet",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "n_bootstrap must be in 200..20000, got 50" in err
    assert "Traceback" not in err


def test_regress_table(tmp_path, capsys):
    _df, path = _table(tmp_path)
    out = tmp_path / "r.json"
    code = main(
        [
            "regress",
            "--table",
            str(path),
            "--ref-col",
            "ref",
            "--hyp-col",
            "hyp",
            "--outcome",
            "correct",
            "--vars",
            "accent",
            "gender",
            "--reference",
            "accent=us",
            "--cluster",
            "spk",
            "--json",
            str(out),
        ]
    )
    assert code == 0, capsys.readouterr().err
    r = json.loads(out.read_text())
    uni = {u["variable"]: u for u in r["univariate"]}
    assert uni["accent"]["reference"] == "us"
    scot = [lv for lv in uni["accent"]["levels"] if lv["level"] == "scot"][0]
    assert scot["odds_ratio"] < 1 and scot["p_value"] < 0.05
    assert {(a["variable"], a["adjusted_on"]) for a in r["adjustments"]} == {
        ("accent", "gender"),
        ("gender", "accent"),
    }
    assert r["clustered"] and r["independence"] and r["conclusions"]


def test_table_audit_tonal_language(tmp_path):
    """Igbo transcripts: the basic normaliser keeps tone marks, the run records it, and the
    diacritic metrics follow METHODS §2 on a hand-counted example."""
    rows = []
    for g, hyp in (("a", "akwa akwà àkwà ákwá"), ("b", "akwa akwa akwa akwa")):
        for s in range(6):
            for c in range(6):
                rows.append(
                    {
                        "reference": "akwa akwà àkwà ákwá",
                        "hypothesis": hyp,
                        "speaker_id": f"{g}{s}",
                        "content_id": f"c{c}",
                        "dialect": g,
                    }
                )
    path = tmp_path / "ig.jsonl"
    pd.DataFrame(rows).to_json(path, orient="records", lines=True, force_ascii=False)
    out = tmp_path / "o.json"
    assert (
        main(
            [
                "audit",
                "--table",
                str(path),
                "--by",
                "dialect",
                "--language",
                "ig",
                "--min-items",
                "10",
                "--n-bootstrap",
                "200",
                "--json",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    res = json.loads(out.read_text())
    assert res["settings"]["normaliser"] == "whisper-basic"
    g = {x["group"]: {**x, **x["values"]} for x in res["groups"]}
    # reference: akwà, àkwà (2 marked letters), ákwá (2) -> E = 1 + 2 + 2 = 5 per item
    assert g["a"]["values"]["wer"] == 0 and g["b"]["values"]["wer"] == pytest.approx(3 / 4)
    assert g["b"]["der"] == pytest.approx(1.0) and g["b"]["diacritic_net_loss"] == 1.0
    assert g["a"]["der"] == 0.0


def test_table_empty_reference_is_a_problem_and_empty_hypothesis_counts_as_deletions(
    tmp_path, capsys
):
    """METHODS §2: a row without a reference is a problem named by its file line and left
    out; an empty hypothesis is a real output scored as all deletions."""
    rows = ["item_id,reference,hypothesis,speaker_id,g"]
    for i in range(8):
        rows.append(f"a{i},play the red album,play the red album,sa{i % 4},a")
        rows.append(f"b{i},play the red album,{'' if i == 0 else 'play the red album'},sb{i % 4},b")
    rows.insert(3, "bad,,play it now,sa0,a")  # line 4 of the file
    path = tmp_path / "t.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "o.json"
    assert (
        main(
            [
                "audit",
                "--table",
                str(path),
                "--by",
                "g",
                "--min-items",
                "2",
                "--min-speakers",
                "2",
                "--n-bootstrap",
                "200",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    res = json.loads(out.read_text())
    assert [(p["line"], p.get("item")) for p in res["problems"]] == [(4, "bad")]
    g = {x["group"]: {**x, **x["values"]} for x in res["groups"]}
    assert g["a"]["n_items"] == 8 and g["a"]["values"]["wer"] == 0.0
    # one empty hypothesis of 4 reference words in 8 items of 4 words: 4 deletions / 32
    assert g["b"]["values"]["wer"] == pytest.approx(4 / 32)
    assert any("empty hypothesis" in w for w in res["warnings"])
    printed = capsys.readouterr()
    # said once, with the table's rows, on stderr (issue 29)
    assert f"{path}: line 4: item bad: empty reference" in printed.err
    assert "16 of 17 rows used; 1 refused:" in printed.err


def test_table_classification_labels_without_transcripts(tmp_path):
    """A table with true and predicted labels and no transcript columns is auditable: the
    accuracy per group equals a direct count."""
    rng = np.random.default_rng(5)
    rows = []
    for g, p_ok in (("a", 0.9), ("b", 0.6)):
        for i in range(60):
            lab = rng.choice(["yes", "no"])
            pred = lab if rng.random() < p_ok else ("no" if lab == "yes" else "yes")
            rows.append(
                {
                    "item_id": f"{g}{i}",
                    "label": lab,
                    "predicted_label": pred,
                    "speaker_id": f"{g}s{i % 12}",
                    "g": g,
                }
            )
    df = pd.DataFrame(rows)
    path = tmp_path / "cls.csv"
    df.to_csv(path, index=False)
    out = tmp_path / "o.json"
    assert (
        main(
            ["audit", "--table", str(path), "--by", "g", "--n-bootstrap", "200", "--json", str(out)]
        )
        == 0
    )
    res = json.loads(out.read_text())
    acc = {x["group"]: x["values"]["accuracy"] for x in res["groups"]}
    for g, sub in df.groupby("g"):
        assert acc[g] == pytest.approx((sub["label"] == sub["predicted_label"]).mean())
    assert any(c["metric"] == "accuracy" for c in res["comparisons"])
    assert not any(c["metric"] == "macro_recall" for c in res["comparisons"])


def test_regress_table_scores_its_own_texts_over_stale_count_columns(tmp_path, capsys):
    # an exported run carries n_words etc.; read back from CSV they are text (once a
    # traceback comparing str with int), and the counts scored from the table's own
    # reference and hypothesis are the ones used: the fit equals the clean table's
    df, path = _table(tmp_path)
    df = df.assign(dur=np.linspace(1.0, 3.0, len(df)))
    stale = tmp_path / "stale.csv"
    df.to_csv(path, index=False)
    df.assign(n_words="999", n_sub="x").to_csv(stale, index=False)
    fits = []
    for table in (path, stale):
        out = tmp_path / f"{table.stem}.json"
        args = ["regress", "--table", str(table), "--ref-col", "ref", "--hyp-col", "hyp"]
        args += ["--family", "linear", "--covariates", "dur", "--vars", "accent"]
        code = main([*args, "--json", str(out)])
        err = capsys.readouterr().err
        assert code == 0, err
        assert "Traceback" not in err
        fits.append(json.loads(out.read_text()))
    # the table's 'spk' column is its speaker column (the one rule): one row per speaker
    assert fits[0]["n"] == fits[1]["n"] == df["spk"].nunique()
    assert fits[0]["coefficients"] == fits[1]["coefficients"]
    assert fits[0]["r2"] == fits[1]["r2"]


#: The keys ``fairdesk audit --table ... --json`` wrote before the typed result (main's
#: producers, this table with --normaliser-sensitivity --model-based).
OLD_TABLE_KEYS = {
    "bootstrap", "by", "comparisons", "descriptive_metrics", "design", "excluded", "failures",
    "from_cache", "groups", "input_problems", "intent_confusion", "minimums_message",
    "model_based", "normaliser", "normaliser_sensitivity", "phone_confusion", "pitfalls",
    "problems", "reference", "settings", "summary", "table", "tested_metrics", "timings",
    "warnings", "word_positions",
}  # fmt: skip
OLD_TABLE_SETTINGS = {
    "absolute_error_gap", "alpha", "bootstrap_raise", "by", "disparity_ratio", "filters",
    "grounding_gap", "language", "max_items", "min_items", "min_speakers", "n_bootstrap",
    "n_bootstrap_used", "normaliser", "normaliser_reason", "resampling", "seed",
    "small_cluster_scaling", "structure_threshold",
}  # fmt: skip


def test_table_json_keeps_todays_keys_plus_schema_version(tmp_path):
    from fairdesk.jobs.result import AuditRun

    _df, path = _table(tmp_path)
    out = tmp_path / "o.json"
    args = ["audit", "--table", str(path), "--ref-col", "ref", "--hyp-col", "hyp"]
    args += ["--speaker-col", "spk", "--by", "accent", "--n-bootstrap", "200"]
    args += ["--normaliser-sensitivity", "--model-based", "--quiet", "--json", str(out)]
    assert main(args) == 0
    d = json.loads(out.read_text())
    # table_rows: the rows used and refused (issue 29), added; plan (issue 32) only where a
    # comparison is inconclusive_underpowered
    # speakers: the column the speaker ids came from (issue 44)
    new = {"schema_version", "table_rows", "speakers"}
    assert set(d) - {"plan"} == OLD_TABLE_KEYS | new and d["schema_version"] == 2
    under = any(c["verdict"] == "inconclusive_underpowered" for c in d["comparisons"])
    assert ("plan" in d) == under
    # plus the settings added since: include_missing (docs/METHODS.md, "Missing values")
    assert set(d["settings"]) == OLD_TABLE_SETTINGS | {"include_missing"}
    assert d["settings"]["language"] == "auto" and d["settings"]["by"] == ["accent"]
    assert d["table"] == str(path) and d["failures"] == [] and d["from_cache"] is False
    # the group values live under values only; the JSON opens as the typed run it came from
    for g in d["groups"]:
        assert "wer" in g["values"] and "wer" not in g
    run = AuditRun.from_json(d)
    # --json is the run's JSON with each comparison's reading written in at output time
    from fairdesk.presentation.readings import readings_json

    assert all("reading" in c for c in d["comparisons"])
    assert json.loads(json.dumps(readings_json(run.to_json(), run))) == d
    assert run.normaliser_sensitivity.n_comparisons == d["normaliser_sensitivity"]["n_comparisons"]


def test_small_cluster_scaling_is_on_by_default_and_no_small_cluster_scaling_turns_it_off(
    tmp_path,
):
    """An unmatched table (every utterance its own sentence: the speaker scheme), 8 speakers
    per group: by default its gap CI is scaled by √(8/7) · t_{0.975,7}/z (docs/METHODS.md, "Small numbers of
    speakers") and the settings say so; ``--no-small-cluster-scaling`` records off and gives
    the plain interval, from the same draws."""
    import math

    rng = np.random.default_rng(9)
    rows = []
    for acc, p in (("us", 0.1), ("scot", 0.2)):
        for s in range(8):
            for u in range(6):
                words = f"play song {acc} {s} {u} now please".split()
                hyp = " ".join(w if rng.random() > p else "zzz" for w in words)
                rows.append({"ref": " ".join(words), "hyp": hyp, "spk": f"{acc}{s}", "accent": acc})
    path = tmp_path / "t.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    base = ["audit", "--table", str(path), "--ref-col", "ref", "--hyp-col", "hyp"]
    base += ["--speaker-col", "spk", "--by", "accent", "--reference", "us", "--metric", "wer"]
    base += ["--n-bootstrap", "200", "--min-items", "5", "--min-speakers", "2", "--quiet"]
    out = {}
    for name, extra in (
        ("default", []),
        ("on", ["--small-cluster-scaling"]),
        ("off", ["--no-small-cluster-scaling"]),
    ):
        o = tmp_path / f"{name}.json"
        assert main([*base, *extra, "--json", str(o)]) == 0
        out[name] = json.loads(o.read_text())
    assert out["default"]["settings"]["small_cluster_scaling"] is True
    assert out["on"]["settings"]["small_cluster_scaling"] is True
    assert out["off"]["settings"]["small_cluster_scaling"] is False
    (on,) = out["default"]["comparisons"]
    (off,) = out["off"]["comparisons"]
    assert on["estimator"] == off["estimator"] == "speaker"
    assert "small_cluster_scaled" in on["flags"] and "small_cluster_scaled" not in off["flags"]
    from scipy.stats import norm, t

    f = math.sqrt(8 / 7) * t.ppf(0.975, 7) / norm.ppf(0.975)  # 8 speakers a side
    assert on["ci_high"] - on["ci_low"] == pytest.approx(
        f * (off["ci_high"] - off["ci_low"]), rel=1e-9
    )
    assert out["on"]["comparisons"] == out["default"]["comparisons"]
