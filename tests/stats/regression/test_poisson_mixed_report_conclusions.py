"""The mixed Poisson report's conclusions from a given result (MixedPoissonResult
.conclusions, worded by presentation.regression_poisson_words), its p-value format and its
Holm adjustment."""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from fairdesk.presentation.pvalues import p_text as _fmt_p
from fairdesk.presentation.regression_poisson_words import poisson_conclusions
from fairdesk.stats.regression.poisson_mixed_report import _holm
from fairdesk.stats.regression.poisson_mixed_result import MixedPoissonResult

READING = (
    "Given each speaker's rate, the errors vary as a Poisson count should (Pearson χ²/df = 1.00)."
)
REASON = (
    "5 content ids, 5 shared across the levels of accent: content enters as a fixed effect "
    "(every comparison is within sentence). Crossed speaker × content random effects are not "
    "fitted: adaptive Gauss-Hermite quadrature integrates one grouping factor (the speaker) "
    "only."
)


def _out(levels, *, covariates=(), content="absent", converged=True, notes=(), alpha=0.05):
    return {
        "alpha": alpha,
        "covariates": [{"covariate": c, "kind": "numeric", "sd": 1.0} for c in covariates],
        "content": {"handling": content, "n_contents": 5, "n_shared": 5},
        "group_variables": [{"variable": "accent", "reference": "ref", "levels": levels}],
        "speaker_sd": 0.5,
        "speaker_sd_at_boundary": False,
        "speaker_sd_lr_p_value": 0.01,
        "overdispersion": {"ratio": 1.0, "ratio_without_speaker": 1.0, "overdispersed": False},
        "converged": converged,
        "notes": list(notes),
    }


def _conclusions(out):
    return poisson_conclusions(MixedPoissonResult.from_json(out))


def _level(name, rr, p_adj, lo=0.5, hi=2.0):
    return {
        "level": name,
        "rate_ratio": rr,
        "ci_low": lo,
        "ci_high": hi,
        "p_value": p_adj,
        "p_adjusted": p_adj,
    }


def test_every_line_in_order_with_content_covariates_and_no_convergence():
    out = _out(
        [_level("grp", 1.5, 0.01, 1.2, 1.9), _level("oth", 0.9, 0.4)],
        covariates=["pace", "age", "pace"],
        content="fixed_effect",
        converged=False,
        notes=["NOTE 1", "NOTE 2"],
    )
    lines = _conclusions(out)
    assert lines == [
        "grp speakers make 1.50× the word errors of ref speakers per reference word (more; "
        "95% CI [1.20, 1.90], Holm p = 0.010; mixed Poisson model, adjusted for age, content, "
        "pace).",
        "No evidence that oth differs from ref in word errors (rate ratio 0.90 [0.50, 2.00], "
        "Holm p = 0.400, adjusted for age, content, pace).",
        "Speakers of the same group differ: speaker SD 0.50 on the log scale (a speaker one "
        f"SD above another makes {math.exp(0.5):.2f}× the errors; test of no speaker "
        "variation p = 0.010).",
        READING,
        "Content: " + REASON,
        "The optimiser did not meet its tolerance: read the numbers with care.",
        "NOTE 1",
        "NOTE 2",
    ]


def test_content_not_modelled_is_said_but_not_adjusted_for():
    lines = _conclusions(_out([_level("grp", 0.8, 0.3)], content="not_modelled"))
    assert lines[0] == (
        "No evidence that grp differs from ref in word errors (rate ratio 0.80 "
        "[0.50, 2.00], Holm p = 0.300)."
    )
    assert any(x.startswith("Content: 5 content ids (5 shared) are too many") for x in lines)
    assert not any("tolerance" in x for x in lines)


def test_holm_p_equal_to_alpha_is_no_evidence():
    lines = _conclusions(_out([_level("grp", 1.5, 0.05)]))
    assert lines[0].startswith("No evidence that grp differs from ref")
    lines = _conclusions(_out([_level("grp", 0.5, 0.049)]))
    assert lines[0].startswith(
        "grp speakers make 0.50× the word errors of ref speakers per reference word (fewer;"
    )


@pytest.mark.parametrize("p", [None, math.nan, math.inf])
def test_missing_p_value_reads_n_a(p):
    assert _fmt_p(p) == "n/a"


def test_p_value_format():
    assert (_fmt_p(0.0004), _fmt_p(0.001), _fmt_p(0.0123)) == ("4.0e-04", "0.001", "0.012")


def test_holm_is_capped_at_one():
    assert list(_holm([0.6, 0.7, 0.01])) == [1.0, 1.0, 0.03]
    assert _holm([0.6, 0.7, 0.01]).dtype == np.float64


def test_holm_of_single_precision_p_values_is_computed_in_double():
    p = np.array([0.011, 0.027, 0.013, 0.2], dtype=np.float32)
    want = multipletests(p.astype(float), method="holm")[1]
    got = _holm(p)
    assert got.dtype == np.float64
    assert got == pytest.approx(want, rel=1e-14)


def test_an_underflowed_holm_p_reads_the_floor_with_its_logarithm():
    out = _out([{**_level("grp", 4.0, 0.0, 3.5, 4.6), "p_adjusted_log10": -412.345}])
    out["speaker_sd_lr_p_value"], out["speaker_sd_lr_p_log10"] = 0.0, -333.33
    lines = _conclusions(out)
    assert lines[0] == (
        "grp speakers make 4.00× the word errors of ref speakers per reference word (more; "
        "95% CI [3.50, 4.60], Holm p < 1e-300 (log10 p = -412.3); mixed Poisson model)."
    )
    assert lines[1].endswith("test of no speaker variation p < 1e-300 (log10 p = -333.3)).")
    # a result stored before the logarithms: the floor alone
    (first, *_) = _conclusions(_out([_level("grp", 4.0, 0.0, 3.5, 4.6)]))
    assert "Holm p < 1e-300; mixed Poisson model" in first
    assert not any("e+00" in s for s in lines)
