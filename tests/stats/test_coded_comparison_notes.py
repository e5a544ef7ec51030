"""A comparison's ``reason`` and ``sample`` are typed (a coded note, the sample's sizes):
their words come from presentation and equal what the statistics wrote before; runs stored
with the sentences open and read as stored."""

import dataclasses
import math

from fairdesk.jobs.result_codec import decode, encode
from fairdesk.presentation.estimability_words import reason_text, sample_text
from fairdesk.presentation.notices import notice_text
from fairdesk.presentation.readings import readings_json
from fairdesk.stats.estimability import descriptive_reason
from fairdesk.stats.notices import Notice, notice
from fairdesk.stats.results import BlockCounts, Comparison, ComparisonSample


def _comparison(**kw) -> Comparison:
    base = dict(
        metric="grounding_lift",
        group="b",
        reference="a",
        value=0.5,
        reference_value=1.5,
        gap=-1.0,
        ratio=1 / 3,
        effect_size=math.nan,
        ci_low=math.nan,
        ci_high=math.nan,
        p_value=math.nan,
        p_adjusted=math.nan,
        mde=math.nan,
        estimator="none",
        n_blocks=BlockCounts(2, 2, 2, 2, 2),
        design="matched",
        verdict="not_estimable",
        direction="worse",
        flags=(),
        n_items=2,
        n_speakers=None,
    )
    return Comparison(**{**base, **kw})


def test_the_descriptive_basis_note_reads_as_before():
    note = descriptive_reason("DER", "expected diacritics", {"c": 3.0, "the reference": 12.0})
    assert note is not None and note.code == "estimability.descriptive_basis"
    assert notice_text(note) == (
        "c has E = 3 expected diacritics (fewer than 10), so the DER is descriptive: shown, "
        "with no interval and no test"
    )
    both = descriptive_reason("TER", "expected tone marks", {"x": 2.5, "the reference": 0.0})
    assert notice_text(both).startswith(
        "x has E = 2.5 and the reference has E = 0 expected tone marks (fewer than 10)"
    )
    assert descriptive_reason("DER", "expected diacritics", {"c": 10.0}) is None


def test_a_sampled_metric_below_the_minimums_reads_as_before():
    note = notice(
        "minimums.sample_below",
        label="Grounding lift",
        items="explained items",
        group=2,
        reference=2,
        short=(("min_items", "b", 2, 5), ("min_speakers", "a", 1, 2)),
    )
    assert notice_text(note) == (
        "the grounding lift is computed on a sample, 2 + 2 explained items, and the minimums "
        "apply to it (2 explained items in b < min_items 5; 1 speaker in a's sample < "
        "min_speakers 2); a larger sample per group (--explain-per-group) or lower minimums "
        "(--min-items, --min-speakers) would allow a test"
    )


def test_a_units_note_on_a_sample_names_the_sample():
    inner = notice("estimability.few_speakers", k=1, name="b")
    note = notice(
        "estimability.on_sample",
        group=2,
        reference=3,
        items="explained items",
        reason=inner.to_json(),
    )
    assert notice_text(note) == "on the 2 + 3 explained items: " + notice_text(inner)


def test_typed_reason_and_sample_round_trip_and_write_words_in_json():
    c = _comparison(
        reason=notice("estimability.few_speakers", k=1, name="b"),
        sample=ComparisonSample(2, 2, "explained items"),
    )
    data = encode(c, Comparison)
    assert data["reason"] == {"code": "estimability.few_speakers", "args": {"k": 1, "name": "b"}}
    assert data["sample"] == {"group": 2, "reference": 2, "items": "explained items"}
    back = decode(data, Comparison)
    assert (back.reason, back.sample) == (c.reason, c.sample)
    assert sample_text(back.sample) == "the 2 + 2 explained items"

    class Run:
        comparisons = (back,)
        settings = None

    out = readings_json({"comparisons": [data]}, Run())["comparisons"][0]
    assert out["sample"] == "the 2 + 2 explained items"
    assert out["reason"] == reason_text(back.reason)
    assert out["reason"].startswith("one speaker in b: speaker and group cannot be told apart")


def test_a_run_stored_with_sentences_opens_and_reads_as_stored():
    stored = encode(_comparison(), Comparison)
    stored["reason"] = "an older sentence, kept as it was"
    stored["sample"] = "the 4 + 5 explained items"
    c = decode(stored, Comparison)
    assert c.reason == Notice("stored.sentence", {"text": "an older sentence, kept as it was"})
    assert reason_text(c.reason) == "an older sentence, kept as it was"
    assert c.sample == ComparisonSample(4, 5, "explained items")
    assert sample_text(c.sample) == "the 4 + 5 explained items"
    none = decode(encode(_comparison(), Comparison), Comparison)
    assert none.reason is None and none.sample is None and reason_text(None) is None


def test_the_interval_notes_read_as_the_statistics_wrote_them():
    from fairdesk.presentation.interval_words import note_json_text
    from fairdesk.stats.groupci import value_scheme

    speaker = (
        ": speaker and group cannot be told apart, so the group's value has no estimable "
        "interval; record more speakers (--resampling utterance describes these recordings only)"
    )
    assert notice_text(value_scheme(True, 1, 9, False, "speaker")[1]) == "one speaker" + speaker
    assert notice_text(value_scheme(True, 0, 9, False, "speaker")[1]) == "no speaker" + speaker
    cases = [
        (
            notice("interval.rule_of_three", metric="wer", value=0.0, n=252.0),
            "every unit gives 0.0%: the interval is the rule-of-three bound 3/n (n = 252)",
        ),
        (
            notice("interval.constant", metric="wer", value=0.25),
            "every unit gives 25.0%, so the resampled values do not vary: no interval",
        ),
        (
            notice("interval.descriptive_basis", e=3.0, unit="expected diacritics", minimum=10),
            "E = 3 expected diacritics (fewer than 10): descriptive, no interval",
        ),
        (
            notice("interval.no_spread"),
            "the resampled values do not vary although the items do: no interval",
        ),
    ]
    for note, words in cases:
        assert notice_text(note) == words
    corpus = notice("interval.corpus_group", reason=notice("interval.one_utterance").to_json())
    assert note_json_text(corpus.to_json()) == (
        "a group of the corpus has one utterance: nothing to resample"
    )
    assert note_json_text("a sentence stored before") == "a sentence stored before"


def test_an_exclusion_reads_as_the_statistics_wrote_it_and_opens_from_before():
    from fairdesk.stats.results import Exclusion, GroupInfo
    from fairdesk.stats.slicing import minimums_from_counts

    kept, excluded = minimums_from_counts({"a": 40, "east": 5}, {"a": 6, "east": 1}, 10, 5)
    assert kept == ["a"] and excluded[0][1].code == "minimums.excluded"
    assert notice_text(excluded[0][1]) == "5 items < min_items 10; 1 speaker < min_speakers 5"
    _, one = minimums_from_counts({"b": 1}, None, 3, 5)
    assert notice_text(one[0][1]) == "1 item < min_items 3"
    old = decode({"group": "east", "reason": "5 items < min_items 10"}, Exclusion)
    assert reason_text(old.reason) == "5 items < min_items 10"
    assert encode(old, Exclusion) == {"group": "east", "reason": "5 items < min_items 10"}
    g = decode(
        {
            "group": "east",
            "n_items": 5,
            "n_speakers": 1,
            "excluded": True,
            "reason": "x",
            "values": {},
            "ci_note": {"wer": "y"},
        },
        GroupInfo,
    )
    assert reason_text(g.reason) == "x" and notice_text(g.ci_note["wer"]) == "y"


def test_the_minimums_message_is_a_coded_note_worded_as_the_refusal_was():
    from fairdesk.presentation.minimums_words import exclusion_message
    from fairdesk.stats.minimums import exclusion_notice

    args = ({"a": 40, "b": 30, "c": 3}, {"a": 6, "b": 5}, 30, 5)
    note = exclusion_notice(*args)
    assert note is not None and note.code == "minimums.shortfall"
    assert notice_text(note) == exclusion_message(*args)
    assert notice_text(note).startswith(
        "The minimums (--min-items 30, --min-speakers 5) exclude 1 of 3 group(s).\n"
    )
    # the stored JSON form reads back to the same words
    assert notice_text(Notice.from_json(note.to_json())) == exclusion_message(*args)
    assert exclusion_notice({"a": 40, "b": 30}, None, 30, 5) is None


def test_the_probe_notes_read_as_the_statistics_wrote_them():
    cases = [
        (
            notice("representation.single_speaker_groups", groups=("north", "south")),
            "probe not run: group(s) north, south have a single speaker, and speaker-split "
            "folds need two per group; record more items or speakers per group",
        ),
        (
            notice(
                "representation.too_few_folds",
                n_splits=5,
                n_speakers=None,
                min_items=1,
                max_items=4,
            ),
            "probe not run: cross-validation needs at least 2 folds (5 asked) but there are a "
            "group of 1 item(s); record more items or speakers per group",
        ),
        (
            notice(
                "representation.fewer_folds",
                k=6,
                n_splits=8,
                min_items=10,
                max_items=10,
                n_speakers=6,
            ),
            "6 folds instead of 8: groups of 10 to 10 items, 6 speakers",
        ),
    ]
    for note, words in cases:
        assert notice_text(note) == words


def test_a_system_difference_reason_is_typed_and_reads_as_stored():
    from fairdesk.stats.system_results import SystemDifference

    data = {f.name: None for f in dataclasses.fields(SystemDifference)}
    data.update(flags=[], verdict="not_estimable", reason="one utterance: nothing to resample")
    d = decode(data, SystemDifference)
    assert d.reason == Notice("stored.sentence", {"text": "one utterance: nothing to resample"})
    assert encode(d, SystemDifference)["reason"] == "one utterance: nothing to resample"
    coded = decode({**data, "reason": notice("interval.one_utterance").to_json()}, SystemDifference)
    assert reason_text(coded.reason) == "one utterance: nothing to resample"


def test_the_command_line_prints_a_minimums_refusal_as_its_table():
    import pandas as pd
    import pytest

    from fairdesk.cli import error_text
    from fairdesk.presentation.minimums_words import exclusion_message
    from fairdesk.stats.minimums import MinimumsRefused, check_groups_before_inference

    items = pd.DataFrame(
        {"accent": ["x"] * 5 + ["y"] * 4, "speaker_id": [f"s{i % 3}" for i in range(9)]}
    )
    with pytest.raises(MinimumsRefused) as e:
        check_groups_before_inference(items, "accent", 5, 4)
    assert "exclude 2 of 2 group(s): nothing is left to compare (x: 5 items" in str(e.value)
    assert error_text(e.value) == exclusion_message({"x": 5, "y": 4}, {"x": 3, "y": 3}, 5, 4)
    assert error_text(ValueError("plain")) == "plain"
