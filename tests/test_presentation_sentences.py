"""The readings word for word (METHODS.md §3: "a one-sentence plain-English reading with
the CI, p_adjusted, estimator and block count"), their numbers in the metric's unit as the
cards show them; written by ``fairdesk.presentation.readings`` from the typed result."""

import math

import pytest

from fairdesk.presentation.readings import blocks_text
from fairdesk.presentation.readings import no_variation_sentence as reading_no_variation
from fairdesk.presentation.readings import not_estimable_sentence as reading_not_estimable
from fairdesk.presentation.readings import verdict_sentence as reading
from fairdesk.stats.results import BlockCounts, NoVariation

BASE = dict(
    metric="wer",
    label="WER",
    group="scot",
    reference="us",
    value=0.3127,
    reference_value=0.2011,
    gap=0.1116,
    ci_low=0.0523,
    ci_high=0.1789,
    p_adjusted=0.0123,
    mde=0.0871,
    threshold=0.0555,
    estimator="speaker",
    conditional=False,
    n_blocks=BlockCounts(
        group_speakers=12,
        reference_speakers=14,
        contents=30,
        group_items=300,
        reference_items=350,
    ),
    direction_="worse",
    design="matched",
)
HEAD = (
    "WER is 31.3% for scot vs 20.1% for the reference us (gap +11.2 pp, 95% CI +5.2 to "
    "+17.9 pp, p_adjusted 0.012; "
)


def test_blocks_text_per_estimator():
    nb = BASE["n_blocks"]
    assert blocks_text("two_way", nb) == "12 + 14 speakers × 30 shared sentences"
    assert blocks_text("speaker", nb) == "12 + 14 speakers"
    assert blocks_text("content", nb) == "30 shared sentences"
    assert blocks_text("utterance", nb) == "300 + 350 utterances"


def test_speaker_confounded_reading_word_for_word():
    assert reading(**BASE, verdict="speaker_confounded") == (
        HEAD + "speaker cluster bootstrap, 12 + 14 speakers): the gap is significant (worse than "
        "the reference) but rests on too few speakers or on a single speaker, so get more "
        "speakers before concluding."
    )


def test_reading_with_every_caveat_word_for_word():
    text = reading(
        **{**BASE, "design": "unmatched", "estimator": "content", "conditional": True},
        verdict="disparity_detected",
        single_speaker=True,
        multiplicity=7,
    )
    assert text == (
        HEAD + "paired-by-content bootstrap, conditional on these speakers, 30 shared "
        "sentences): a disparity of practical size: scot does worse than the reference; the "
        "groups said different content, so the gap may reflect harder sentences rather than "
        "the group and is not causal; a side has a single speaker, so the interval describes "
        "these recordings of this speaker, not the group; the 95% CI excludes 0 on its own, "
        "but not once the 7 comparisons of this run are taken into account (Holm), so treat "
        "it as a lead to confirm."
    )


def test_single_speaker_caveat_alone_and_not_computable():
    text = reading(
        **{**BASE, "design": "unmatched", "gap": math.nan},
        verdict="not_computable",
        single_speaker=True,
    )
    assert text == (
        "WER is 31.3% for scot vs 20.1% for the reference us (gap undefined, 95% CI +5.2 to "
        "+17.9 pp, p_adjusted 0.012; speaker cluster bootstrap, 12 + 14 speakers): not computable "
        "(the metric is undefined on one side, e.g. a zero denominator); a side has a single "
        "speaker, so the interval describes these recordings of this speaker, not the group."
    )
    assert "single speaker" not in reading(**BASE, verdict="disparity_detected")


def test_reading_not_estimable_word_for_word():
    text = reading_not_estimable("wer", "WER", "scot", "us", 0.25, 0.125, "fewer than 2 speakers")
    assert text == (
        "WER is 25.0% for scot vs 12.5% for the reference us, but no verdict is possible: "
        "fewer than 2 speakers."
    )


def test_reading_no_variation_word_for_word():
    nv = NoVariation(
        unit="items", value=1.0, n_group=40, n_reference=60, bound_group=0.075, bound_reference=0.05
    )
    assert reading_no_variation("em", "EM", "scot", "us", nv) == (
        "EM is 100.0% on every item of both scot and the reference us: there is no variation to "
        "compare, which is not evidence of no disparity. With 40 and 60 items, the rate of the "
        "other outcome is below 7.5% in scot and 5.0% in us (rule of three, 95%); test more "
        "or harder material to tell the groups apart."
    )


@pytest.mark.parametrize(
    "verdict, tail",
    [
        (
            "significant_but_small",
            "a significant but small difference (worse), below the practical threshold of 5.5 pp",
        ),
        (
            "inconclusive_underpowered",
            "inconclusive, not fine: this sample could only detect gaps "
            "of 8.7 pp or more, above the practical threshold of 5.5 pp",
        ),
        (
            "no_disparity_detected",
            "no disparity detected, and the sample could have detected a "
            "gap of 8.7 pp (practical threshold 5.5 pp)",
        ),
    ],
)
def test_other_tails_word_for_word(verdict, tail):
    assert reading(**{**BASE, "estimator": "two_way"}, verdict=verdict) == (
        HEAD + "two-way bootstrap (speakers × sentences), 12 + 14 speakers × 30 shared "
        f"sentences): {tail}."
    )
