"""The typed audit result on the payloads of the optional stages: explain with phone-level
annotations (L2-ARCTIC style) and the unstable flag's sampled decodes."""

import dataclasses
import json

from fairdesk.jobs import AuditRequest, run_audit
from fairdesk.jobs.result import AuditRun
from fairdesk.jobs.result_blocks import (
    AccentednessRegression,
    Explain,
    ExplainItem,
    GroupGrounding,
    ItemGrounding,
    PhoneAnnotations,
)
from fairdesk.presentation.notices import notice_text
from fairdesk.presentation.readings import readings_json
from fairdesk.stats import AuditSettings
from tests.conftest import tone_project
from tests.explain.test_audit_explain import FakeAligner, RegionScoreBackend
from tests.jobs.test_audit_result_codec import V1
from tests.jobs.test_phone_annotations import _annotate
from tests.jobs.test_pitfalls import SamplingBackend


def _stored(payload) -> dict:
    return json.loads(json.dumps(payload))


def _same_json(out: dict, d: dict) -> None:
    """``to_json`` gives today's payload back, less the duplicated group value keys."""
    assert set(out) == set(d) | {"schema_version"}
    for k in set(d) - {"groups"}:
        assert out[k] == d[k], k
    for g_old, g_new in zip(d["groups"], out["groups"], strict=True):
        assert g_new == {k: v for k, v in g_old.items() if k not in g_old["values"]}


def test_explain_and_phone_annotation_blocks(tmp_path):
    project = tone_project(tmp_path, {"a": 0.5, "b": 0.7}, 10, 3, "play the song")[0]
    _annotate(project)
    req = AuditRequest(
        dataset="d",
        model="fake",
        by=("accent",),
        nlu="none",
        explain=True,
        explain_per_group=3,
        metrics=("wer",),
        settings=AuditSettings(n_bootstrap=300, min_items=20, min_speakers=5),
    )
    d = _stored(
        run_audit(
            project, req, backend=RegionScoreBackend(), aligner=FakeAligner()
        ).result.to_json()
    )
    run = AuditRun.from_json(d)
    assert AuditRun.from_json(_stored(run.to_json())) == run
    _same_json(_stored(run.to_json()), d)
    ex = run.explain
    assert isinstance(ex, Explain) and ex.method == d["explain"]["method"]
    assert ex.n_sampled == d["explain"]["n_sampled"] == 6
    assert dict(ex.items_explained) == d["explain"]["items_explained"]
    assert all(isinstance(i, ExplainItem) for i in ex.items)
    assert [i.lift for i in ex.items] == [i["lift"] for i in d["explain"]["items"]]
    assert [i.group for i in ex.items] == [i["group"] for i in d["explain"]["items"]]
    assert ex.phone_error_grounding["b"].n_auroc == 3
    assert run.run_settings.explain is True and run.run_settings.explain_per_group == 3
    pa = run.phone_annotations
    assert isinstance(pa, PhoneAnnotations)
    src = d["phone_annotations"]
    assert pa.groups["b"].accentedness == src["groups"]["b"]["accentedness"] == 0.2
    assert (
        pa.groups["a"].n_errors == 0 and pa.groups["b"].n_phones == src["groups"]["b"]["n_phones"]
    )
    assert pa.confusion["b"].n_errors == src["confusion"]["b"]["n_errors"]
    assert pa.confusion["b"].rates_over == src["confusion"]["b"]["rates_over"]
    reg = d["accentedness_regression"]
    assert isinstance(run.accentedness_regression, AccentednessRegression)
    assert run.accentedness_regression.estimable is reg["estimable"] is False
    assert "function of the group" in notice_text(run.accentedness_regression.reason)
    assert run.accentedness_regression.n_per_group == reg["n_per_group"]
    b = ex.phone_error_grounding["b"]
    assert isinstance(b, GroupGrounding) and b.n_auroc == 3
    assert all(
        isinstance(i.phone_error_grounding, ItemGrounding) for i in ex.items if i.group == "b"
    )
    # the same blocks as main's producers stored them (fixture payload, schema 1)
    old = json.loads(V1.read_text(encoding="utf-8"))["explain_annotations"]
    worded = readings_json(d, run)  # the regression's reason is stored coded, --json words it
    for key in ("phone_annotations", "accentedness_regression"):
        assert worded[key] == old[key], key
    strip = ("seconds",)
    assert {k: v for k, v in d["explain"].items() if k not in strip} == {
        k: v for k, v in old["explain"].items() if k not in strip
    }
    # the stored sentence reads as the coded note's words; the numbers are the same
    was, now = AuditRun.from_json(old).accentedness_regression, run.accentedness_regression
    assert notice_text(was.reason) == notice_text(now.reason)
    assert dataclasses.replace(was, reason=None) == dataclasses.replace(now, reason=None)
    assert AuditRun.from_json(old).explain.items == run.explain.items


def test_unstable_block(tmp_path):
    p, _root = tone_project(tmp_path, {"a": 0.5, "b": 4.5}, 3, 2, "the fox")
    settings = AuditSettings(n_bootstrap=200, min_items=2, min_speakers=2, resampling="utterance")
    req = AuditRequest(
        dataset="d", model="fake", by=("accent",), nlu="none", settings=settings, unstable=True
    )
    d = _stored(run_audit(p, req, backend=SamplingBackend()).result.to_json())
    run = AuditRun.from_json(d)
    assert AuditRun.from_json(_stored(run.to_json())) == run
    _same_json(_stored(run.to_json()), d)
    un = run.acoustics.unstable
    assert un.temperature == tuple(d["acoustics"]["unstable"]["temperature"])
    assert un.n_decoded == d["acoustics"]["unstable"]["n_decoded"] and un.reproducible is False
    assert run.pitfalls.by_group["b"].unstable == 6
    assert "unstable" in run.pitfalls.flags_checked and run.run_settings.unstable is True


def test_table_audit_with_intents(tmp_path):
    import numpy as np
    import pandas as pd

    from fairdesk.cli import main

    rng = np.random.default_rng(3)
    rows = []
    for g in ("north", "south"):
        for i in range(40):
            intent = ("play", "stop")[i % 2]
            wrong = rng.random() < (0.1 if g == "north" else 0.4)
            rows.append(
                {
                    "item_id": f"{g}{i}",
                    "reference": "play the song" if intent == "play" else "stop it",
                    "hypothesis": "play song" if wrong else "play the song",
                    "ref_intent": intent,
                    "hyp_intent": ("stop" if intent == "play" else "play") if wrong else intent,
                    "speaker_id": f"{g}{i % 8}",
                    "accent": g,
                }
            )
    df = pd.DataFrame(rows)
    path, out = tmp_path / "t.csv", tmp_path / "o.json"
    df.to_csv(path, index=False)
    args = ["audit", "--table", str(path), "--by", "accent", "--n-bootstrap", "200"]
    assert main([*args, "--quiet", "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    run = AuditRun.from_json(d)
    assert AuditRun.from_json(_stored(run.to_json())) == run
    assert run.table == d["table"] == str(path) and run.problems == tuple(d["problems"])
    assert run.run_settings.language == d["settings"]["language"]
    assert run.run_settings.by == ("accent",) and run.run_settings.model is None
    for g, sub in df.groupby("accent"):
        m = run.intent_confusion[g]
        want = pd.crosstab(sub["ref_intent"], sub["hyp_intent"]).reindex(
            index=list(m.true), columns=list(m.predicted), fill_value=0
        )
        assert m.matrix == tuple(tuple(int(x) for x in r) for r in want.to_numpy())
    assert run.extra == {} and run.settings_extra == {}


def test_no_diacritic_items_block(tmp_path):
    import pandas as pd

    from fairdesk.cli import main

    mono = "O na-eri oji n'ututu"
    rows = []
    for i in range(40):
        rows.append((mono, "Ọ na-eri oji n'ututu" if i % 2 else mono, "orthographic", f"s{i % 6}"))
        rows.append(("àkwà ákwá", "akwa akwa" if i % 2 else "àkwà ákwá", "tone", f"t{i % 6}"))
    src, out = tmp_path / "t.csv", tmp_path / "a.json"
    cols = ["reference", "hypothesis", "category", "speaker_id"]
    pd.DataFrame(rows, columns=cols).to_csv(src, index=False)
    args = ["audit", "--table", str(src), "--by", "category", "--n-bootstrap", "200"]
    assert main([*args, "--quiet", "--json", str(out)]) == 0
    d = json.loads(out.read_text(encoding="utf-8"))
    run = AuditRun.from_json(d)
    assert AuditRun.from_json(_stored(run.to_json())) == run
    block = run.no_diacritic_items
    assert block.groups["tone"] is None and d["no_diacritic_items"]["groups"]["tone"] is None
    assert dict(block.groups["orthographic"]) == d["no_diacritic_items"]["groups"]["orthographic"]
    assert block.groups["orthographic"]["added"] == 20
    assert dict(block.overall) == d["no_diacritic_items"]["overall"]
    assert notice_text(block.reading) == d["no_diacritic_items"]["reading"]
    assert run.group("orthographic").values["dia_added_no_dia"] == 20
    # stored coded; --json words it as before
    assert _stored(run.to_json())["no_diacritic_items"]["reading"] == {
        "code": "run.no_diacritic_items",
        "args": {},
    }
    assert readings_json(run.to_json(), run)["no_diacritic_items"] == d["no_diacritic_items"]
