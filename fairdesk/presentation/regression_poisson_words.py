"""The mixed-effects Poisson regression in words (area ``"poisson"`` of the coded notes).

:data:`TEXTS` words every note of
:class:`~fairdesk.stats.regression.poisson_mixed_result.MixedPoissonResult` and of the
model's agreement with the bootstrap; :func:`poisson_conclusions` is what every view shows
as the model's conclusions, :func:`poisson_json` the result as ``--json`` writes it (the
layout the versions that stored words wrote), :func:`poisson_model_text` and friends the
descriptions the views show beside the numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..jobs.result_parts import Agreement, ModelBasedFit
from ..stats.notices import Notice
from ..stats.regression.poisson_mixed_result import MixedPoissonResult
from .notices import notice_text, notice_texts
from .pvalues import p_clause, p_text

__all__ = [
    "TEXTS",
    "agreement_note_text",
    "agreement_text",
    "model_based_conclusions",
    "model_based_json",
    "model_based_lines",
    "model_based_notes",
    "poisson_approximation_text",
    "poisson_conclusions",
    "poisson_json",
    "poisson_model_text",
    "poisson_overdispersion_text",
]

#: The note on the random effects that are not fitted.
CROSSED_NOTE = (
    "Crossed speaker × content random effects are not fitted: adaptive Gauss-Hermite "
    "quadrature integrates one grouping factor (the speaker) only."
)


def _adj(adjusted: Sequence[str]) -> str:
    return f", adjusted for {', '.join(adjusted)}" if adjusted else ""


def _ci(ci_low: Any, ci_high: Any) -> str:
    lo, hi = _num(ci_low), _num(ci_high)
    return f"[{lo:.2f}, {hi:.2f}]" if math.isfinite(lo) else ""


def _num(x: Any) -> float:
    return math.nan if x is None else float(x)


def _level_no_test(level, reference, rate_ratio, **_: Any) -> str:
    return (
        f"{level} vs {reference}: no interval or test (rate ratio "
        f"{_num(rate_ratio):.2f}); a side has fewer than 2 speakers."
    )


def _level_differs(
    level, reference, rate_ratio, ci_low, ci_high, p_adjusted, p_adjusted_log10, adjusted
) -> str:
    rr = _num(rate_ratio)
    word = "more" if rr > 1 else "fewer"
    holm = p_clause("Holm p", p_adjusted, p_adjusted_log10)
    return (
        f"{level} speakers make {rr:.2f}× the word errors of {reference} "
        f"speakers per reference word ({word}; 95% CI {_ci(ci_low, ci_high)}, {holm}; mixed "
        f"Poisson model{_adj(adjusted)})."
    )


def _level_no_evidence(
    level, reference, rate_ratio, ci_low, ci_high, p_adjusted, p_adjusted_log10, adjusted
) -> str:
    holm = p_clause("Holm p", p_adjusted, p_adjusted_log10)
    return (
        f"No evidence that {level} differs from {reference} in word errors (rate "
        f"ratio {_num(rate_ratio):.2f} {_ci(ci_low, ci_high)}, {holm}{_adj(adjusted)})."
    )


def _speaker_sd_zero() -> str:
    return (
        "No variation between speakers beyond their groups is detectable (speaker "
        "SD estimated at 0)."
    )


def _speaker_sd(sd, p_value, p_log10) -> str:
    sd = _num(sd)
    return (
        f"Speakers of the same group differ: speaker SD {sd:.2f} on the log scale (a speaker "
        f"one SD above another makes {math.exp(sd):.2f}× the errors; test of no speaker "
        f"variation {p_clause('p', p_value, p_log10)})."
    )


def _absorbs(ratio_without_speaker, speaker_absorbs) -> str:
    if not speaker_absorbs:
        return ""
    return (
        f" Without the speaker term χ²/df would be {_num(ratio_without_speaker):.2f}: the "
        "speaker intercept accounts for the extra variation between speakers."
    )


def _overdispersed(ratio, p_value, p_log10, ratio_without_speaker, speaker_absorbs) -> str:
    return (
        f"Errors vary more between utterances than a Poisson count allows, even given "
        f"each speaker's rate (Pearson χ²/df = {_num(ratio):.2f}, "
        f"{p_clause('p', p_value, p_log10)}): "
        "bursts of errors within an utterance (e.g. an insertion run) or sentence "
        "difficulty. The model's intervals are then too narrow; trust the bootstrap "
        "comparison, which makes no Poisson assumption, where the two differ."
    ) + _absorbs(ratio_without_speaker, speaker_absorbs)


def _underdispersed(ratio, ratio_without_speaker, speaker_absorbs, **_: Any) -> str:
    return (
        f"Errors vary less than a Poisson count given each speaker's rate (Pearson χ²/df "
        f"= {_num(ratio):.2f}); the intervals are, if anything, conservative."
    ) + _absorbs(ratio_without_speaker, speaker_absorbs)


def _dispersion_poisson(ratio, ratio_without_speaker, speaker_absorbs, **_: Any) -> str:
    return (
        f"Given each speaker's rate, the errors vary as a Poisson count should (Pearson "
        f"χ²/df = {_num(ratio):.2f})."
    ) + _absorbs(ratio_without_speaker, speaker_absorbs)


def _content(reason: Mapping[str, Any]) -> str:
    return "Content: " + notice_text(Notice.from_json(reason))


def _content_absent() -> str:
    return "no content ids: sentence difficulty is not separated."


def _content_not_shared(variable, n_shared, min_shared) -> str:
    return (
        f"the levels of {variable} share {n_shared} content id(s) (< {min_shared}): "
        "content differences between groups cannot be separated from the groups "
        "(content_confounded); within-group sentence variation shows in the "
        "overdispersion check."
    )


def _content_not_modelled(n_contents, n_shared, max_fixed) -> str:
    return (
        f"{n_contents} content ids ({n_shared} shared) are too many for fixed effects "
        f"(at most {max_fixed}); {CROSSED_NOTE[:-1].lower()}. Sentence difficulty then "
        "shows as extra-Poisson variation (see the overdispersion check); the two-way "
        "bootstrap comparison resamples sentences."
    )


def _content_fixed(n_contents, n_shared, variable, dropped_contents, dropped_utterances) -> str:
    text = (
        f"{n_contents} content ids, {n_shared} shared across the levels of {variable}: content "
        "enters as a fixed effect (every comparison is within sentence). " + CROSSED_NOTE
    )
    if dropped_contents:
        text += (
            f" {dropped_contents} content id(s) had no error in any utterance; their "
            f"{dropped_utterances} utterance(s) carry no information about the "
            "groups once content is a fixed effect and were left out."
        )
    return text


def _who(level, reference, variable) -> str:
    return f"{level} (vs {reference}, {variable})"


def _what(added: Sequence[str]) -> str:
    return " and ".join(added) + (" are" if len(added) > 1 else " is")


def _rr(rr_before, rr_after) -> str:
    return f"rate ratio {_num(rr_before):.2f} → {_num(rr_after):.2f}"


def _shrink_about_one(variable, level, reference, added, rr_before, rr_after, shrink) -> str:
    return (
        f"The rate ratio for {_who(level, reference, variable)} is about 1 before adjustment; "
        f"once {_what(added)} included it is {_num(rr_after):.2f} ({_rr(rr_before, rr_after)})."
    )


def _shrink_hardly(variable, level, reference, added, rr_before, rr_after, shrink) -> str:
    return (
        f"The gap for {_who(level, reference, variable)} hardly moves once {_what(added)} "
        f"included ({_rr(rr_before, rr_after)})."
    )


def _shrink_reverses(variable, level, reference, added, rr_before, rr_after, shrink) -> str:
    return (
        f"The gap for {_who(level, reference, variable)} reverses once {_what(added)} "
        f"included ({_rr(rr_before, rr_after)})."
    )


def _shrink_shrinks(variable, level, reference, added, rr_before, rr_after, shrink) -> str:
    return (
        f"The gap for {_who(level, reference, variable)} shrinks by {_num(shrink):.0f}% once "
        f"{_what(added)} included ({_rr(rr_before, rr_after)})."
    )


def _shrink_grows(variable, level, reference, added, rr_before, rr_after, shrink) -> str:
    return (
        f"The gap for {_who(level, reference, variable)} grows by {-_num(shrink):.0f}% once "
        f"{_what(added)} included ({_rr(rr_before, rr_after)})."
    )


def _confounder(added, lr_p_value, lr_p_log10, changed) -> str:
    parts = [
        f"{c['level']} {'becomes' if c['significant'] else 'is no longer'} significant "
        f"({p_clause('p', _num(c['p']), c.get('p_log10'))})"
        for c in changed
    ]
    return (
        f"{' and '.join(added)} confounds the group effect "
        f"({p_clause('LR p', _num(lr_p_value), lr_p_log10)}): adjusted on it, {'; '.join(parts)}."
    )


def _not_converged() -> str:
    return "The optimiser did not meet its tolerance: read the numbers with care."


def _left_out_missing(n, what) -> str:
    return f"{n} utterance(s) left out: missing {what}."


def _left_out_no_words(n) -> str:
    return f"{n} utterance(s) with no reference word left out."


def _no_speaker_id(n) -> str:
    return f"{n} utterance(s) have no speaker id; each is its own speaker."


def _level_no_error(variable, levels, n) -> str:
    return (
        f"{variable} level(s) {', '.join(map(repr, levels))} have no word error in any "
        f"of their {n} utterance(s) and were left out (a rate "
        "ratio of 0 has no Wald interval; the bootstrap comparison reports them)."
    )


def _groups_excluded(groups) -> str:
    return f"groups excluded by the audit's minimums were left out: {sorted(groups)}"


def _combined_groups(columns) -> str:
    return (
        "the audit compared combinations of "
        + " × ".join(columns)
        + "; the model compares the levels of each column"
    )


def _model(terms) -> str:
    return (
        f"word errors ~ Poisson(reference words × exp({' + '.join(terms)} + speaker)), "
        "speaker ~ Normal(0, σ²)"
    )


def _approximation_kind(kind: str, n_quad: int) -> str:
    if kind == "glm":
        return "none (no random effect: plain Poisson GLM)"
    if kind == "laplace":
        return "Laplace approximation"
    return f"adaptive Gauss-Hermite quadrature, {n_quad} nodes per speaker"


def _approximation(kind, n_quad) -> str:
    return (
        f"maximum likelihood, {_approximation_kind(kind, n_quad)} (as lme4 glmer, nAGQ = {n_quad})"
    )


def _inference(se_factor) -> str:
    return (
        "Wald 95% intervals and p-values from the observed information (Louis' identity). "
        "Effects constant within speakers: standard error × sqrt(speakers / (speakers − "
        f"between-speaker effects)) = × {_num(se_factor):.3f}, "
        "Student's t on min(speakers of the level, speakers of the reference) − 1 df; "
        "within-speaker effects: normal. Holm across all levels of all group variables; "
        "LR test per group variable"
    )


def _crossed_note() -> str:
    return CROSSED_NOTE


def _per_sd(sd) -> str:
    return f"1 SD ({_num(sd):.4g})"


def _agreement(
    kind,
    level,
    reference,
    direction,
    adjusted,
    rate_ratio,
    ci_low,
    ci_high,
    p_adjusted,
    p_adjusted_log10,
    gap,
    gap_ci_low,
    gap_ci_high,
    boot_p_adjusted,
) -> str:
    if kind == "agree_gap":
        s = f"The model and the bootstrap agree: {level} is {direction} than {reference}"
    elif kind == "agree_none":
        s = f"Neither the model nor the bootstrap finds a gap for {level}"
    else:
        s = f"The model and the bootstrap disagree on {level}"
        if kind == "disagree_adjusted":
            s += (
                f": the model, adjusted for {', '.join(adjusted)}, finds no gap, so the "
                "bootstrap's gap may come from those factors"
            )
    m_txt = (
        f"rate ratio {_num(rate_ratio):.2f} [{_num(ci_low):.2f}, {_num(ci_high):.2f}], "
        f"{p_clause('Holm p', p_adjusted, p_adjusted_log10)}"
    )
    b_txt = (
        f"WER gap {_num(gap):+.3f} [{_num(gap_ci_low):+.3f}, {_num(gap_ci_high):+.3f}], Holm p = "
        f"{p_text(boot_p_adjusted)}"
    )
    return f"{s} (model: {m_txt}; bootstrap: {b_txt})."


#: code → words (see fairdesk.presentation.notices).
TEXTS: dict[str, Callable[..., str]] = {
    "poisson.level_no_test": _level_no_test,
    "poisson.level_differs": _level_differs,
    "poisson.level_no_evidence": _level_no_evidence,
    "poisson.speaker_sd_zero": _speaker_sd_zero,
    "poisson.speaker_sd": _speaker_sd,
    "poisson.overdispersed": _overdispersed,
    "poisson.underdispersed": _underdispersed,
    "poisson.dispersion_poisson": _dispersion_poisson,
    "poisson.content": _content,
    "poisson.content_absent": _content_absent,
    "poisson.content_not_shared": _content_not_shared,
    "poisson.content_not_modelled": _content_not_modelled,
    "poisson.content_fixed": _content_fixed,
    "poisson.shrink_about_one": _shrink_about_one,
    "poisson.shrink_hardly": _shrink_hardly,
    "poisson.shrink_reverses": _shrink_reverses,
    "poisson.shrink_shrinks": _shrink_shrinks,
    "poisson.shrink_grows": _shrink_grows,
    "poisson.confounder": _confounder,
    "poisson.not_converged": _not_converged,
    "poisson.left_out_missing": _left_out_missing,
    "poisson.left_out_no_words": _left_out_no_words,
    "poisson.no_speaker_id": _no_speaker_id,
    "poisson.level_no_error": _level_no_error,
    "poisson.groups_excluded": _groups_excluded,
    "poisson.combined_groups": _combined_groups,
    "poisson.model": _model,
    "poisson.approximation": _approximation,
    "poisson.inference": _inference,
    "poisson.crossed_note": _crossed_note,
    "poisson.per_sd": _per_sd,
    "poisson.agreement": _agreement,
}


def poisson_conclusions(result: MixedPoissonResult) -> list[str]:
    """The model's conclusions in words, as every view shows them."""
    return [notice_text(n) for n in result.conclusions()]


def poisson_json(result: MixedPoissonResult) -> dict[str, Any]:
    """The result as ``--json`` writes it: every note in words."""
    return result.to_json(notice_text)


def poisson_model_text(result: MixedPoissonResult) -> str:
    """The model formula in words."""
    return notice_text(result.model)


def poisson_approximation_text(result: MixedPoissonResult) -> str:
    """How the model's integral is approximated, in words."""
    return notice_text(result.approximation)


def poisson_overdispersion_text(result: MixedPoissonResult) -> str:
    """The overdispersion check in words."""
    return notice_text(result.overdispersion.reading)


# -- the model beside the bootstrap (``audit --model-based``: AuditRun.model_based) ----------


def model_based_conclusions(m: ModelBasedFit) -> list[str]:
    """The model's conclusions in words: from its numbers (a run stored with sentences is
    read with today's words), else as a block without numbers stored them."""
    if m.fit is None:
        return notice_texts(m.conclusions or ())
    return poisson_conclusions(m.fit)


def model_based_notes(m: ModelBasedFit) -> list[str]:
    """The block's data notes and caveats in words."""
    return notice_texts(m.notes or ())


def agreement_text(a: Agreement) -> str | None:
    """One level's agreement with the bootstrap in words (None where there is none)."""
    return None if a.note is None else notice_text(a.note)


def agreement_note_text(m: ModelBasedFit) -> str:
    """Why the model is not set beside the bootstrap, in words ("" where it is)."""
    return "" if m.agreement_note is None else notice_text(m.agreement_note)


def model_based_lines(block: Mapping[str, ModelBasedFit] | None) -> list[str]:
    """What ``fairdesk audit --model-based`` prints: conclusions and agreement per column.

    Parameters
    ----------
    block : ``AuditRun.model_based``: grouping column -> ``ModelBasedFit``.
    """
    lines = []
    for v, m in (block or {}).items():
        lines.append(f"Model-based (mixed-effects Poisson) by {v}:")
        if m.error:
            lines.append(f"  not fitted: {m.error}")
            continue
        lines += [f"  {s}" for s in model_based_conclusions(m)]
        lines += [f"  {t}" for t in (agreement_text(a) for a in m.agreement or ()) if t]
    return lines


def model_based_json(payload: Mapping[str, Any], block: Mapping[str, ModelBasedFit] | None) -> dict:
    """``payload`` (a run's JSON) with its ``model_based`` block in words, as ``--json``
    writes it: each fit's notes, conclusions and agreement sentences written in (a block
    without a fit as stored)."""
    out = dict(payload)
    if not isinstance(payload.get("model_based"), Mapping) or not block:
        return out
    worded = {}
    for v, m in block.items():
        w = m.to_json()
        if m.fit is not None:
            w.update(poisson_json(m.fit))
            w["notes"] = model_based_notes(m)
            if m.agreement_note is not None:
                w["agreement_note"] = agreement_note_text(m)
            if m.agreement is not None:
                w["agreement"] = [
                    {
                        "level": a.level,
                        "agree": a.agree,
                        "model_significant": a.model_significant,
                        "bootstrap_significant": a.bootstrap_significant,
                        "sentence": agreement_text(a),
                    }
                    for a in m.agreement
                ]
        worded[v] = w
    out["model_based"] = worded
    return out
