"""--metric grounding_lift switches the explain stage on; table audits refuse it."""

from __future__ import annotations

import pandas as pd

from fairdesk.cli import build_parser, main
from fairdesk.jobs.analysis import split_metric_ids, wants_explain
from fairdesk.metrics import METRIC_IDS, METRICS
from fairdesk.stats.verdicts import is_grounding


def test_split_and_wants_explain():
    assert split_metric_ids(["wer", "grounding_lift", "silhouette", "wer"]) == (
        ["wer", "grounding_lift"],
        True,
    )
    assert wants_explain(["grounding_lift"]) and not wants_explain(["wer"])
    assert not wants_explain(None)
    spec = METRICS["grounding_lift"]
    assert "grounding_lift" in METRIC_IDS and is_grounding(spec)
    assert spec.stats == ("grounding_lift", "n_grounded") and spec.higher_is_better
    assert spec.kind == "rate" and spec.family == "grounding"


def test_cli_options_and_table_refusal(tmp_path, capsys):
    a = build_parser().parse_args(
        [
            "audit",
            "--project",
            "p",
            "--dataset",
            "d",
            "--model",
            "m",
            "--by",
            "x",
            "--explain",
            "--explain-per-group",
            "5",
            "--explain-method",
            "integrated_gradients",
        ]
    )
    assert a.explain and a.explain_per_group == 5 and a.explain_method == "integrated_gradients"
    path = tmp_path / "t.csv"
    pd.DataFrame(
        {"reference": ["a b"] * 4, "hypothesis": ["a b"] * 4, "accent": ["x", "y"] * 2}
    ).to_csv(path, index=False)
    assert (
        main(
            [
                "audit",
                "--table",
                str(path),
                "--by",
                "accent",
                "--metric",
                "grounding_lift",
                "--quiet",
            ]
        )
        == 2
    )
    assert "saliency" in capsys.readouterr().err
