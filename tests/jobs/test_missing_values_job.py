"""A project audit with missing metadata (docs/METHODS.md, "Missing values"): the items with
no accent are a descriptive row by default, a tested group with ``include_missing`` (a new
request: not answered from the default run's cache); a column without values is refused
before the model runs."""

import pytest

from fairdesk.core.errors import FairdeskError
from fairdesk.jobs import AuditRequest, run_audit
from fairdesk.stats import AuditSettings
from tests.conftest import write_wav
from tests.jobs.test_audit_job import LengthBackend


def _project(tmp_path, accents=("a", "b", ""), blank=""):
    """Per accent 5 speakers × 6 sentences (0.5 s clips heard right, 0.7 s lose a word);
    accent '' is an empty cell in the manifest."""
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project

    root = tmp_path / "data"
    lines = ["path,text,speaker_id,content_id,accent"]
    secs = {"a": 0.5, "b": 0.7, "": 0.7}
    for accent in accents:
        folder = accent or "none"
        for s in range(5):
            for c in range(6):
                rel = f"{folder}/{s}_{c}.wav"
                write_wav(root / rel, seconds=secs[accent], freq=200 + 10 * c + 3 * s)
                lines.append(f"{rel},play the song,{folder}{s},c{c},{accent or blank}")
    (root / "m.csv").write_text("\n".join(lines) + "\n")
    p = Project(tmp_path / "proj")
    assert import_dataset(p, "d", root / "m.csv").imported == 30 * len(accents)
    return p


def _req(**settings):
    s = AuditSettings(n_bootstrap=400, min_items=20, min_speakers=5, **settings)
    return AuditRequest(dataset="d", model="fake", by=("accent",), settings=s, metrics=("wer",))


def test_project_audit_descriptive_row_then_a_tested_group(tmp_path):
    p = _project(tmp_path)
    run = run_audit(p, _req(), backend=LengthBackend()).result
    assert [g.group for g in run.groups] == ["a", "b", "no value for accent"]
    row = run.group("no value for accent")
    assert row.missing and row.n_items == 30 and row.values["wer"] == pytest.approx(1 / 3)
    assert {c.group for c in run.comparisons} == {"b"} and run.reference == "a"
    assert run.summary["wer"].overall["n_missing"] == 30
    assert run.summary["wer"].overall["value"] == pytest.approx(60 / 270)
    assert run.settings.include_missing is False and run.minimums_message is None
    # include_missing is part of the request: a new run, not the cached one
    out = run_audit(p, _req(include_missing=True), backend=LengthBackend())
    assert not out.from_cache
    run = out.result
    assert run.reference == "a" and run.settings.include_missing is True
    assert {c.group for c in run.comparisons} == {"b", "(missing)"}
    assert not any(g.missing for g in run.groups)


def test_project_audit_column_without_values(tmp_path):
    p = _project(tmp_path, accents=("",), blank="   ")
    be = LengthBackend()
    # an import keeps no column without values: the audit says so, naming the column
    with pytest.raises(FairdeskError) as e:
        run_audit(p, _req(), backend=be)
    assert str(e.value).startswith(
        "--by accent: no item of dataset 'd' has a value there (an import keeps no column "
        "without values); columns: id, "
    )
    assert be.calls == 0  # before the model runs
