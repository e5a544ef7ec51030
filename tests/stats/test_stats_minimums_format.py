"""Minimums that teach (checked before inference) and the console table text."""

import numpy as np
import pandas as pd
import pytest

from fairdesk.cli.console import format_groups, value_with_ci
from fairdesk.jobs.analysis import analyse
from fairdesk.jobs.result import AuditRun
from fairdesk.presentation.minimums_words import exclusion_message, shortfall_text
from fairdesk.stats import AuditSettings
from fairdesk.stats.minimums import check_groups_before_inference


def _items():
    """A 6-speaker digits corpus: 3 accents × 2 speakers × 10 items."""
    rows = []
    for a in ("en-gb", "en-in", "en-ng"):
        for s in range(2):
            for k in range(10):
                rows.append(
                    {
                        "accent": a,
                        "speaker_id": f"{a}-{s}",
                        "id": f"{a}{s}{k}",
                        "reference": f"{k} {k + 1} {k + 2}",
                    }
                )
    return pd.DataFrame(rows)


def test_default_minimums_exclude_everything_and_say_what_to_change():
    with pytest.raises(ValueError) as e:
        check_groups_before_inference(_items(), "accent", 30, 5)
    assert "exclude 3 of 3 group(s): nothing is left to compare" in str(e.value)
    msg = shortfall_text(e.value.shortfall)  # the command line's text of its numbers
    assert "exclude 3 of 3 group(s): nothing is left to compare" in msg
    assert "en-gb" in msg and "20 < 30" in msg and "2 < 5" in msg
    assert "--min-items 20 --min-speakers 2" in msg
    assert "wider intervals" in msg and "speaker_confounded" in msg and "not_estimable" in msg


def test_precheck_passes_and_checks_reference_and_by():
    pc = check_groups_before_inference(_items(), "accent", 20, 2, reference="en-in")
    assert pc.reference == "en-in" and pc.excluded == [] and pc.shortfall is None
    assert pc.sizes == {"en-gb": 20, "en-in": 20, "en-ng": 20}
    assert pc.speakers == {"en-gb": 2, "en-in": 2, "en-ng": 2}
    with pytest.raises(ValueError, match="not one of the groups"):
        check_groups_before_inference(_items(), "accent", 20, 2, reference="fr")
    with pytest.raises(ValueError, match="Unknown grouping column"):
        check_groups_before_inference(_items(), "dialect", 20, 2)
    items = _items()
    items.loc[items.accent == "en-ng", "speaker_id"] = "one"
    pc = check_groups_before_inference(items, "accent", 20, 2)
    assert [g for g, _ in pc.excluded] == ["en-ng"] and "1 < 2" in shortfall_text(pc.shortfall)
    with pytest.raises(ValueError, match="excluded by the minimums"):
        check_groups_before_inference(items, "accent", 20, 2, reference="en-ng")


def test_exclusion_message_without_speaker_ids():
    msg = exclusion_message({"a": 40, "b": 3}, None, 30, 5)
    assert "--min-items 3" in msg and "--min-speakers" not in msg
    assert exclusion_message({"a": 40, "b": 30}, None, 30, 5) is None


def test_console_table_shows_cis_corpus_and_reasons():
    rng = np.random.default_rng(1)
    rows = []
    for g, nspk in (("big", 6), ("solo", 1)):
        for s in range(nspk):
            for _k in range(8):
                ref = "play some music now"
                hyp = ref if rng.random() < 0.7 else "play sum music"
                rows.append(
                    {
                        "group": g,
                        "speaker_id": f"{g}{s}",
                        "reference": ref,
                        "hypothesis": hyp,
                        "line": len(rows) + 2,
                    }
                )
    rows.append(
        {"group": "big", "speaker_id": "big0", "reference": "", "hypothesis": "x", "line": 99}
    )
    st = AuditSettings(n_bootstrap=200, min_items=5, min_speakers=2, normaliser="auto")
    _, res = analyse(pd.DataFrame(rows), st, language=None)
    res = res.to_json()  # bridge: typed consumer pending
    text = format_groups(AuditRun.from_json(res))
    assert "(corpus, analysed groups)" in text and "WER % [95% CI]" in text
    big = next(g for g in res["groups"] if g["group"] == "big")
    assert value_with_ci(big["values"]["wer"], big["ci"]["wer"]) in text
    assert "exclude 1 of 2" in text and "problem: line 99" in text
    assert "normaliser: whisper-english" in text
    st = AuditSettings(n_bootstrap=200, min_items=5, min_speakers=1, normaliser="auto")
    _, res = analyse(pd.DataFrame(rows), st, language=None)
    res = res.to_json()  # bridge: typed consumer pending
    text = format_groups(AuditRun.from_json(res))
    assert "not_estimable: one speaker in solo" in text
