"""The four-stage audit job with a stand-in backend: failures, cancel/resume, caches."""

import numpy as np
import pytest

from fairdesk.jobs import AuditRequest, Cancelled, run_audit
from fairdesk.stats import AuditSettings
from tests.conftest import tone_project


class LengthBackend:
    """Transcribes by clip length: 0.5 s clips are heard right, 0.7 s clips lose a word."""

    id = "fake-length"
    fingerprint = "v1"
    device = "cpu"
    capabilities = {"transcribe"}
    preferred_workers = 2

    def __init__(self):
        self.calls = 0

    def transcribe(self, audios):
        from fairdesk.models.base import Transcription

        self.calls += len(audios)
        return [
            Transcription(
                text="play the song" if len(a) < 0.6 * 16000 else "play song",
                words=(),
                confidence=None,
                language="en",
            )
            for a in audios
        ]


@pytest.fixture
def project(tmp_path):
    p, root = tone_project(tmp_path, {"a": 0.5, "b": 0.7}, 6, 6, "play the song")
    # corrupt one file after import: the job must report it and go on
    (root / "b" / "0_0.wav").write_bytes(b"RIFF garbage")
    return p


SETTINGS = AuditSettings(n_bootstrap=400, min_items=20, min_speakers=5)


def test_audit_failure_cache_and_numbers(project):
    be = LengthBackend()
    req = AuditRequest(
        dataset="d", model="fake", by=("accent",), settings=SETTINGS, metrics=("wer",), nlu="none"
    )
    out = run_audit(project, req, backend=be)
    res = out.result.to_json()  # bridge: typed consumer pending
    assert [f["path"] for f in res["failures"]] == ["b/0_0.wav"]
    assert "cannot decode" in res["failures"][0]["reason"]
    groups = {g["group"]: {**g, **g["values"]} for g in res["groups"]}
    assert groups["a"]["n_items"] == 36 and groups["b"]["n_items"] == 35
    assert groups["a"]["wer"] == 0.0
    assert groups["b"]["wer"] == pytest.approx(1 / 3)
    comp = [c for c in res["comparisons"] if c["metric"] == "wer"][0]
    assert comp["group"] == "b" and comp["reference"] == "a"
    assert comp["gap"] == pytest.approx(1 / 3) and comp["verdict"] == "speaker_confounded"
    assert be.calls == 71
    # identical request: answered from the stored result without touching the model
    again = run_audit(project, req, backend=be)
    assert again.from_cache and be.calls == 71
    # bridge: typed consumer pending
    assert again.result.to_json()["comparisons"] == res["comparisons"]
    # same items, other statistics settings: predictions come from the cache
    req2 = AuditRequest(
        dataset="d",
        model="fake",
        by=("accent",),
        nlu="none",
        settings=AuditSettings(n_bootstrap=500, min_items=20, min_speakers=5),
    )
    third = run_audit(project, req2, backend=be)
    assert not third.from_cache and be.calls == 71 + 0
    assert third.result.to_json()["counts"]["n_cached"] == 71  # bridge: typed consumer pending


def test_cancel_then_resume(project):
    be = LengthBackend()
    req = AuditRequest(
        dataset="d",
        model="fake",
        by=("accent",),
        settings=SETTINGS,
        nlu="none",
        shard_size=8,
        workers=1,
    )
    seen = []

    def progress(frac, msg):
        seen.append(msg)

    with pytest.raises(Cancelled):
        run_audit(project, req, backend=be, progress=progress, cancelled=lambda: be.calls >= 16)
    first = be.calls
    assert 16 <= first < 71
    status = project.conn.execute("SELECT status FROM runs ORDER BY id DESC").fetchone()[0]
    assert status == "cancelled"
    out = run_audit(project, req, backend=be)
    assert out.result.to_json()["counts"]["n_cached"] == first  # bridge: typed consumer pending
    assert be.calls == 71  # nothing done twice
    # bridge: typed consumer pending
    assert out.result.to_json()["counts"]["n_inferred"] == 72 - first


def test_filters_and_bad_requests(project):
    be = LengthBackend()
    req = AuditRequest(
        dataset="d",
        model="fake",
        by=("accent",),
        settings=SETTINGS,
        filters=(("accent", ("a",)),),
        nlu="none",
    )
    out = run_audit(project, req, backend=be)
    # bridge: typed consumer pending
    assert [g["group"] for g in out.result.to_json()["groups"]] == ["a"]
    with pytest.raises(Exception, match="at least one grouping"):
        run_audit(project, AuditRequest(dataset="d", model="fake", by=()), backend=be)
    with pytest.raises(Exception, match="no dataset named"):
        run_audit(project, AuditRequest(dataset="zz", model="fake", by=("accent",)), backend=be)
    assert np.isfinite(out.timings["total_s"])


def test_show_ranks_failing_items(project, tmp_path, capsys):
    import json

    from fairdesk.cli import main

    be = LengthBackend()
    req = AuditRequest(dataset="d", model="fake", by=("accent",), settings=SETTINGS, nlu="none")
    out = run_audit(project, req, backend=be)
    capsys.readouterr()
    o = tmp_path / "show.json"
    assert (
        main(
            [
                "show",
                "--project",
                str(project.folder),
                "--run",
                str(out.run_id),
                "--worst",
                "3",
                "--json",
                str(o),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    reps = json.loads(o.read_text())
    assert len(reps) == 3 and all(r["group"] == "b" for r in reps)
    assert all(r["deletions"] == 1 and r["n_words"] == 3 for r in reps)
    assert "REF: play the song" in printed and "HYP: play *** song" in printed
    assert (
        main(["show", "--project", str(project.folder), "--run", str(out.run_id), "--group", "zz"])
        == 2
    )


def test_minimums_and_reference_are_checked_before_the_model_runs(project):
    """Group sizes are known from the metadata: a request whose minimums exclude a group, or
    whose reference is not a group, fails before any item is transcribed, and the message
    lists each group's items and speakers against the thresholds."""

    class Exploding(LengthBackend):
        def transcribe(self, *a, **k):  # pragma: no cover - must not be reached
            raise AssertionError("the model ran")

        transcribe_many = transcribe

    be = Exploding()
    strict = AuditSettings(n_bootstrap=200, min_items=100, min_speakers=5)
    with pytest.raises(Exception) as exc:
        run_audit(
            project,
            AuditRequest(dataset="d", model="fake", by=("accent",), settings=strict, nlu="none"),
            backend=be,
        )
    msg = str(exc.value)
    assert "--min-items" in msg and "36" in msg  # each group: 6 speakers x 6 items
    with pytest.raises(Exception, match="zz"):
        run_audit(
            project,
            AuditRequest(
                dataset="d",
                model="fake",
                by=("accent",),
                reference="zz",
                settings=SETTINGS,
                nlu="none",
            ),
            backend=be,
        )


def test_results_cached_before_scaling_was_the_default_are_not_reused(project):
    """Small-cluster scaling became the default (docs/METHODS.md, "Small numbers of
    speakers"): the settings, and so the request hash, of a default request changed, so a
    run stored under the old default (scaling off) is not the answer to a new default
    request; a request that asks for the old settings still finds it."""
    be = LengthBackend()
    old = AuditSettings(
        n_bootstrap=400, min_items=20, min_speakers=5, resampling="speaker",
        small_cluster_scaling=False,
    )  # fmt: skip
    req = AuditRequest(
        dataset="d", model="fake", by=("accent",), settings=old, metrics=("wer",), nlu="none"
    )
    first = run_audit(project, req, backend=be)
    assert not first.from_cache and first.result.settings.small_cluster_scaling is False
    new = AuditRequest(
        dataset="d",
        model="fake",
        by=("accent",),
        metrics=("wer",),
        nlu="none",
        settings=AuditSettings(n_bootstrap=400, min_items=20, min_speakers=5, resampling="speaker"),
    )
    assert new.settings.small_cluster_scaling is True
    again = run_audit(project, new, backend=be)
    assert not again.from_cache and again.result.settings.small_cluster_scaling is True
    assert again.result.counts.n_cached == 71  # the predictions are reused, not the result
    c_old = first.result.comparison("wer", "b")
    c_new = again.result.comparison("wer", "b")
    assert c_old.estimator == c_new.estimator == "speaker"
    assert "small_cluster_scaled" in c_new.flags and "small_cluster_scaled" not in c_old.flags
    # the old settings asked for explicitly: the stored run answers
    third = run_audit(project, req, backend=be)
    assert third.from_cache and third.result.settings.small_cluster_scaling is False


def test_a_moved_dataset_folder_names_relink_for_every_item(tmp_path):
    """Issue 44: the audio folder moved away (a moved project) fails every item with a
    reason that names the missing folder and ``fairdesk relink``, not "restore the file"."""
    p, root = tone_project(tmp_path, {"a": 0.5, "b": 0.7}, 6, 6, "play the song")
    root.rename(root.with_name("moved"))
    req = AuditRequest(
        dataset="d", model="fake", by=("accent",), settings=SETTINGS, metrics=("wer",), nlu="none"
    )
    out = run_audit(p, req, backend=LengthBackend())
    assert out.result.all_failed and len(out.result.failures) == 72
    for f in out.result.failures:
        assert f"the dataset's audio folder {root} is missing" in f.reason
        assert f"`fairdesk relink --project {p.folder} --dataset 'd' NEW_FOLDER`" in f.reason
        assert "restore the file" not in f.reason


def test_a_wording_change_keeps_the_cached_result(project, monkeypatch):
    """The readings are written at output time (fairdesk.presentation.readings): the cache
    key (METRICS_CODE_VERSION and the request) holds no words, the stored result holds no
    sentence, so new words answer from the cache and read in the new words."""
    from fairdesk.cli.console import format_groups
    from fairdesk.core.runs import run_payload
    from fairdesk.jobs.run_settings import METRICS_CODE_VERSION
    from fairdesk.presentation import readings

    be = LengthBackend()
    req = AuditRequest(
        dataset="d", model="fake", by=("accent",), settings=SETTINGS, metrics=("wer",), nlu="none"
    )
    first = run_audit(project, req, backend=be)
    assert not first.from_cache and be.calls == 71
    stored = run_payload(project, first.run_id)
    assert stored["settings"]["metrics_code_version"] == METRICS_CODE_VERSION
    assert all("reading" not in c for c in stored["comparisons"])  # numbers only
    c = first.result.comparison("wer", "b")
    before = readings.reading(c, first.result)
    assert before.startswith("Word error rate (WER) is ")

    words = readings.verdict_sentence
    monkeypatch.setattr(readings, "verdict_sentence", lambda **kw: "In other words: " + words(**kw))
    again = run_audit(project, req, backend=be)
    assert again.from_cache and be.calls == 71  # a cache hit: no model, no statistics
    assert again.result.comparisons == first.result.comparisons
    now = readings.reading(again.result.comparison("wer", "b"), again.result)
    assert now == "In other words: " + before
    assert f"    {now}" in format_groups(again.result).split("\n")
    payload = readings.readings_json(again.result.to_json(), again.result)
    assert [x["reading"] for x in payload["comparisons"] if x["metric"] == "wer"] == [now]
