import json

import pytest

from fairdesk.stats import AuditSettings


def test_defaults_match_contract():
    s = AuditSettings()
    assert s.to_dict() == {
        "n_bootstrap": 2000,
        "seed": 0,
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
        "small_cluster_scaling": False,
    }
    json.dumps(s.to_dict())
    assert AuditSettings.from_dict(s.to_dict()) == s


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
