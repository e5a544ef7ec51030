"""The typed audit result (fairdesk.jobs.result.AuditRun): today's payloads open with the same
values, the JSON round trip is exact, and the field-wise non-finite rules hold."""

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairdesk.jobs import AuditRequest, run_audit
from fairdesk.jobs.analysis import analyse
from fairdesk.jobs.result import SCHEMA_VERSION, AuditRun
from fairdesk.jobs.result_parts import RUN_SETTINGS_KEYS, ConfusionMatrix, RunSettings
from fairdesk.presentation.notices import notice_text, notice_texts
from fairdesk.presentation.pitfalls import note_text, pitfalls_json
from fairdesk.presentation.readings import reading
from fairdesk.stats import AuditSettings
from fairdesk.stats.notices import Notice
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


#: Payloads the producers stored before the typed result (schema 1, written by the main
#: branch's run_audit of the fixture below): stored runs from before must still open.
V1 = Path(__file__).parent / "data" / "audit_payloads_v1.json"


@pytest.fixture(scope="module")
def payloads(tmp_path_factory):
    """Stored payloads of a fixture audit from before the typed result (``run``: a fresh
    run with the model-based block on, ``hit``: its cache hit, ``failed``: an all-failed
    run, ``representation``), and today's typed runs of the same audits (``new_*``: the
    ``AuditRun`` the producers return; ``stored_*``: what the store keeps)."""
    out = json.loads(V1.read_text(encoding="utf-8"))
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
    for name, r in (("run", run), ("hit", hit), ("failed", failed), ("representation", rep)):
        out[f"new_{name}"] = r
        out[f"stored_{name}"] = _stored(r.to_json())
    out["project"] = p
    return out


def test_producers_return_the_run_the_store_keeps(payloads):
    # the AuditRun a producer returns is the one its stored JSON opens as (NaN as None,
    # tuples, typed blocks), for a run, its cache hit, an all-failed run and representation
    for name in ("run", "hit", "failed", "representation"):
        new = payloads[f"new_{name}"]
        assert isinstance(new, AuditRun)
        assert AuditRun.from_json(payloads[f"stored_{name}"]) == new, name
        assert payloads[f"stored_{name}"]["schema_version"] == SCHEMA_VERSION


def test_the_store_keeps_to_json_and_a_hit_opens_it(payloads):
    from fairdesk.core.runs import run_payload

    new, hit = payloads["new_run"], payloads["new_hit"]
    stored = run_payload(payloads["project"], new.run_id)
    assert stored == payloads["stored_run"]
    assert hit.from_cache and hit.cached_from_run == new.run_id and not new.from_cache
    assert hit.comparisons == new.comparisons and hit.groups == new.groups
    assert hit.model_based == new.model_based == AuditRun.from_json(payloads["run"]).model_based
    assert "no word error" in new.model_based["accent"].error
    # the reference group has no error: the ratio over it is infinite, kept as such
    assert new.comparison("wer", "b").ratio == math.inf
    assert payloads["stored_run"]["comparisons"][0]["ratio"] == "inf"


def test_new_and_old_payloads_have_the_same_keys(payloads):
    # stored runs from before open; today's JSON has their keys plus schema_version (the
    # group value copies and the table-only keys aside)
    for name in ("run", "hit", "failed", "representation"):
        old, new = payloads[name], payloads[f"stored_{name}"]
        # speakers: where the speaker ids came from (issue 44); a failed run has none
        assert set(new) - set(old) == {"schema_version"} | (
            {"speakers"} if name != "failed" else set()
        ), name
        assert set(old) - set(new) == set(), name
        # settings added since: include_missing (docs/METHODS.md, "Missing values") and the
        # datasets audited (several audited together: core.dataset_sets), which reference text
        # was scored (docs/METHODS.md, "References from several annotators")
        assert set(new["settings"]) - set(old["settings"]) <= {
            "include_missing",
            "datasets",
            "reference_text",
            "annotators_resampled",
        }, name
        assert set(old["settings"]) <= set(new["settings"]), name
        old_run = AuditRun.from_json(old)
        assert [g.group for g in old_run.groups] == [g["group"] for g in new["groups"]]
        assert [c["verdict"] for c in new["comparisons"]] == [
            c.verdict for c in old_run.comparisons
        ]


def test_analyse_keeps_an_infinite_ratio():
    import pandas as pd

    # group b has errors where the reference group a has none: WER ratio b / a is infinite
    rows = []
    for g, hyp in (("a", "play the song"), ("b", "play a song")):
        for i in range(40):
            rows.append(
                {
                    "reference": "play the song",
                    "hypothesis": hyp if i % 2 else "play the song",
                    "group": g,
                    "speaker_id": f"{g}{i % 8}",
                    "content_id": "c",
                    "item_id": f"{g}{i}",
                }
            )
    _, run = analyse(
        pd.DataFrame(rows), AuditSettings(n_bootstrap=200, min_items=20), reference="a"
    )
    c = run.comparison("wer", "b")
    assert c.reference_value == 0 and c.value == pytest.approx(1 / 6) and c.ratio == math.inf
    out = _stored(run.to_json())
    assert next(x for x in out["comparisons"] if x["metric"] == "wer")["ratio"] == "inf"
    assert AuditRun.from_json(out).comparison("wer", "b").ratio == math.inf


def test_typed_pitfall_rows_and_prediction_problems():
    from fairdesk.jobs.result_codec import canonical
    from fairdesk.jobs.result_parts import (
        Pitfalls,
        PredictionProblem,
        VerdictChange,
        WerDominated,
    )

    dom = {"group": "b", "item": "b15", "errors": 13, "group_errors": 22, "share": 13 / 22}
    dom |= {"wer": 22 / 150, "wer_without_item": 9 / 145}
    change = {"metric": "wer", "group": "b", "verdict": "disparity_detected"}
    change |= {"verdict_without_flagged": "no_disparity_detected", "gap": 0.2}
    change |= {"gap_without_flagged": 0.01, "reason": None}
    change |= {"n_flagged_group": 30, "n_flagged_reference": 0}
    p = canonical({"wer_dominated": [dom], "verdicts_without_flagged": [change]}, Pitfalls)
    assert p.wer_dominated == (WerDominated(**dom),)
    assert p.verdicts_without_flagged[0].verdict_without_flagged == "no_disparity_detected"
    assert p.verdicts_without_flagged[0] == VerdictChange(**change)
    out = _stored(AuditRun(pitfalls=p).to_json())["pitfalls"]
    assert out["wer_dominated"] == [dom] and out["verdicts_without_flagged"] == [change]
    # the row that says nothing was recomputed opens (its other keys read None)
    bare = canonical(
        {"verdicts_without_flagged": [{"metric": None, "group": None, "reason": "x"}]}, Pitfalls
    )
    # a reason stored as a sentence (before the coded notes) reads as a stored sentence
    assert bare.verdicts_without_flagged[0].reason == Notice("stored.sentence", {"text": "x"})
    assert bare.verdicts_without_flagged[0].verdict is None
    row = {"row": 3, "key": "a/1.wav", "reason": "duplicate", "kept": False}
    run = AuditRun.from_json({"prediction_problems": [row]})
    assert run.prediction_problems == (PredictionProblem(**row),)
    assert _stored(run.to_json())["prediction_problems"] == [row]


def test_as_audit_run():
    from fairdesk.jobs.result import as_audit_run

    run = AuditRun(model="m")
    assert as_audit_run(run) is run
    assert as_audit_run(run.to_json()) == run


@pytest.mark.parametrize("name", ["run", "hit", "failed", "representation"])
def test_round_trip_is_exact(payloads, name):
    run = AuditRun.from_json(payloads[name])
    again = AuditRun.from_json(_stored(run.to_json()))
    assert again == run
    assert run.schema_version == 1 and again.schema_version == SCHEMA_VERSION
    assert run.to_json()["schema_version"] == 2
    assert run.extra == {} and run.settings_extra == {}


def test_in_memory_payload_opens_as_its_stored_json(payloads):
    # a payload before the store: NaN not yet null, numpy numbers, tuples
    memory = payloads["new_run"].to_json()
    assert AuditRun.from_json(memory) == AuditRun.from_json(payloads["stored_run"])


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
        dom = info.wer_dominated_by
        assert (dom and dom.to_json()) == g["wer_dominated_by"]
    assert run.group("b").values["wer"] == pytest.approx(1 / 3)
    for c in d["comparisons"]:
        typed = run.comparison(c["metric"], c["group"])
        for k, v in c.items():
            if (
                k == "reading"
            ):  # written at output time, in today's units: the stored one is not read
                assert reading(typed, run).startswith(v.split(" is ")[0] + " is ")
                continue
            got = getattr(typed, k)
            if dataclasses.is_dataclass(got):  # n_blocks, no_variation: the stored keys
                got = dataclasses.asdict(got)
            assert (list(got) if isinstance(got, tuple) else got) == v, k
    assert set(run.summary) == set(d["summary"])
    assert run.summary["wer"].max_gap == d["summary"]["wer"]["max_gap"]
    assert run.summary["wer"].overall["n_items"] == 71
    # settings split in two: the statistics' and the run's
    from fairdesk.presentation.bootstrap_words import bootstrap_json
    from fairdesk.stats.bootstrap_plan import BootstrapPlan, bootstrap_rule

    s = d["settings"]
    assert run.settings == AuditSettings.from_dict(
        {k: v for k, v in s.items() if k in AuditSettings.__dataclass_fields__}
    )
    assert run.settings.n_bootstrap == 400 and run.n_bootstrap_used == s["n_bootstrap_used"]
    # the rule of a run stored before it was coded: kept as stored
    assert run.bootstrap is not None and run.bootstrap.rule is not None
    assert run.bootstrap.rule.code == "stored.sentence"
    worded = bootstrap_json({"bootstrap": run.bootstrap.to_json()})["bootstrap"]
    assert worded == s["bootstrap_raise"] == d["bootstrap"]
    coded = {**d["bootstrap"], "rule": bootstrap_rule().to_json()}
    assert BootstrapPlan.from_json(coded).rule == bootstrap_rule()
    # an old run's sentence read back into its code (and worded as it was)
    assert run.normaliser_reason == Notice("run.normaliser_set", {"name": "whisper-english"})
    assert notice_text(run.normaliser_reason) == s["normaliser_reason"]
    assert run.normaliser.reason == run.normaliser_reason
    rs = run.run_settings
    for k in RUN_SETTINGS_KEYS:
        got = getattr(rs, k)
        if k == "datasets" and k not in s:  # stored before it was kept: the default
            assert got == (), k
            continue
        if k in ("reference_text", "annotators_resampled") and k not in s:  # ditto
            assert got in (None, 0), k
            continue
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
    assert run.pitfalls.by_group["b"].n_items == pf["by_group"]["b"]["n_items"] == 35
    for g, row in pf["by_group"].items():  # typed GroupFlags, the same keys written back
        flags = run.pitfalls.by_group[g]
        assert flags.hallucinated == row["hallucinated"] and flags.items == tuple(row["items"])
        assert flags.loop == row["loop"] and flags.rate == row["rate"] and flags.extra == {}
        assert _stored(run.to_json())["pitfalls"]["by_group"][g] == row
    assert note_text(run.pitfalls.not_checked) == pf["not_checked"]  # a stored sentence
    wp = run.word_positions["c1"]
    assert wp.words == ("play", "the", "song")
    assert wp.errors["b"] == tuple(d["word_positions"]["c1"]["errors"]["b"])
    assert wp.groups["b"] == (0.0, 1.0, 0.0)
    pc = run.phone_confusion.groups["b"]
    assert pc.phone_error_rate == d["phone_confusion"]["groups"]["b"]["phone_error_rate"] == 0.25
    assert pc.per_phone["DH"].errors == 35 and pc.top[0].ref == "DH" and pc.top[0].hyp == "-"
    assert pc.matrix.phones == tuple(d["phone_confusion"]["groups"]["b"]["matrix"]["phones"])
    assert run.model_based["accent"].error == d["model_based"]["accent"]["error"]
    assert dict(run.timings) == d["timings"]


def test_to_json_writes_todays_keys_without_the_group_copies(payloads):
    d = payloads["run"]
    out = _stored(AuditRun.from_json(d).to_json())
    assert set(out) == set(d) | {"schema_version"}
    for k in set(d) - {
        "groups",
        "settings",
        "comparisons",
        "pitfalls",
        "notes",
        "warnings",
        "normaliser",
    }:
        assert out[k] == d[k], k
    assert out["normaliser"] == {
        **d["normaliser"],
        "reason": {"code": "run.normaliser_set", "args": {"name": "whisper-english"}},
    }
    # the notes and warnings are stored coded; their words are the old sentences
    again = AuditRun.from_json(out)
    for k in ("notes", "warnings"):
        assert all(set(n) == {"code", "args"} for n in out[k]), k
        assert notice_texts(getattr(again, k)) == d[k], k
    # the pitfalls' notes are coded when stored and worded at output time (--json)
    run = AuditRun.from_json(d)
    assert _stored(pitfalls_json(run.to_json(), run))["pitfalls"] == d["pitfalls"]
    assert out["pitfalls"]["not_checked"]["code"] == "pitfalls.over_nonspeech_not_checked"
    # a comparison's reading is written at output time (presentation.readings), not stored
    stored = [{k: v for k, v in c.items() if k != "reading"} for c in d["comparisons"]]
    assert out["comparisons"] == stored
    # an old run's settings read include_missing as off, and write it so
    # (and the datasets, kept since, as none)
    assert out["settings"] == {
        **d["settings"],
        "normaliser_reason": {"code": "run.normaliser_set", "args": {"name": "whisper-english"}},
        "include_missing": False,
        "datasets": [],
        "reference_text": None,  # stored before the choice: it used latest
        "annotators_resampled": 0,
    }
    assert AuditRun.from_json(d).settings.include_missing is False
    for g_old, g_new in zip(d["groups"], out["groups"], strict=True):
        # an old run's groups are groups (not the descriptive row of missing values)
        assert g_new == {
            **{k: v for k, v in g_old.items() if k not in g_old["values"]},
            "missing": False,
        }
    assert out["acoustics"] == d["acoustics"]


def test_representation_block(payloads):
    d = payloads["representation"]
    run = AuditRun.from_json(d)
    rep, src = run.representation, d["representation"]
    assert rep.silhouette == src["silhouette"] and rep.threshold == src["threshold"] == 0.1
    assert rep.structure == src["structure"] and dict(rep.cases) == src["cases"]
    assert rep.n_items == src["n_items"] == 71 and rep.model_key == src["model_key"]
    from fairdesk.stats.representation import Leakage

    assert isinstance(rep.leakage, Leakage) and rep.error is None
    from fairdesk.presentation.notices import notice_text

    # the note an older run stored as a sentence reads as stored
    assert {**dataclasses.asdict(rep.leakage), "note": notice_text(rep.leakage.note)} == src[
        "leakage"
    ]
    assert rep.leakage.chance == 0.5 and rep.leakage.split == "speaker"
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
    # the old sentence read back into its code and number, worded as it was
    assert run.notes == (Notice("run.all_failed", {"n": 40}),)
    assert (
        notice_texts(run.notes)
        == d["notes"]
        == ["every item failed (40); no statistics were computed"]
    )
    assert run.run_settings.model_key == d["settings"]["model_key"]
    assert run.counts.n_items == 40
    out = _stored(run.to_json())
    assert out["groups"] == [] and out["comparisons"] == []
    assert out["settings"] == {  # kept since: none
        **d["settings"],
        "datasets": [],
        "reference_text": None,
        "annotators_resampled": 0,
    }
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
    # stored before scaling became the default (AuditSettings' default is now on)
    assert run.settings.small_cluster_scaling is False
    assert AuditSettings().small_cluster_scaling is True
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
    res = _stored(res.to_json())
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
    assert built.n_bootstrap_used == run.result.bootstrap.used == 400
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


def test_stored_settings_without_the_scaling_key_read_as_off(payloads):
    """Runs stored before small-cluster scaling became the default read as off, on every
    decoding path: settings today's checks accept, settings they refuse (kept as stored),
    and a payload with groups but no statistics settings at all."""
    d = json.loads(json.dumps(payloads["run"]))
    d["settings"]["small_cluster_scaling"] = True
    assert AuditRun.from_json(d).settings.small_cluster_scaling is True
    del d["settings"]["small_cluster_scaling"]
    assert AuditRun.from_json(d).settings.small_cluster_scaling is False
    d["settings"]["n_bootstrap"] = 100  # refused today: opened as stored
    run = AuditRun.from_json(d)
    assert (run.settings.n_bootstrap, run.settings.small_cluster_scaling) == (100, False)
    assert run.settings.min_items == 20  # what it stored
    known = {f.name for f in dataclasses.fields(AuditSettings)}
    d["settings"] = {k: v for k, v in d["settings"].items() if k not in known}
    bare = AuditRun.from_json(d)
    assert bare.result is not None and bare.result.settings.small_cluster_scaling is False
    # a re-stored run keeps what it read
    assert _stored(run.to_json())["settings"]["small_cluster_scaling"] is False
