"""The typed audit result (fairdesk.jobs.result.AuditRun): today's payloads open with the same
values, the JSON round trip is exact, and the field-wise non-finite rules hold."""

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest

from fairdesk.jobs import AuditRequest, run_audit
from fairdesk.jobs.analysis import analyse
from fairdesk.jobs.result import SCHEMA_VERSION, AuditRun
from fairdesk.jobs.result_parts import RUN_SETTINGS_KEYS, ConfusionMatrix, RunSettings
from fairdesk.stats import AuditSettings
from tests.conftest import tone_project
from tests.jobs.test_audit_job import SETTINGS, LengthBackend


class EmbeddingLengthBackend(LengthBackend):
    """LengthBackend with embeddings that separate the two clip lengths."""

    id = "fake-embed"
    capabilities = {"transcribe", "embed"}

    def embed(self, audios):
        return np.stack(
            [
                np.array([len(a) / 16000, a.std() * 10 + k % 3, 1.0], np.float32)
                for k, a in enumerate(audios)
            ]
        )


def _stored(payload) -> dict:
    """The payload as the store keeps it (JSON text and back)."""
    return json.loads(json.dumps(payload))


@pytest.fixture(scope="module")
def payloads(tmp_path_factory):
    """Today's payloads of a fixture audit: a fresh run (model-based block on), its
    cache hit, and an all-failed run."""
    tmp = tmp_path_factory.mktemp("codec")
    p, root = tone_project(tmp / "one", {"a": 0.5, "b": 0.7}, 6, 6, "play the song")
    (root / "b" / "0_0.wav").write_bytes(b"RIFF garbage")
    req = AuditRequest(
        dataset="d",
        model="fake",
        by=("accent",),
        settings=SETTINGS,
        nlu="none",
        model_based=True,
    )
    run = run_audit(p, req, backend=LengthBackend()).result
    hit = run_audit(p, req, backend=LengthBackend()).result
    p2, root2 = tone_project(tmp / "two", {"a": 0.5, "b": 0.7}, 5, 4, "play the song")
    for wav in root2.rglob("*.wav"):
        wav.write_bytes(b"RIFF garbage")
    failed = run_audit(p2, req, backend=LengthBackend()).result
    rep_req = dataclasses.replace(req, representation=True, model_based=False, metrics=("wer",))
    rep = run_audit(p, rep_req, backend=EmbeddingLengthBackend()).result
    return {
        "memory": run,
        "run": _stored(run),
        "hit": _stored(hit),
        "failed": _stored(failed),
        "representation": _stored(rep),
    }


@pytest.mark.parametrize("name", ["run", "hit", "failed", "representation"])
def test_round_trip_is_exact(payloads, name):
    run = AuditRun.from_json(payloads[name])
    again = AuditRun.from_json(_stored(run.to_json()))
    assert again == run
    assert run.schema_version == 1 and again.schema_version == SCHEMA_VERSION
    assert run.to_json()["schema_version"] == 2
    assert run.extra == {} and run.settings_extra == {}


def test_in_memory_payload_opens_as_its_stored_json(payloads):
    # AuditOutcome.result before the store: NaN not yet null, numpy numbers, tuples
    assert AuditRun.from_json(payloads["memory"]) == AuditRun.from_json(payloads["run"])


def test_old_payload_opens_with_the_same_values(payloads):
    d = payloads["run"]
    run = AuditRun.from_json(d)
    assert run.run_id == d["run_id"] and run.dataset == "d" and run.model == "fake"
    assert run.model_key == d["model_key"] and run.device == "cpu" and run.by == ("accent",)
    assert not run.from_cache and run.cached_from_run is None
    assert run.reference == "a" and run.design == d["design"] == "matched"
    # groups: values, CIs, and the duplicated top-level value keys are the same numbers
    for g in d["groups"]:
        info = run.group(g["group"])
        assert info.n_items == g["n_items"] and info.n_speakers == g["n_speakers"]
        assert dict(info.values) == g["values"]
        for m, v in g["values"].items():
            assert g[m] == v == info.values[m]
        assert {m: ci and list(ci) for m, ci in info.ci.items()} == g["ci"]
        assert info.wer_dominated_by == g["wer_dominated_by"]
    assert run.group("b").values["wer"] == pytest.approx(1 / 3)
    for c in d["comparisons"]:
        typed = run.comparison(c["metric"], c["group"])
        for k, v in c.items():
            got = getattr(typed, k)
            assert (list(got) if isinstance(got, tuple) else got) == v, k
    assert set(run.summary) == set(d["summary"])
    assert run.summary["wer"].max_gap == d["summary"]["wer"]["max_gap"]
    assert run.summary["wer"].overall["n_items"] == 71
    # settings split in two: the statistics' and the run's
    s = d["settings"]
    assert run.settings == AuditSettings.from_dict(
        {k: v for k, v in s.items() if k in AuditSettings.__dataclass_fields__}
    )
    assert run.settings.n_bootstrap == 400 and run.n_bootstrap_used == s["n_bootstrap_used"]
    assert dict(run.bootstrap) == s["bootstrap_raise"] == d["bootstrap"]
    assert run.normaliser_reason == s["normaliser_reason"]
    rs = run.run_settings
    for k in RUN_SETTINGS_KEYS:
        got = getattr(rs, k)
        assert (list(got) if isinstance(got, tuple) else got) == s[k], k
    assert rs.model_based is True and rs.text_source == {"annotation": 0, "import": 72}
    # later stages
    assert run.normaliser.name == d["normaliser"]["name"] == "whisper-english"
    assert run.tested_metrics == tuple(d["tested_metrics"]) == ("wer", "cer")
    assert run.descriptive_metrics == tuple(d["descriptive_metrics"])
    assert run.warnings == () and run.input_problems == () and run.minimums_message is None
    assert [f.path for f in run.failures] == ["b/0_0.wav"]
    assert run.failures[0].reason == d["failures"][0]["reason"]
    assert run.counts.n_items == 72 and run.counts.n_inferred == d["counts"]["n_inferred"]
    assert run.acoustics.n_measured == d["acoustics"]["n_measured"] == 71
    assert dict(run.acoustics.vad) == d["acoustics"]["vad"]
    pf = d["pitfalls"]
    assert run.pitfalls.flags_checked == tuple(pf["flags_checked"])
    assert run.pitfalls.n_flagged == pf["n_flagged"]
    assert run.pitfalls.by_group["b"]["n_items"] == pf["by_group"]["b"]["n_items"] == 35
    assert run.pitfalls.not_checked == pf["not_checked"]
    wp = run.word_positions["c1"]
    assert wp.words == ("play", "the", "song")
    assert wp.errors["b"] == tuple(d["word_positions"]["c1"]["errors"]["b"])
    assert wp.groups["b"] == (0.0, 1.0, 0.0)
    pc = run.phone_confusion.groups["b"]
    assert pc.phone_error_rate == d["phone_confusion"]["groups"]["b"]["phone_error_rate"] == 0.25
    assert pc.per_phone["DH"].errors == 35 and pc.top[0].ref == "DH" and pc.top[0].hyp == "-"
    assert pc.matrix.phones == tuple(d["phone_confusion"]["groups"]["b"]["matrix"]["phones"])
    assert run.model_based["accent"]["error"] == d["model_based"]["accent"]["error"]
    assert dict(run.timings) == d["timings"]


def test_to_json_writes_todays_keys_without_the_group_copies(payloads):
    d = payloads["run"]
    out = _stored(AuditRun.from_json(d).to_json())
    assert set(out) == set(d) | {"schema_version"}
    for k in set(d) - {"groups"}:
        assert out[k] == d[k], k
    for g_old, g_new in zip(d["groups"], out["groups"], strict=True):
        assert g_new == {k: v for k, v in g_old.items() if k not in g_old["values"]}
    assert out["acoustics"] == d["acoustics"]


def test_representation_block(payloads):
    d = payloads["representation"]
    run = AuditRun.from_json(d)
    rep, src = run.representation, d["representation"]
    assert rep.silhouette == src["silhouette"] and rep.threshold == src["threshold"] == 0.1
    assert rep.structure == src["structure"] and dict(rep.cases) == src["cases"]
    assert rep.n_items == src["n_items"] == 71 and rep.model_key == src["model_key"]
    assert dict(rep.leakage) == src["leakage"] and rep.error is None
    assert _stored(run.to_json())["representation"] == src
    assert run.run_settings.model_based is False and run.model_based is None


def test_cache_hit_payload(payloads):
    run, hit = AuditRun.from_json(payloads["run"]), AuditRun.from_json(payloads["hit"])
    assert hit.from_cache and hit.cached_from_run == payloads["hit"]["cached_from_run"]
    assert hit.cached_from_run == run.run_id
    assert hit.comparisons == run.comparisons and hit.groups == run.groups
    assert set(hit.timings) == {"prepare_s", "total_s"}


def test_all_failed_payload(payloads):
    d = payloads["failed"]
    run = AuditRun.from_json(d)
    assert run.all_failed and run.result is None and run.settings is None
    assert run.groups == () and run.comparisons == () and run.summary == {}
    assert len(run.failures) == len(d["failures"]) == 40
    assert run.notes == tuple(d["notes"]) and "every item failed" in run.notes[0]
    assert run.run_settings.model_key == d["settings"]["model_key"]
    assert run.counts.n_items == 40
    out = _stored(run.to_json())
    assert out["groups"] == [] and out["comparisons"] == []
    assert out["settings"] == d["settings"]
    with pytest.raises(KeyError):
        run.group("a")


def test_infinite_ratio_is_kept_nan_is_none(payloads):
    run = AuditRun.from_json(payloads["run"])
    c = run.comparison("wer", "b")
    # today's payload: ratio over a zero reference is stored as null (the loss)
    assert payloads["run"]["comparisons"][0]["ratio"] is None and c.ratio is None
    inf = dataclasses.replace(c, ratio=math.inf, effect_size=-math.inf, mde=math.nan)
    summ = dataclasses.replace(run.summary["wer"], disparity_ratio=math.inf, gini=math.inf)
    res = dataclasses.replace(
        run.result,
        comparisons=(inf, *run.comparisons[1:]),
        summary={**run.summary, "wer": summ},
    )
    typed = dataclasses.replace(run, result=res)
    out = _stored(typed.to_json())
    cj = out["comparisons"][0]
    assert cj["ratio"] == "inf" and cj["effect_size"] == "-inf" and cj["mde"] is None
    assert out["summary"]["wer"]["disparity_ratio"] == "inf"
    assert out["summary"]["wer"]["gini"] is None  # no rule: as jsonable
    back = AuditRun.from_json(out)
    bc = back.comparison("wer", "b")
    assert bc.ratio == math.inf and bc.effect_size == -math.inf and bc.mde is None
    assert back.summary["wer"].disparity_ratio == math.inf
    assert back == AuditRun.from_json(_stored(back.to_json()))


def test_missing_keys_of_older_runs_take_defaults(payloads):
    d = json.loads(json.dumps(payloads["run"]))
    for k in ("pitfalls", "normaliser", "tested_metrics", "timings", "counts", "acoustics"):
        del d[k]
    for k in ("cpu_count", "engine", "shard_size", "n_bootstrap_used", "normaliser_reason"):
        del d["settings"][k]
    del d["settings"]["small_cluster_scaling"]
    for g in d["groups"]:
        del g["ci"], g["ci_note"]
    for c in d["comparisons"]:
        del c["no_variation"], c["reason"], c["mde"]
    run = AuditRun.from_json(d)
    assert run.pitfalls is None and run.normaliser is None and run.tested_metrics == ()
    assert run.timings == {} and run.counts is None and run.acoustics is None
    assert run.run_settings.cpu_count is None and run.run_settings.engine is None
    assert run.run_settings.model == "fake" and run.n_bootstrap_used is None
    assert run.settings.small_cluster_scaling is False  # AuditSettings' default
    assert run.group("a").ci == {} and run.group("a").ci_scheme
    assert run.comparison("wer", "b").mde is None
    assert run.comparison("wer", "b").no_variation is None
    assert AuditRun.from_json(_stored(run.to_json())) == run
    # a bare payload opens too
    bare = AuditRun.from_json({})
    assert bare.result is None and bare.run_settings is None and bare.failures == ()


def test_unknown_keys_are_kept_and_written_back(payloads):
    d = json.loads(json.dumps(payloads["run"]))
    d["future_block"] = {"x": [1, 2]}
    d["settings"]["future_setting"] = 3
    d["pitfalls"]["future_count"] = 7
    d["counts"]["n_remote"] = 5
    run = AuditRun.from_json(d)
    assert run.extra == {"future_block": {"x": (1, 2)}}
    assert run.settings_extra == {"future_setting": 3}
    assert run.pitfalls.extra == {"future_count": 7} and run.counts.extra == {"n_remote": 5}
    out = _stored(run.to_json())
    assert out["future_block"] == {"x": [1, 2]} and out["settings"]["future_setting"] == 3
    assert out["pitfalls"]["future_count"] == 7 and out["counts"]["n_remote"] == 5


def test_newer_schema_is_refused():
    with pytest.raises(ValueError, match="schema_version"):
        AuditRun.from_json({"schema_version": SCHEMA_VERSION + 1})


def test_classification_confusion_and_frames():
    rng = np.random.default_rng(1)
    n = 80
    labels = rng.choice(["cat", "dog"], size=n)
    pred = np.where(rng.random(n) < 0.8, labels, rng.choice(["cat", "dog"], size=n))
    df = pd.DataFrame({"group": np.repeat(["x", "y"], n // 2), "label": labels})
    df["predicted_label"] = pred
    settings = AuditSettings(n_bootstrap=200, min_items=1, min_speakers=1, normaliser="auto")
    _, res = analyse(df, settings, language=None)
    res = _stored(res)
    run = AuditRun.from_json(res)
    assert AuditRun.from_json(_stored(run.to_json())) == run
    for g in ("x", "y"):
        sub = df[df["group"] == g]
        m = run.confusion[g]
        assert isinstance(m, ConfusionMatrix) and m.true == ("cat", "dog")
        want = pd.crosstab(sub["label"], sub["predicted_label"]).reindex(
            index=list(m.true), columns=list(m.predicted), fill_value=0
        )
        assert m.matrix == tuple(tuple(int(x) for x in row) for row in want.to_numpy())
    assert run.run_settings is None and run.intent_confusion is None
    frame = run.groups_frame()
    assert list(frame["group"]) == ["x", "y"]
    acc = (df["label"] == df["predicted_label"]).groupby(df["group"]).mean()
    if "accuracy" in frame.columns:
        assert frame.set_index("group")["accuracy"].to_dict() == pytest.approx(acc.to_dict())
    comps = run.comparisons_frame()
    assert len(comps) == len(res["comparisons"])
    assert set(comps["metric"]) == {c["metric"] for c in res["comparisons"]}


def test_from_parts_and_replace(payloads):
    run = AuditRun.from_json(payloads["run"])
    built = AuditRun.from_parts(run.result, normaliser_reason=run.normaliser_reason)
    assert built.n_bootstrap_used == run.result.bootstrap["used"] == 400
    built = dataclasses.replace(
        built, run_settings=RunSettings(model="fake", by=("accent",)), run_id=9
    )
    again = AuditRun.from_json(_stored(built.to_json()))
    assert again == built and again.run_settings.by == ("accent",) and again.run_id == 9
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.run_id = 3


def test_stored_settings_todays_checks_refuse_open_as_stored(payloads):
    d = json.loads(json.dumps(payloads["run"]))
    d["settings"]["n_bootstrap"] = 100  # below today's minimum of 200
    with pytest.raises(ValueError):
        AuditSettings.from_dict({"n_bootstrap": 100})
    run = AuditRun.from_json(d)
    assert run.settings.n_bootstrap == 100 and run.settings.alpha == 0.05
    assert _stored(run.to_json())["settings"]["n_bootstrap"] == 100
    assert AuditRun.from_json(_stored(run.to_json())) == run
