"""Two ELAN sessions of real speech, each a dataset whose recording has the same file name
(``session1.wav``) in its own folder, audited together with a real model (whisper-tiny.en):
every segment is transcribed from its own dataset's recording. No assertion on the model's
accuracy: the per-item acoustic covariates the job measured are those of the right file's
segment (and not the other dataset's file at the same path)."""

from __future__ import annotations

import pytest

from tests.session_fixture import write_elan_session


@pytest.fixture(scope="module")
def grown(tmp_path_factory):
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project
    from fairdesk.jobs import AuditRequest, run_audit
    from fairdesk.stats import AuditSettings

    base = tmp_path_factory.mktemp("two_sessions")
    write_elan_session(base / "c1", n_intervals=12)
    write_elan_session(base / "c2", n_intervals=8, gap_s=1.1)  # other times, same file name
    p = Project(base / "proj")
    for name, folder, n in (("s1", "c1", 12), ("s2", "c2", 8)):
        assert import_dataset(p, name, base / folder, tiers="Ana-tx,Ben-tx").imported == n
    req = AuditRequest(
        dataset="s1",
        more_datasets=("s2",),
        model="whisper-tiny.en",
        by=("tier",),
        metrics=("wer",),
        nlu="none",
        settings=AuditSettings(n_bootstrap=200, min_items=5, min_speakers=1),
    )
    out = run_audit(p, req)
    yield base, p, out
    p.close()


def test_each_segment_is_read_from_its_own_datasets_recording(grown):
    from fairdesk.core.acoustics import covariates
    from fairdesk.core.runs import run_items_frame
    from fairdesk.core.spans import load

    base, p, out = grown
    assert not out.failures and len(out.frame) == 20
    rows = run_items_frame(p, out.run_id)
    assert sorted(rows["dataset"].value_counts().items()) == [("s1", 12), ("s2", 8)]
    assert set(rows["path"]) == {"session1.wav"}  # relative to each dataset's folder
    assert rows["id"].is_unique and all(i.startswith(("s1/", "s2/")) for i in rows["id"])
    differs = 0
    for r in rows.to_dict(orient="records"):
        right = base / ("c1" if r["dataset"] == "s1" else "c2") / "session1.wav"
        other = base / ("c2" if r["dataset"] == "s1" else "c1") / "session1.wav"
        cov = covariates(load(right, start_s=r["start_s"], end_s=r["end_s"]).samples)
        assert r["speech_s"] == pytest.approx(cov.speech_s)
        assert r["snr_db"] == pytest.approx(cov.snr_db, nan_ok=True)
        try:
            wrong = covariates(load(other, start_s=r["start_s"], end_s=r["end_s"]).samples)
        except Exception:  # noqa: BLE001 - past the other file's end: surely not that one
            differs += 1
            continue
        differs += wrong.speech_s != pytest.approx(cov.speech_s)
    assert differs >= 10  # the test tells the two recordings apart
    # both tiers pool their segments from both sessions
    assert {g.group: g.n_items for g in out.result.groups} == {"Ana-tx": 10, "Ben-tx": 10}


def test_tier_exports_keep_the_two_recordings_apart(grown, tmp_path):
    import pympi

    from fairdesk.reports.elan import DATASET_PROPERTY, ITEM_PROPERTY, export_eafs
    from fairdesk.reports.praat import export_textgrids

    base, p, out = grown
    tgs = export_textgrids(p, out.run_id, tmp_path / "tg", aligner="even", copy_audio=True)
    assert len(tgs) == 20
    # one copy per recording: the second dataset's under its name, so neither overwrites
    copied = sorted(str(x.relative_to(tmp_path / "tg")) for x in (tmp_path / "tg").rglob("*.wav"))
    assert copied == ["sessions/s2/session1.wav", "sessions/session1.wav"]
    assert (tmp_path / "tg/sessions/session1.wav").read_bytes() == (
        base / "c1/session1.wav"
    ).read_bytes()
    assert (tmp_path / "tg/sessions/s2/session1.wav").read_bytes() == (
        base / "c2/session1.wav"
    ).read_bytes()
    eafs = export_eafs(p, out.run_id, tmp_path / "eaf", aligner="even")
    seen = set()
    for it in eafs:
        eaf = pympi.Elan.Eaf(str(tmp_path / "eaf" / it.file(".eaf")))
        props = dict(eaf.properties)
        item, ds = props[ITEM_PROPERTY], props[DATASET_PROPERTY]
        assert item.startswith(f"{ds}/")  # each file names its item's own dataset
        seen.add(ds)
    assert seen == {"s1", "s2"}
