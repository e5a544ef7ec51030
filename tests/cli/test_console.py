"""The console table of an audit result, word for word, on a hand-built result dict."""

import math

from fairdesk.cli.console import format_groups, value_with_ci
from fairdesk.jobs.result import AuditRun, as_audit_run
from fairdesk.presentation.readings import reading

RES = {
    "reference": "us",
    "design": "unmatched",
    "groups": [
        {
            "group": "us",
            "n_items": 120,
            "n_speakers": 12,
            "values": {"wer": 0.2011, "em": 0.5},
            "ci": {"wer": [0.18, 0.22]},
        },
        {
            "group": "scot",
            "n_items": 80,
            "n_speakers": 8,
            "values": {"wer": 0.3127, "em": 0.4},
            "ci": {"wer": [0.25, 0.37]},
        },
        {"group": "solo", "n_items": 5, "n_speakers": None, "excluded": True, "values": {}},
        {
            "group": "a-very-long-group-name-of-many-chars",
            "n_items": 30,
            "n_speakers": 3,
            "values": {"wer": float("nan")},
            "ci": {"wer": [0.1, 0.2]},
        },
    ],
    "summary": {"wer": {"overall": {"value": 0.25, "ci": [0.22, 0.28]}}, "em": {}},
    "comparisons": [
        {
            "metric": "wer",
            "group": "scot",
            "gap": 0.1116,
            "ci_low": 0.05,
            "ci_high": 0.18,
            "p_adjusted": 0.0123,
            "verdict": "disparity_detected",
            "estimator": "speaker",
            # a stored run's reading is written again in today's words, not read back
            "reading": "R1.",
            "reference": "us",
            "value": 0.3127,
            "reference_value": 0.2011,
            "direction": "worse",
            "design": "unmatched",
            "flags": ["content_confounded"],
            "n_blocks": {
                "group_speakers": 8,
                "reference_speakers": 12,
                "contents": None,
                "group_items": 80,
                "reference_items": 120,
            },
        },
        {
            "metric": "wer",
            "group": "a-very-long-group-name-of-many-chars",
            "gap": 0.02,
            "ci_low": float("nan"),
            "ci_high": None,
            "p_adjusted": float("nan"),
            "verdict": "not_computable",
            "estimator": "utterance",
            "reading": "",
        },
        {"metric": "wer", "group": "odd", "verdict": "no_variation", "no_variation": None},
        {
            "metric": "wer",
            "group": "solo",
            "verdict": "not_estimable",
            "reason": "one speaker in solo",
            "estimator": None,
        },
        {
            "metric": "wer",
            "group": "same",
            "verdict": "no_variation",
            "estimator": "content",
            "no_variation": {
                "value": 0.0,
                "n_group": 40,
                "n_reference": 60,
                "unit": "items",
                "bound_group": 0.075,
                "bound_reference": 0.05,
            },
        },
        {
            "metric": "em",
            "group": "scot",
            "gap": -0.1,
            "ci_low": -0.2,
            "ci_high": 0.0,
            "p_adjusted": 0.2,
            "verdict": "no_disparity_detected",
            "estimator": "speaker",
        },
    ],
    "bootstrap": {"raised": True, "requested": 2000, "used": 4000, "comparisons": 40},
    "minimums_message": "MIN",
    "warnings": ["w1"],
    "input_problems": [{"line": 7, "reason": "empty reference"}],
    "normaliser": {"name": "whisper-english", "reason": "auto"},
}

HEAD = "group                           items  spk"
#: where a comparison's reading goes (the hand-built comparisons lack the numbers of a
#: sentence; its words are tested in tests/test_presentation_sentences.py)
READ = "READING OF "
FULL = [
    HEAD + "        WER % [95% CI]         EM % [95% CI]",
    "us (reference)                    120   12     20.1 [18.0, 22.0]              50.0 [–]",
    "scot                               80    8     31.3 [25.0, 37.0]              40.0 [–]",
    "solo (excluded)                     5    0                     –                     –",
    "a-very-long-group-name-of-man      30    3                     –                     –",
    "(corpus, analysed groups)         230          25.0 [22.0, 28.0]                     –",
    "",
    "design: unmatched; resampling: content, speaker, utterance (groups said different "
    "content: gaps are not causal)",
    "WER against us:",
    "  scot                           gap  +11.2 pp [+5.0 pp, +18.0 pp] p_adj  0.012  "
    "disparity_detected",
    "    Word error rate (WER) is 31.3% for scot vs 20.1% for the reference us (gap +11.2 pp, "
    "95% CI +5.0 to +18.0 pp, p_adjusted 0.012; speaker cluster bootstrap, 8 + 12 speakers): a "
    "disparity of practical size: scot does worse than the reference; the groups said different "
    "content, so the gap may reflect harder sentences rather than the group and is not causal.",
    "  a-very-long-group-name-of-many gap   +2.0 pp – p_adj      –  not_computable",
    READ + "a-very-long-group-name-of-many-chars",
    "  odd                            no_variation: – everywhere on – + – ; other outcome < – / – "
    "(rule of three)",
    READ + "odd",
    "  solo                           not_estimable: one speaker in solo",
    READ + "solo",
    "  same                           no_variation: 0 everywhere on 40 + 60 items; other outcome "
    "< 7.5% / 5.0% (rule of three)",
    READ + "same",
    "B raised from 2,000 to 4,000 resamples for 40 comparisons (B ≥ 5·m/alpha)",
    "",
    "MIN",
    "warning: w1",
    "problem: line 7: empty reference",
    "normaliser: whisper-english (auto)",
]


def test_full_table_word_for_word():
    run = as_audit_run(RES)
    said = {c.group: "    " + reading(c, run) for c in run.comparisons if c.metric == "wer"}
    full = [said[ln[len(READ) :]] if ln.startswith(READ) else ln for ln in FULL]
    assert format_groups(AuditRun.from_json(RES)).split("\n") == full
    quiet = format_groups(AuditRun.from_json(RES), readings=False).split("\n")
    assert quiet == [ln for ln in full if ln not in said.values()]


def test_other_metric_first():
    assert (
        format_groups(AuditRun.from_json(RES), metrics=["em"], readings=False).split("\n")
        == [
            HEAD + "         EM % [95% CI]",
            "us (reference)                    120   12              50.0 [–]",
            "scot                               80    8              40.0 [–]",
            "solo (excluded)                     5    0                     –",
            "a-very-long-group-name-of-man      30    3                     –",
            "",
            "design: unmatched; resampling: speaker (groups said different content: gaps are not "
            "causal)",
            "EM against us:",
            "  scot                           gap  -10.0 pp [-20.0 pp, 0.0 pp] p_adj  0.200  "
            "no_disparity_detected",
        ]
        + FULL[-6:]
    )


RES2 = {
    "reference": "a",
    "groups": [
        {"group": "a", "n_items": 3, "values": {"wer": 0.1}},
        {"group": "b", "n_items": 4, "values": {"wer": 0.2}},
    ],
    "comparisons": [
        {
            "metric": "wer",
            "group": "b",
            "gap": 0.1,
            "ci_low": 0.0,
            "ci_high": 0.2,
            "p_adjusted": 0.5,
            "verdict": "inconclusive_underpowered",
            "estimator": "utterance",
        }
    ],
    "bootstrap": {"raised": False},
    "warnings": None,
}
TAIL2 = [
    HEAD + "        WER % [95% CI]",
    "a (reference)                       3    0              10.0 [–]",
    "b                                   4    0              20.0 [–]",
    "",
]
COMP2 = (
    "  b                              gap  +10.0 pp [0.0 pp, +20.0 pp] p_adj  0.500  "
    "inconclusive_underpowered"
)


def test_design_line_variants_and_empty_result():
    # the table alone: the hand-built comparisons lack the numbers of a reading
    assert format_groups(AuditRun.from_json({})) == HEAD
    assert format_groups(AuditRun.from_json(RES2), readings=False).split("\n") == TAIL2 + [
        "design: unknown; resampling: utterance",
        "WER against a:",
        COMP2,
    ]
    no_scheme = {**RES2, "comparisons": [{**RES2["comparisons"][0], "estimator": None}]}
    assert format_groups(
        AuditRun.from_json({**no_scheme, "design": "matched"}), readings=False
    ).split("\n") == TAIL2 + [
        "design: matched; resampling: none",
        "WER against a:",
        COMP2,
    ]
    assert format_groups(AuditRun.from_json(no_scheme), readings=False).split("\n") == TAIL2 + [
        "WER against a:",
        COMP2,
    ]


def test_value_with_ci():
    assert value_with_ci(0.5, [0.25, 0.75]) == "50.0 [25.0, 75.0]"
    assert value_with_ci(1, [0, 1]) == "100.0 [0.0, 100.0]"
    assert value_with_ci(0.5, None) == value_with_ci(0.5, []) == "50.0 [–]"
    assert value_with_ci(0.5, [math.nan, None]) == "50.0 [–]"  # one marker, not two
    assert value_with_ci(None, [0.1, 0.2]) == value_with_ci(math.inf, [0.1, 0.2]) == "–"
    assert value_with_ci(math.nan, None) == "–"
    assert value_with_ci(1.234, [1.1, 1.4], "grounding_lift") == "1.23 [1.10, 1.40]"


def test_long_heads_and_a_missing_reason():
    # the values under "values" (the top-level copies of today's payload are not read:
    # AuditRun keeps one copy)
    res = {
        "reference": "a",
        "groups": [
            {"group": "a", "n_items": 2, "values": {"cer": 0.1, "balanced_accuracy": 0.5}},
            {"group": "b", "n_items": 3, "values": {"cer": 0.2}},
        ],
        "comparisons": [{"metric": "cer", "group": "b", "verdict": "not_estimable"}],
    }
    assert format_groups(AuditRun.from_json(res), readings=False).split("\n") == [
        HEAD + "        CER % [95% CI]    BAL.ACC % [95% CI]",
        "a (reference)                       2    0              10.0 [–]              50.0 [–]",
        "b                                   3    0              20.0 [–]                     –",
        "",
        "CER against a:",
        "  b                              not_estimable: ",
    ]
