"""``fairdesk demo``: both embedded datasets in one project, and a real-speech audit."""

from __future__ import annotations

import json

import jiwer
import pytest

from fairdesk.cli import main
from fairdesk.core.demo import DEMO_DATASETS, open_demo_dataset, open_demo_datasets
from fairdesk.core.store import Project


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A project made before l2-english existed (demo only), then ``fairdesk demo``."""
    folder = tmp_path_factory.mktemp("demo") / "proj"
    p = Project(folder, create=True)
    assert open_demo_dataset(p, "demo").imported == 2340
    p.close()
    assert main(["demo", "--project", str(folder)]) == 0  # adds l2-english only
    return folder


def _datasets(capsys, folder):
    capsys.readouterr()
    assert main(["datasets", "--project", str(folder), "--json"]) == 0
    return {d["name"]: d for d in json.loads(capsys.readouterr().out)}


def test_demo_lists_both_datasets(project, capsys):
    ds = _datasets(capsys, project)
    assert set(ds) == set(DEMO_DATASETS) == {"demo", "l2-english"}
    l2 = ds["l2-english"]
    assert (l2["items"], l2["speakers"], l2["problems"], l2["language"]) == (1250, 125, 0, "en")
    cols = l2["columns"]
    assert {k: v["speakers"] for k, v in cols["age_group"].items()} == {
        "child": 52,
        "teen": 6,
        "adult": 67,
    }
    assert {k: v["speakers"] for k, v in cols["gender"].items()} == {"female": 67, "male": 58}
    assert cols["native_language"] == {"Mandarin": {"items": 1250, "speakers": 125}}
    assert sum(v["items"] for v in cols["age"].values()) == 1250
    assert ds["demo"]["items"] == 2340
    # content_id derived from the prompt: every prompt distinct, so no two items share one
    p = Project(project)
    items = p.items(p.dataset("l2-english"))
    assert items["content_id"].nunique() == 1250 and items["speaker_id"].notna().all()
    p.close()


def test_demo_again_changes_nothing(project, capsys):
    before = _datasets(capsys, project)
    assert main(["demo", "--project", str(project)]) == 0
    assert _datasets(capsys, project) == before
    p = Project(project)
    assert open_demo_datasets(p) == {"demo": None, "l2-english": None}
    p.close()


@pytest.mark.slow
def test_l2_english_audit_matches_jiwer(project, tmp_path, capsys):
    """Whisper tiny.en on 2 groups x 6 items of real speech (the teens: 4 female and 2 male
    speakers); the stored hypotheses rescored with jiwer give fairdesk's per-group WER."""
    from fairdesk.core.runs import run_items_frame
    from fairdesk.metrics.normalize import NORMALIZERS

    out = tmp_path / "a.json"
    code = main(
        [
            "audit",
            "--project",
            str(project),
            "--dataset",
            "l2-english",
            "--model",
            "whisper-tiny.en",
            "--by",
            "gender",
            "--filter",
            "age_group=teen",
            "--sample",
            "6",
            "--min-items",
            "4",
            "--min-speakers",
            "2",
            "--n-bootstrap",
            "200",
            "--json",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    res = json.loads(out.read_text())
    assert res["failures"] == [] and res["counts"]["n_inferred"] == 12
    groups = {g["group"]: g for g in res["groups"]}
    assert set(groups) == {"female", "male"} and all(g["n_items"] == 6 for g in groups.values())
    # every prompt distinct: the design is unmatched, resampled by speaker, and said so
    assert res["design"] == "unmatched"
    wer = [c for c in res["comparisons"] if c["metric"] == "wer"]
    assert wer and all(
        c["estimator"] == "speaker"
        and c["design"] == "unmatched"
        and "content_confounded" in c["flags"]
        for c in wer
    )
    assert all("different content" in c["reading"] for c in wer)
    norm = NORMALIZERS[res["settings"]["normaliser"]]
    p = Project(project)
    rows = run_items_frame(p, res["run_id"])
    p.close()
    assert len(rows) == 12
    for name, g in groups.items():
        sub = rows[rows["gender"] == name]
        want = jiwer.wer([norm(r) for r in sub["reference"]], [norm(h) for h in sub["hypothesis"]])
        assert g["values"]["wer"] == pytest.approx(want, abs=1e-12)
