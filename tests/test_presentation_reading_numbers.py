"""Every verdict's reading carries the numbers it is about (METHODS.md §3: the CI,
p_adjusted, estimator and block count), each formatted from the value given in the metric's
unit, as the cards and tables show it (a WER of 0.3127 reads 31.3%, its gap +11.2 pp)."""

import math

import pytest

from fairdesk.presentation.readings import _p, _said
from fairdesk.presentation.readings import verdict_sentence as reading
from fairdesk.presentation.units import fmt_gap, fmt_size, fmt_value
from fairdesk.stats.results import BlockCounts

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
        contents=None,
        group_items=300,
        reference_items=350,
    ),
    direction_="worse",
    design="matched",
)


@pytest.mark.parametrize(
    "verdict, numbers, words",
    [
        ("disparity_detected", [], "a disparity of practical size: scot does worse than"),
        ("significant_but_small", ["5.5 pp"], "significant but small difference (worse)"),
        ("inconclusive_underpowered", ["8.7 pp", "5.5 pp"], "inconclusive, not fine"),
        ("no_disparity_detected", ["8.7 pp", "5.5 pp"], "no disparity detected"),
        ("speaker_confounded", [], "get more speakers"),
    ],
)
def test_reading_names_its_numbers(verdict, numbers, words):
    text = reading(**BASE, verdict=verdict)
    assert text.startswith(
        "WER is 31.3% for scot vs 20.1% for the reference us (gap +11.2 pp, "
        "95% CI +5.2 to +17.9 pp, p_adjusted 0.012; "
    )
    assert "12 + 14 speakers" in text
    for n in numbers:
        assert n in text, (n, text)
    assert words in text
    assert "not causal" not in text and "Holm" not in text


def test_reading_caveats():
    text = reading(**{**BASE, "design": "unmatched"}, verdict="disparity_detected", multiplicity=7)
    assert "different content" in text and "not causal" in text and "(Holm)" in text
    undefined = reading(
        **{
            **BASE,
            "gap": math.nan,
            "ci_low": math.nan,
            "ci_high": math.nan,
            "p_adjusted": math.nan,
            "value": math.nan,
        },
        verdict="not_computable",
    )
    assert "gap undefined" in undefined and "undefined to undefined" in undefined
    assert "p_adjusted undefined" in undefined and "not computable" in undefined
    assert "different content" not in reading(
        **{**BASE, "design": "unmatched"}, verdict="not_computable"
    )


def test_number_formats():
    def said(fmt, *args):
        return _said(fmt(*args))

    assert (said(fmt_value, "wer", None), said(fmt_value, "wer", math.inf)) == (
        "undefined",
        "undefined",
    )
    assert (said(fmt_value, "wer", 0.123456), said(fmt_gap, "wer", -0.0123)) == (
        "12.3%",
        "-1.2 pp",
    )
    assert said(fmt_size, "wer", -0.0123) == "1.2 pp"
    # a ratio metric: its values are multipliers, its gaps plain differences
    assert (said(fmt_value, "grounding_lift", 1.5), said(fmt_gap, "grounding_lift", -0.16)) == (
        "1.50×",
        "-0.16",
    )
    assert (_p(math.nan), _p(0.001), _p(0.00099), _p(0.04567)) == (
        "undefined",
        "0.001",
        "< 0.001",
        "0.046",
    )


def test_the_readings_p_is_the_cards():
    from fairdesk.presentation import fmt_p

    for p in (1.0, 0.268, 0.0123, 0.0004):
        assert f"p_adjusted {fmt_p(p)};" in reading(**{**BASE, "p_adjusted": p}, verdict="x")
    assert "p_adjusted 1.000;" in reading(**{**BASE, "p_adjusted": 1.0}, verdict="x")
