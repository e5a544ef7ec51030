import json

import pytest

from fairdesk.stats import AuditSettings


def test_defaults_match_contract():
    s = AuditSettings()
    assert s.to_dict() == {
        "n_bootstrap": 2000,
        "seed": 0,
        "include_missing": False,
        "alpha": 0.05,
        "absolute_error_gap": 0.05,
        "disparity_ratio": 1.25,
        "grounding_gap": 0.15,
        "min_items": 30,
        "min_speakers": 5,
        "resampling": "auto",
        "structure_threshold": 0.1,
        "max_items": 20000,
        "normaliser": "whisper-english",
        "small_cluster_scaling": True,
    }
    json.dumps(s.to_dict())
    assert AuditSettings.from_dict(s.to_dict()) == s


def test_small_cluster_scaling_is_on_by_default_and_off_for_dicts_written_before():
    """docs/METHODS.md, "Small numbers of speakers": new settings scale; a stored dict
    without the key was written while the default was off, and reads as off."""
    assert AuditSettings().small_cluster_scaling is True
    d = AuditSettings().to_dict()
    del d["small_cluster_scaling"]
    assert AuditSettings.from_dict(d).small_cluster_scaling is False
    assert AuditSettings.from_dict({}).small_cluster_scaling is False
    assert AuditSettings.from_dict({"small_cluster_scaling": True}).small_cluster_scaling is True
    # every other missing key still takes today's default
    assert AuditSettings.from_dict({}) == AuditSettings(small_cluster_scaling=False)


@pytest.mark.parametrize(
    "field,value",
    [
        ("n_bootstrap", 199),
        ("n_bootstrap", 20001),
        ("n_bootstrap", 2000.0),
        ("n_bootstrap", True),
        ("seed", -1),
        ("alpha", 0.0),
        ("alpha", 1.0),
        ("alpha", float("nan")),
        ("absolute_error_gap", 0.0),
        ("disparity_ratio", 1.0),
        ("grounding_gap", -0.1),
        ("min_items", 0),
        ("min_speakers", 0),
        ("resampling", "bootstrap"),
        ("structure_threshold", 1.5),
        ("max_items", 20001),
        ("max_items", 0),
        ("normaliser", ""),
    ],
)
def test_invalid_values_name_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        AuditSettings(**{field: value})


def test_bounds_are_inclusive():
    AuditSettings(n_bootstrap=200)
    AuditSettings(n_bootstrap=20000, resampling="content", max_items=1)


def test_frozen_and_unknown_keys():
    s = AuditSettings()
    with pytest.raises(AttributeError):
        s.alpha = 0.1
    with pytest.raises(ValueError, match="bogus"):
        AuditSettings.from_dict({"bogus": 1})


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"n_bootstrap": 199}, "AuditSettings.n_bootstrap must be in 200..20000, got 199."),
        ({"n_bootstrap": 2000.0}, "AuditSettings.n_bootstrap must be an integer, got 2000.0."),
        ({"seed": -1}, "AuditSettings.seed must be in >= 0, got -1."),
        ({"alpha": 0.0}, "AuditSettings.alpha must be in (0.0, 1.0), got 0.0."),
        ({"alpha": 1.0}, "AuditSettings.alpha must be in (0.0, 1.0), got 1.0."),
        ({"alpha": float("nan")}, "AuditSettings.alpha must be a finite number, got nan."),
        ({"alpha": "0.05"}, "AuditSettings.alpha must be a finite number, got '0.05'."),
        (
            {"absolute_error_gap": 0.0},
            "AuditSettings.absolute_error_gap must be in (0.0, inf), got 0.0.",
        ),
        (
            {"absolute_error_gap": float("inf")},
            "AuditSettings.absolute_error_gap must be a finite number, got inf.",
        ),
        ({"disparity_ratio": 1.0}, "AuditSettings.disparity_ratio must be in (1.0, inf), got 1.0."),
        ({"grounding_gap": 0.0}, "AuditSettings.grounding_gap must be in (0.0, inf), got 0.0."),
        ({"min_items": 0}, "AuditSettings.min_items must be in >= 1, got 0."),
        ({"min_speakers": 0}, "AuditSettings.min_speakers must be in >= 1, got 0."),
        (
            {"structure_threshold": 1.5},
            "AuditSettings.structure_threshold must be in [-1.0, 1.0], got 1.5.",
        ),
        (
            {"structure_threshold": -1.01},
            "AuditSettings.structure_threshold must be in [-1.0, 1.0], got -1.01.",
        ),
        (
            {"resampling": "x"},
            "AuditSettings.resampling must be one of auto, two_way, speaker, "
            "content, utterance, got 'x'.",
        ),
        ({"max_items_lifted": 1}, "AuditSettings.max_items_lifted must be True or False, got 1."),
        (
            {"max_items": 20001},
            "AuditSettings.max_items must be in 1..20000 unless the cap is "
            "lifted explicitly (max_items_lifted=True, --max-items), got 20001.",
        ),
        ({"max_items": 10.5}, "AuditSettings.max_items must be an integer, got 10.5."),
        ({"max_items": "50"}, "AuditSettings.max_items must be an integer, got '50'."),
        (
            {"max_items": 0, "max_items_lifted": True},
            "AuditSettings.max_items must be in >= 1, got 0.",
        ),
        ({"max_items": 0}, "AuditSettings.max_items must be in 1..20000, got 0."),
        ({"normaliser": "  "}, "AuditSettings.normaliser must be a non-empty string, got '  '."),
        ({"normaliser": 3}, "AuditSettings.normaliser must be a non-empty string, got 3."),
        (
            {"small_cluster_scaling": 1},
            "AuditSettings.small_cluster_scaling must be True or False, got 1.",
        ),
    ],
)
def test_messages_word_for_word(kw, message):
    with pytest.raises(ValueError) as e:
        AuditSettings(**kw)
    assert str(e.value) == message


def test_edges_that_are_allowed():
    # the closed ends of structure_threshold, the lower ends of the integers
    AuditSettings(structure_threshold=-1.0, seed=0, min_items=1, min_speakers=1)
    AuditSettings(
        structure_threshold=1.0,
        alpha=1e-9,
        absolute_error_gap=1e-9,
        disparity_ratio=1.000001,
        grounding_gap=1e-9,
    )
    AuditSettings(alpha=0.999999, max_items=20000, max_items_lifted=False)
    AuditSettings(small_cluster_scaling=True, normaliser="none", resampling="utterance")
    assert AuditSettings(max_items=50000, max_items_lifted=True).max_items == 50000


def test_run_cap_lift_and_round_trip():
    s = AuditSettings(seed=3, alpha=0.01)
    lifted = s.with_run_cap(50000)
    assert (lifted.max_items, lifted.seed, lifted.alpha) == (50000, 3, 0.01)
    assert s.max_items == 20000  # the original is untouched
    assert s.with_run_cap(100).max_items == 100
    assert s.with_run_cap(20000) == s
    for bad, message in (
        (0, "AuditSettings.max_items must be in >= 1, got 0."),
        (True, "AuditSettings.max_items must be an integer, got True."),
        (2.5, "AuditSettings.max_items must be an integer, got 2.5."),
    ):
        with pytest.raises(ValueError) as e:
            s.with_run_cap(bad)
        assert str(e.value) == message
    d = lifted.to_dict()
    assert d["max_items"] == 50000 and "max_items_lifted" not in d
    back = AuditSettings.from_dict(d)
    assert back == lifted and back.max_items == 50000 and back.seed == 3
    assert AuditSettings.from_dict({"max_items": 20001}).max_items == 20001
    assert AuditSettings.from_dict({"max_items": 20000}).max_items == 20000
    # (a dict without small_cluster_scaling was stored before it was on by default)
    assert AuditSettings.from_dict({"max_items": 7, "seed": 2}) == AuditSettings(
        max_items=7, seed=2, small_cluster_scaling=False
    )
    with pytest.raises(ValueError) as e:
        AuditSettings.from_dict({"max_items": True})
    assert str(e.value) == "AuditSettings.max_items must be an integer, got True."


def test_unknown_fields_message_word_for_word():
    with pytest.raises(ValueError) as e:
        AuditSettings.from_dict({"zz": 1, "alpha": 0.1, "aa": 2})
    assert str(e.value) == (
        "Unknown AuditSettings field(s) ['aa', 'zz']; known fields: ['absolute_error_gap', "
        "'alpha', 'disparity_ratio', 'grounding_gap', 'include_missing', 'max_items', "
        "'max_items_lifted', "
        "'min_items', 'min_speakers', 'n_bootstrap', 'normaliser', 'resampling', 'seed', "
        "'small_cluster_scaling', 'structure_threshold']."
    )


def test_from_dict_without_a_cap_keeps_the_default():
    s = AuditSettings.from_dict({"seed": 4})
    assert s == AuditSettings(seed=4, small_cluster_scaling=False) and s.max_items == 20000
