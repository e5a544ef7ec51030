"""Choosing the engine and lifting the run cap from the command line (no Ray needed)."""

import pandas as pd
import pytest

from fairdesk.cli import main
from fairdesk.constants import MAX_RUN_ITEMS
from fairdesk.stats import AuditSettings


def test_engine_ray_without_ray_says_how_to_install(tmp_path, capsys, monkeypatch):
    import fairdesk.jobs.engines as engines

    monkeypatch.setattr(engines, "ray_available", lambda: False)
    rc = main(
        [
            "audit",
            "--project",
            str(tmp_path / "p"),
            "--dataset",
            "d",
            "--model",
            "whisper-tiny.en",
            "--by",
            "accent",
            "--engine",
            "ray",
        ]
    )
    assert rc == 2
    assert "pip install 'fairdesk[cluster]'" in capsys.readouterr().err


def test_require_ray_names_the_extra(monkeypatch):
    import builtins

    from fairdesk.core.errors import FairdeskError
    from fairdesk.jobs.engines import require_ray

    real = builtins.__import__

    def no_ray(name, *a, **kw):
        if name == "ray":
            raise ImportError("no ray")
        return real(name, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(FairdeskError, match=r"fairdesk\[cluster\]"):
        require_ray()


def test_cap_stays_the_default_and_lifts_only_explicitly(tmp_path, capsys):
    with pytest.raises(ValueError, match="max_items"):
        AuditSettings(max_items=MAX_RUN_ITEMS + 1)
    lifted = AuditSettings(max_items=MAX_RUN_ITEMS + 1, max_items_lifted=True)
    assert lifted.to_dict()["max_items_lifted"] is True
    assert AuditSettings.from_dict(lifted.to_dict()) == lifted
    assert "max_items_lifted" not in AuditSettings().to_dict()

    rows = [
        {
            "reference": "a b c",
            "hypothesis": "a b c" if i % 3 else "a c",
            "accent": "x" if i % 2 else "y",
            "speaker_id": f"s{i % 12}",
        }
        for i in range(40)
    ]
    path = tmp_path / "t.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    args = [
        "audit",
        "--table",
        str(path),
        "--by",
        "accent",
        "--min-items",
        "5",
        "--min-speakers",
        "1",
        "--n-bootstrap",
        "200",
        "--quiet",
    ]
    # a cap below the table refuses it with both ways out; a cap at or above lets it run
    assert main(args + ["--max-items", "30"]) == 2
    err = capsys.readouterr().err
    assert "--sample" in err and "--max-items N" in err
    assert main(args + ["--max-items", "40"]) == 0
