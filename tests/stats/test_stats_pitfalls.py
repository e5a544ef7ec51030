"""The pitfalls statistics (fairdesk.stats.pitfalls, fairdesk.stats.sensitivity) on typed
inputs: the item that carries a group's WER, the flag counts, the verdicts recomputed without
the flagged items (against an independent compare_groups on the unflagged rows) and the
normaliser sensitivity (against jiwer)."""

import jiwer
import numpy as np
import pandas as pd
import pytest

from fairdesk.jobs.analysis import analyse
from fairdesk.metrics import basic, metric_specs
from fairdesk.stats import AuditSettings, compare_groups
from fairdesk.stats.pitfalls import dominant_items, flag_counts, verdicts_without_flagged
from fairdesk.stats.sensitivity import normaliser_sensitivity

LOOP = "do not know " * 12


def test_sensitivity_table_shows_the_flip_of_the_english_normaliser():
    rows = []
    for g in ("a", "b"):
        for s in range(12):
            for c in range(5):
                ref = f"i have twenty dollars and it is late number {c}"
                hyp = ref if g == "a" else f"I have $20 and it's late number {c}"
                rows.append(
                    {
                        "group": g,
                        "speaker_id": f"{g}{s}",
                        "content_id": f"c{c}",
                        "reference": ref,
                        "hypothesis": hyp,
                    }
                )
    frame = pd.DataFrame(rows)
    settings = AuditSettings(n_bootstrap=400, min_items=20)
    _f, res = analyse(frame, settings, language="en")
    res = res.to_json()  # bridge: typed consumer pending
    block = normaliser_sensitivity(frame, settings, res["reference"], res["tested_metrics"], "en")
    assert block.run_normaliser == "whisper-english"
    row = [r for r in block.rows if r.metric == "wer"][0]
    assert not row.holds and block.n_flipped >= 1
    assert row.value["whisper-english"] == 0.0  # "$20" -> "20 dollars", "it's" -> "it is"
    assert row.verdict["whisper-english"] != "disparity_detected"
    assert row.verdict["whisper-basic"] == "disparity_detected"
    # independent: jiwer on the basic-normalised texts of group b
    b = frame[frame.group == "b"]
    want = jiwer.wer([basic(t) for t in b.reference], [basic(t) for t in b.hypothesis])
    assert row.value["whisper-basic"] == pytest.approx(want)
    none = jiwer.wer([" ".join(t.split()) for t in b.reference], list(b.hypothesis))
    assert row.value["none"] == pytest.approx(none)


def test_dominance_thresholds_are_at_least_20_errors_and_more_than_a_quarter():
    def frame(errors):
        return pd.DataFrame(
            {
                "group": "g",
                "item_id": [f"i{k}" for k in range(len(errors))],
                "n_sub": errors,
                "n_del": 0,
                "n_ins": 0,
                "n_words": 10,
            }
        )

    assert dominant_items(frame([5, 5, 5, 5])) == {}  # 20 errors, 1/4 exactly
    assert dominant_items(frame([6, 5, 5, 4]))["g"].item == "i0"  # 20 errors, 6/20
    assert dominant_items(frame([6, 5, 5, 3])) == {}  # 19 errors


def _loop_frame():
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
    return pd.DataFrame(rows)


def test_verdicts_without_flagged_on_the_typed_result():
    settings = AuditSettings(n_bootstrap=400, min_items=20)
    f, run = analyse(_loop_frame(), settings, language="en")
    specs = metric_specs(f, ["wer", "cer", "hallucination_rate"])
    result = compare_groups(f, specs, settings, reference="a")
    entries, changed = verdicts_without_flagged(f, result, specs, settings)
    # the flag metric itself is not recomputed; wer and cer are, against an independent run
    assert set(entries) == {("wer", "b"), ("cer", "b")}
    rest = f[f["hallucinated"] == 0].reset_index(drop=True)
    again = compare_groups(rest, metric_specs(rest, ["wer", "cer"]), settings, reference="a")
    n_b = int(f.loc[f.group == "b", "hallucinated"].sum())
    for (m, g), e in entries.items():
        want = again.comparison(m, g)
        assert e.verdict == want.verdict and e.gap == pytest.approx(want.gap)
        assert e.n_flagged_group == n_b > 0 and e.n_flagged_reference == 0
    assert {(x["metric"], x["group"]) for x in changed} == {
        k for k, e in entries.items() if e.verdict != result.comparison(*k).verdict
    }
    assert result.comparison("wer", "b").without_flagged is None  # the input is not changed
    # the stage wrote the same entries into the run's comparisons
    assert run.comparison("wer", "b").without_flagged == entries[("wer", "b")]


def test_flag_counts_by_hand():
    f, _run = analyse(_loop_frame(), AuditSettings(n_bootstrap=200, min_items=20), language="en")
    counts = flag_counts(f)
    for g, sub in f.groupby("group"):
        flagged = sub[sub["hallucinated"] == 1]
        assert counts[g]["n_items"] == len(sub) == 60
        assert counts[g]["hallucinated"] == len(flagged)
        assert counts[g]["rate"] == pytest.approx(len(flagged) / 60)
        assert counts[g]["items"] == list(flagged["item_id"])
    assert counts["a"]["hallucinated"] == 0 and counts["b"]["loop"] > 0


def test_sensitivity_without_a_text_metric_is_a_coded_note_worded_as_before():
    from fairdesk.jobs.result import AuditRun
    from fairdesk.presentation.notices import notice_text
    from fairdesk.presentation.run_notes import words_json
    from fairdesk.stats.sensitivity_types import NO_TEXT_METRIC, NormaliserSensitivity

    frame = pd.DataFrame({"group": ["a"], "reference": ["x"], "hypothesis": ["x"]})
    block = normaliser_sensitivity(frame, AuditSettings(), None, ["bleu"], "en")
    assert block.note is not None and block.note.code == NO_TEXT_METRIC and not block.rows
    sentence = "no tested text metric (WER/CER family) to re-score"
    assert notice_text(block.note) == sentence
    stored = {  # as a run stored it before the note was coded
        "normalisers": ["whisper-english", "none"],
        "run_normaliser": "whisper-english",
        "metrics": [],
        "rows": [],
        "n_comparisons": 0,
        "n_flipped": 0,
        "note": sentence,
    }
    old = NormaliserSensitivity.from_json(stored)
    assert old.note is not None and old.note.code == NO_TEXT_METRIC
    run = AuditRun(normaliser_sensitivity=old)
    assert words_json(run.to_json(), run)["normaliser_sensitivity"] == stored
