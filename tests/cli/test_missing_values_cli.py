"""``fairdesk audit --table`` with missing grouping values (docs/METHODS.md, "Missing values"):
a descriptive row by default, the tested group ``(missing)`` with ``--include-missing``; a
column without values is refused; the console, the JSON and the API show it."""

import json

import jiwer
import numpy as np
import pandas as pd
import pytest

import fairdesk
from fairdesk.cli import EXIT_USAGE, main
from fairdesk.jobs.result import AuditRun
from fairdesk.metrics import english

SENTS = [
    f"play track {w} from the {v} album"
    for w, v in zip(
        "one two three four five six seven eight nine ten".split(),
        "red blue green white black gold pink grey brown teal".split(),
    )
]


def _table(tmp_path, blank_speakers=8):
    """us 13 speakers (few errors), uk 12 (more), and speakers with no accent (an empty
    cell, only spaces, or a JSON list in the JSONL file); 10 shared sentences."""
    rng = np.random.default_rng(5)
    rows = []
    for acc, p, n_spk in (("us", 0.03, 13), ("uk", 0.2, 12), (None, 0.3, blank_speakers)):
        for s in range(n_spk):
            for c, t in enumerate(SENTS):
                hyp = " ".join(w if rng.random() > p else "zzz" for w in t.split())
                value = acc if acc else [None, "   ", ["a", "b"], {"x": 1}][s % 4]
                rows.append(
                    {
                        "ref": t,
                        "hyp": hyp,
                        "spk": f"{acc}{s}",
                        "content_id": f"c{c}",
                        "accent": value,
                    }
                )
    df = pd.DataFrame(rows)
    path = tmp_path / "t.jsonl"
    df.to_json(path, orient="records", lines=True)
    return df, path


def _audit(path, *extra, json_out=None):
    args = ["audit", "--table", str(path), "--ref-col", "ref", "--hyp-col", "hyp"]
    args += ["--speaker-col", "spk", "--by", "accent", "--n-bootstrap", "200", *extra]
    if json_out is not None:
        args += ["--json", str(json_out)]
    return main(args)


def _blank(v):
    return v is None or isinstance(v, (list, dict)) or (isinstance(v, str) and not v.strip())


def test_default_descriptive_row_in_console_and_json(tmp_path, capsys):
    df, path = _table(tmp_path)
    out = tmp_path / "o.json"
    assert _audit(path, json_out=out) == 0
    text = capsys.readouterr().out
    res = json.loads(out.read_text())
    assert res["reference"] == "us"
    assert {c["group"] for c in res["comparisons"]} == {"uk"}  # no (missing) tested
    row = res["groups"][-1]
    assert row["group"] == "no value for accent" and row["missing"] is True
    assert not row["excluded"] and res["excluded"] == []
    blank = df[df["accent"].map(_blank)]
    assert row["n_items"] == len(blank) == 80 and row["n_speakers"] == 8
    want = jiwer.wer([english(r) for r in blank["ref"]], [english(h) for h in blank["hyp"]])
    assert row["values"]["wer"] == pytest.approx(want, abs=1e-12)
    lo, hi = row["ci"]["wer"]
    assert lo < want < hi
    overall = res["summary"]["wer"]["overall"]
    every = jiwer.wer([english(r) for r in df["ref"]], [english(h) for h in df["hyp"]])
    assert overall["value"] == pytest.approx(every, abs=1e-12)  # the corpus includes them
    assert overall["n_missing"] == 80 and overall["n_items"] == len(df)
    assert res["settings"]["include_missing"] is False
    # the console: the row marked and explained, the corpus line says what it pools
    lines = text.splitlines()
    shown = [ln for ln in lines if ln.startswith("no value for accent *")]
    assert len(shown) == 1 and "80" in shown[0]
    assert any(ln.startswith("(corpus, incl. no value)") and " 330 " in ln for ln in lines)
    assert any(
        ln.startswith("* no value for accent (80 items): described") and "not in Holm" in ln
        for ln in lines
    )
    assert "the corpus value pools the analysed groups and the 80 items with no grouping" in text
    assert "(missing)" not in text.split("WER against")[1].split("\n\n")[0]
    # the run reads back typed
    run = AuditRun.from_json(res)
    assert run.group("no value for accent").missing and not run.group("uk").missing


def test_include_missing_tests_the_group_and_keeps_the_reference(tmp_path, capsys):
    df, path = _table(tmp_path, blank_speakers=16)  # (missing) is the largest group
    out = tmp_path / "o.json"
    assert _audit(path, "--include-missing", json_out=out) == 0
    text = capsys.readouterr().out
    res = json.loads(out.read_text())
    groups = {g["group"]: g for g in res["groups"]}
    assert groups["(missing)"]["n_items"] == 160 == max(g["n_items"] for g in res["groups"])
    assert res["reference"] == "us"  # never the default reference
    assert {c["group"] for c in res["comparisons"]} == {"uk", "(missing)"}
    miss = [c for c in res["comparisons"] if c["group"] == "(missing)" and c["metric"] == "wer"]
    assert miss[0]["p_adjusted"] is not None and miss[0]["verdict"] == "disparity_detected"
    assert not any(g["missing"] for g in res["groups"])
    assert res["settings"]["include_missing"] is True
    assert "  (missing)" in text and "no value for accent" not in text
    # named explicitly, (missing) can be the reference
    assert _audit(path, "--include-missing", "--reference", "(missing)", json_out=out) == 0
    assert json.loads(out.read_text())["reference"] == "(missing)"


def test_the_no_value_row_is_no_reference(tmp_path, capsys):
    _df, path = _table(tmp_path)
    assert _audit(path, "--reference", "(missing)", "--quiet") == EXIT_USAGE
    err = capsys.readouterr().err
    assert "not a group" in err and "--include-missing" in err


def test_a_column_without_values_is_a_usage_error(tmp_path, capsys):
    df, _ = _table(tmp_path)
    df["accent"] = [[[], "  ", None, {"k": 1}][i % 4] for i in range(len(df))]
    path = tmp_path / "none.jsonl"
    df.to_json(path, orient="records", lines=True)
    for extra in ((), ("--include-missing",)):
        assert _audit(path, *extra, "--quiet") == EXIT_USAGE
        err = capsys.readouterr().err
        assert f"The grouping column 'accent' has no values: all {len(df)} items have none" in err


def test_api_include_missing(tmp_path):
    df, _ = _table(tmp_path)
    kw = dict(by="accent", ref_col="ref", hyp_col="hyp", speaker_col="spk", n_bootstrap=200)
    run = fairdesk.audit_table(df, **kw)
    assert run.groups[-1].missing and run.settings.include_missing is False
    assert {c.group for c in run.comparisons} == {"uk"}
    run = fairdesk.audit_table(df, include_missing=True, **kw)
    assert run.settings.include_missing is True
    assert "(missing)" in {c.group for c in run.comparisons}


def test_export_groups_marks_the_row(tmp_path):
    from fairdesk.reports.data import RunData
    from fairdesk.reports.tables import groups_table

    df, _ = _table(tmp_path)
    run = fairdesk.audit_table(
        df, by="accent", ref_col="ref", hyp_col="hyp", speaker_col="spk", n_bootstrap=200
    )
    t = groups_table(RunData(project=None, run_id=1, payload=run, items=df))
    rows = t[t["metric"] == "wer"].set_index("group")
    assert bool(rows.loc["no value for accent", "no_value"]) is True
    assert not rows.loc[["us", "uk", "(all groups)"], "no_value"].any()
    assert rows.loc["no value for accent", "n_items"] == 80
    assert rows.loc["(all groups)", "n_items"] == len(df)


def test_diacritics_table_describes_items_without_a_category(tmp_path, capsys):
    rows = [("akwà", "akwa", "tone"), ("àkwà", "akwà", "tone"), ("òkè", "oke", " ")]
    rows += [("ákwá", "akwa", None), ("oke", "oke", "plain")]
    path = tmp_path / "d.csv"
    pd.DataFrame(rows, columns=["reference", "hypothesis", "category"]).to_csv(path, index=False)
    out = tmp_path / "d.json"
    base = ["diacritics", "--table", str(path), "--n-bootstrap", "200"]
    assert main([*base, "--json", str(out)]) == 0
    text = capsys.readouterr().out
    t = json.loads(out.read_text())
    cats = [c["category"] for c in t["categories"]]
    assert cats == ["plain", "tone", "no value for category"]
    row = t["categories"][-1]
    # òkè → oke drops 2 of 2, ákwá → akwa drops 2 of 2: net loss 4/4
    assert row["missing"] and row["n_items"] == 2 and row["expected"] == 4
    assert row["rates"]["net_loss"]["value"] == 1.0
    assert t["overall"]["n_items"] == 5 and t["overall"]["n_missing"] == 2
    assert "\nno value for category *    2 " in text and "\noverall, incl. no value    5 " in text
    assert "* items with no category value (2): described, not a category" in text
    assert main([*base, "--include-missing", "--json", str(out)]) == 0
    t = json.loads(out.read_text())
    assert [c["category"] for c in t["categories"]] == ["(missing)", "plain", "tone"]
