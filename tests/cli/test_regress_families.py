"""``fairdesk regress --family logit|linear|poisson-mixed`` on a table, with --filter."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from fairdesk.cli import main


def _table(tmp_path):
    rng = np.random.default_rng(11)
    words = "play the next song from the blue album right now please".split()
    rows = []
    for acc, p, n_spk in (("us", 0.05, 10), ("scot", 0.2, 10)):
        for s in range(n_spk):
            onset = int(rng.integers(0, 20))
            for c in range(6):
                hyp = " ".join(w if rng.random() > p + 0.01 * onset else "zzz" for w in words)
                rows.append(
                    {
                        "ref": " ".join(words),
                        "hyp": hyp,
                        "speaker_id": f"{acc}{s}",
                        "content_id": f"c{c}",
                        "accent": acc,
                        "age_onset": onset,
                        "kind": "short" if c < 3 else "long",
                        "gender": "f" if s % 2 else "m",
                    }
                )
    path = tmp_path / "t.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _run(tmp_path, capsys, *args):
    out = tmp_path / "o.json"
    code = main(
        [
            "regress",
            "--table",
            str(_table(tmp_path)),
            "--ref-col",
            "ref",
            "--hyp-col",
            "hyp",
            *args,
            "--json",
            str(out),
        ]
    )
    cap = capsys.readouterr()
    assert code == 0, cap.err
    return json.loads(out.read_text()), cap.out


def test_poisson_mixed_family(tmp_path, capsys):
    r, printed = _run(
        tmp_path,
        capsys,
        "--family",
        "poisson-mixed",
        "--vars",
        "accent",
        "--reference",
        "accent=us",
        "--covariates",
        "age_onset",
    )
    assert r["family"] == "poisson-mixed"
    lev = r["group_variables"][0]["levels"][0]
    assert lev["level"] == "scot" and lev["rate_ratio"] > 1
    assert r["tracing"] and r["conclusions"][0] in printed


def test_linear_family_per_speaker(tmp_path, capsys):
    r, printed = _run(
        tmp_path, capsys, "--family", "linear", "--covariates", "age_onset", "--vars", "accent"
    )
    assert r["family"] == "linear" and r["level"] == "speaker" and r["n"] == 20
    co = {c["term"]: c for c in r["coefficients"]}
    assert co["age_onset"]["estimate"] > 0 and "Spearman" in printed


def test_logit_family_prints_adjusted_ors_and_filter_subsets(tmp_path, capsys):
    r, printed = _run(
        tmp_path,
        capsys,
        "--outcome",
        "correct",
        "--vars",
        "accent",
        "gender",
        "--filter",
        "kind=short",
    )
    assert "adjusted on" in printed and "Per-speaker" in printed
    assert r["univariate"][0]["n"] == 60  # 20 speakers x 3 short sentences
    tab = r["outcome_chi2"][0]["table"]
    assert sum(sum(v.values()) for v in tab.values()) == 60
    df = pd.read_csv(tmp_path / "t.csv")
    assert len(df) == 120


def test_bad_family_options_are_usage_errors(tmp_path, capsys):
    path = _table(tmp_path)
    base = ["regress", "--table", str(path), "--ref-col", "ref", "--hyp-col", "hyp"]
    assert main(base + ["--family", "linear"]) == 2
    assert main(base + ["--family", "poisson-mixed", "--covariates", "age_onset"]) == 2
    assert main(base + ["--vars", "accent", "--filter", "kind=nope"]) == 2
    assert main(base + ["--family", "linear", "--covariates", "snr_db"]) == 2
    assert "per-item acoustic" in capsys.readouterr().err


def test_audit_table_model_based(tmp_path, capsys):
    out = tmp_path / "a.json"
    path = _table(tmp_path)
    code = main(
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
            "--reference",
            "us",
            "--min-items",
            "10",
            "--n-bootstrap",
            "200",
            "--model-based",
            "--covariates",
            "age_onset",
            "--json",
            str(out),
        ]
    )
    cap = capsys.readouterr()
    assert code == 0, cap.err
    mb = json.loads(out.read_text())["model_based"]["accent"]
    assert mb["group_variables"][0]["reference"] == "us" and mb["agreement"]
    assert "Model-based (mixed-effects Poisson) by accent:" in cap.out
    assert mb["agreement"][0]["sentence"] in cap.out
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
                "--covariates",
                "age_onset",
            ]
        )
        == 2
    )
