"""Audit pitfalls end to end: hallucination rate per group (planted via imported predictions),
WER carried by one utterance, verdicts without flagged items, words over non-speech, and the
normaliser sensitivity table."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from fairdesk.core.runs import run_items_frame
from fairdesk.jobs import AuditRequest, run_audit
from fairdesk.jobs.analysis import analyse
from fairdesk.stats import AuditSettings, compare_groups
from fairdesk.stats.pitfalls import dominant_items
from tests.conftest import espeak, tone_project

LOOP = "do not know " * 12


def test_hallucination_rate_per_group_from_planted_predictions(tmp_path):
    p, root = tone_project(tmp_path, {"a": 0.5, "b": 0.5}, 6, 6, "play the song")
    planted = {
        "a": {(0, 0), (3, 2)},
        "b": {(s, c) for s in range(6) for c in range(6) if (s + c) % 4 == 0},
    }
    lines = ["path,text"]
    for g, cells in planted.items():
        for s in range(6):
            for c in range(6):
                text = f"play the song {LOOP}" if (s, c) in cells else "play the song"
                lines.append(f"{g}/{s}_{c}.wav,{text}")
    preds = tmp_path / "preds.csv"
    preds.write_text("\n".join(lines) + "\n")
    n_a, n_b = len(planted["a"]), len(planted["b"])
    assert (n_a, n_b) == (2, 9)
    settings = AuditSettings(n_bootstrap=4000, min_items=20, min_speakers=5, resampling="utterance")
    # default audit: reported per group, not tested (Holm family unchanged)
    req = AuditRequest(
        dataset="d", model=f"predictions:{preds}", by=("accent",), nlu="none", settings=settings
    )
    res = run_audit(p, req).result.to_json()  # bridge: typed consumer pending
    groups = {g["group"]: {**g, **g["values"]} for g in res["groups"]}
    assert groups["a"]["hallucination_rate"] == pytest.approx(n_a / 36)
    assert groups["b"]["hallucination_rate"] == pytest.approx(n_b / 36)
    assert "hallucination_rate" in res["descriptive_metrics"]
    assert "hallucination_rate" not in res["tested_metrics"]
    assert {c["metric"] for c in res["comparisons"]} == set(res["tested_metrics"])
    assert res["pitfalls"]["by_group"]["b"]["loop"] == n_b
    assert res["pitfalls"]["flags_checked"] == ["loop", "runaway"]  # no word times
    # wer_unflagged: every unflagged item is correct
    assert groups["b"]["wer_unflagged"] == 0.0 and groups["b"]["wer"] > 0.5
    # asked for: tested, in the Holm family, with a CI that matches a Wald interval
    req2 = AuditRequest(
        dataset="d",
        model=f"predictions:{preds}",
        by=("accent",),
        nlu="none",
        settings=settings,
        metrics=("wer", "hallucination_rate"),
    )
    res2 = run_audit(p, req2).result.to_json()  # bridge: typed consumer pending
    (c,) = [c for c in res2["comparisons"] if c["metric"] == "hallucination_rate"]
    pa, pb = n_a / 36, n_b / 36
    assert c["gap"] == pytest.approx(pb - pa)
    se = math.sqrt(pa * (1 - pa) / 36 + pb * (1 - pb) / 36)
    assert c["ci_low"] == pytest.approx(pb - pa - 1.96 * se, abs=0.03)
    assert c["ci_high"] == pytest.approx(pb - pa + 1.96 * se, abs=0.03)
    assert c["ci_low"] <= pb - pa <= c["ci_high"]
    assert len(res2["comparisons"]) == 2  # wer and hallucination_rate, one group each


def test_a_group_carried_by_one_utterance_gets_the_flag_naming_it():
    rows = []
    for g in ("a", "b"):
        for k in range(30):
            ref = "alpha bravo charlie delta echo"
            hyp = "alpha bravo charlie delta" if k % 3 == 0 else ref  # 10 deletions per group
            rows.append({"group": g, "item_id": f"{g}{k}", "reference": ref, "hypothesis": hyp})
    rows[45]["hypothesis"] = "alpha bravo " + " ".join(f"zz{chr(97 + i)}" for i in range(13))
    frame = pd.DataFrame(rows)
    f, res = analyse(frame, AuditSettings(n_bootstrap=200, min_items=20), language="en")
    res = res.to_json()  # bridge: typed consumer pending
    # by hand: b has 9 single deletions + item b15 with 3 subs + 10 insertions = 22 errors
    dom = dominant_items(f)
    assert list(dom) == ["b"]
    assert dom["b"].item == "b15" and dom["b"].errors == 13
    assert dom["b"].group_errors == 22 and dom["b"].share == pytest.approx(13 / 22)
    assert dom["b"].wer == pytest.approx(22 / 150)
    assert dom["b"].wer_without_item == pytest.approx(9 / 145)
    groups = {g["group"]: {**g, **g["values"]} for g in res["groups"]}
    assert groups["b"]["wer_dominated_by"]["item"] == "b15"
    assert groups["a"]["wer_dominated_by"] is None  # 10 errors < 20
    assert res["pitfalls"]["wer_dominated"][0]["item"] == "b15"


def test_verdicts_that_change_without_flagged_items_say_so():
    rows = []
    rng = np.random.default_rng(3)
    for g in ("a", "b"):
        for s in range(12):
            for c in range(5):
                ref = f"play the song number {c} now please"
                hyp = ref
                if g == "b" and rng.random() < 0.5:
                    hyp = ref + " " + LOOP
                rows.append(
                    {
                        "group": g,
                        "speaker_id": f"{g}{s}",
                        "content_id": f"c{c}",
                        "item_id": f"{g}{s}_{c}",
                        "reference": ref,
                        "hypothesis": hyp,
                    }
                )
    frame = pd.DataFrame(rows)
    settings = AuditSettings(n_bootstrap=400, min_items=20)
    f, res = analyse(frame, settings, language="en")
    res = res.to_json()  # bridge: typed consumer pending
    (c,) = [c for c in res["comparisons"] if c["metric"] == "wer"]
    assert c["verdict"] == "disparity_detected"
    # independent recomputation on the unflagged items
    rest = f[f["hallucinated"] == 0].reset_index(drop=True)
    from fairdesk.metrics import metric_specs

    again = compare_groups(
        rest, metric_specs(rest, ["wer", "cer"]), settings, reference="a"
    ).comparison("wer", "b")
    assert c["without_flagged"]["verdict"] == again.verdict != c["verdict"]
    assert "verdict_changes_without_flagged_items" in c["flags"]
    changed = {(x["metric"], x["group"]) for x in res["pitfalls"]["verdicts_without_flagged"]}
    assert ("wer", "b") in changed
    assert c["without_flagged"]["n_flagged_group"] == int(
        f.loc[f.group == "b", "hallucinated"].sum()
    )


class TimedBackend:
    """Words with times; on long clips (trailing silence) two words land in the silence."""

    id = "fake-timed"
    fingerprint = "v1"
    device = "cpu"
    capabilities = {"transcribe"}

    def transcribe(self, audios):
        from fairdesk.models.base import Transcription, Word

        out = []
        for a in audios:
            words = [Word("the", 0.55, 0.7, 0.9), Word("fox", 0.8, 1.0, 0.8)]
            dur = a.size / 16000
            if dur > 4.0:
                words += [
                    Word("thank", dur - 1.0, dur - 0.8, 0.3),
                    Word("you", dur - 0.8, dur - 0.6, 0.3),
                ]
            out.append(Transcription(" ".join(w.text for w in words), tuple(words), 0.7, "en"))
        return out


def test_words_over_nonspeech_flagged_by_the_audit_job(tmp_path, capsys):
    import soundfile as sf

    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project
    from fairdesk.review import item_report

    sp = espeak("the quick brown fox", tmp_path)
    root = tmp_path / "data"
    lines = ["path,text,speaker_id,accent"]
    for g, tail in (("a", 0.5), ("b", 2.5)):
        x = np.concatenate(
            [np.zeros(8000, np.float32), sp, np.zeros(int(tail * 16000), np.float32)]
        )
        for s in range(3):
            rel = f"{g}/{s}.wav"
            (root / g).mkdir(parents=True, exist_ok=True)
            sf.write(str(root / rel), x * (1 + 0.01 * s), 16000)
            lines.append(f"{rel},the fox,{g}{s},{g}")
    (root / "m.csv").write_text("\n".join(lines) + "\n")
    p = Project(tmp_path / "proj")
    import_dataset(p, "d", root / "m.csv")
    req = AuditRequest(
        dataset="d",
        model="fake",
        by=("accent",),
        nlu="none",
        settings=AuditSettings(
            n_bootstrap=200, min_items=2, min_speakers=2, resampling="utterance"
        ),
    )
    out = run_audit(p, req, backend=TimedBackend())
    res = out.result.to_json()  # bridge: typed consumer pending
    assert res["pitfalls"]["flags_checked"] == ["loop", "runaway", "over_nonspeech"]
    by = res["pitfalls"]["by_group"]
    assert by["b"]["over_nonspeech"] == 3 and by["a"]["over_nonspeech"] == 0
    assert res["acoustics"]["word_times"] and res["acoustics"]["vad"]["threshold"] == 0.35
    items = run_items_frame(p, out.run_id)
    for col in (
        "duration_s",
        "speech_s",
        "nonspeech_share",
        "snr_db",
        "speech_rate",
        "asr_confidence",
        "hallucination_evidence",
        "speech_regions",
    ):
        assert col in items.columns
    b = items[items["group"] == "b"].iloc[0]
    assert b["nonspeech_share"] > a_share(items) and b["asr_confidence"] == 0.7
    assert b["speech_rate"] == pytest.approx(2 / b["speech_s"])
    ev = json.loads(b["hallucination_evidence"])
    assert [e["word"] for e in ev] == ["thank", "you"]
    rep = item_report(b.to_dict())
    assert rep["hallucination_lines"][0].startswith('over non-speech: "thank"')
    assert rep["acoustics"]["nonspeech_share"] == pytest.approx(b["nonspeech_share"])
    from fairdesk.cli import main

    capsys.readouterr()
    assert (
        main(
            [
                "show",
                "--project",
                str(p.folder),
                "--run",
                str(out.run_id),
                "--group",
                "b",
                "--worst",
                "1",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert 'HALLUCINATION over non-speech: "thank"' in printed and "nonspeech_share" in printed


def a_share(items):
    return float(items.loc[items["group"] == "a", "nonspeech_share"].max())


class SamplingBackend(TimedBackend):
    """Sampled decodes agree on group a's clips (short) and disagree on group b's (long)."""

    def transcribe_sampled(self, audios, temperature):
        from fairdesk.models.base import Transcription

        return [
            Transcription(
                "the fox" if a.size / 16000 < 4.0 or k == 0 else "thank you for watching the fox",
                (),
                None,
                "en",
            )
            for k, a in enumerate(audios)
        ]


def test_unstable_items_from_two_sampled_decodes(tmp_path):
    from fairdesk.core.errors import FairdeskError

    p, _root = tone_project(tmp_path, {"a": 0.5, "b": 4.5}, 3, 2, "the fox")
    settings = AuditSettings(n_bootstrap=200, min_items=2, min_speakers=2, resampling="utterance")
    req = AuditRequest(
        dataset="d", model="fake", by=("accent",), nlu="none", settings=settings, unstable=True
    )
    res = run_audit(
        p, req, backend=SamplingBackend()
    ).result.to_json()  # bridge: typed consumer pending
    by = res["pitfalls"]["by_group"]
    assert (by["a"]["unstable"], by["b"]["unstable"]) == (0, 6)
    assert "unstable" in res["pitfalls"]["flags_checked"]
    assert res["acoustics"]["unstable"]["temperature"] == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    # "the fox" vs "thank you for watching the fox": 4 insertions over 6 words
    items = run_items_frame(p, res["run_id"])
    ev = json.loads(items.loc[items.group == "b", "hallucination_evidence"].iloc[0])
    assert [e["edit_rate"] for e in ev if e["flag"] == "unstable"] == [
        pytest.approx(4 / 6, abs=1e-4)
    ]
    with pytest.raises(FairdeskError, match="cannot sample"):
        run_audit(p, req, backend=TimedBackend())
