"""``audit --model-based``: the mixed-effects Poisson model beside the bootstrap (docs/METHODS.md, "Model-based comparison (mixed-effects Poisson)").

After the bootstrap analysis, for each grouping column ``v`` of the audit, the word errors of
each utterance are fitted with :func:`fairdesk.stats.regression.run_poisson_mixed`
(``errors ~ Poisson(words · exp(v + covariates + speaker))``) with the audit's reference
group as reference, and each level's rate ratio is set beside the bootstrap comparison of
the same groups (:func:`~fairdesk.stats.regression.agreement_with_bootstrap`). The result is
a typed :class:`~fairdesk.jobs.model_based_parts.ModelBasedFit` per column
(``AuditRun.model_based``), stored with the run under ``payload["model_based"][v]`` (its
codec: the fit's numbers and coded notes, its conclusions derived from the numbers when
shown, not stored; the agreement with its coded note), so the GUI and the report find it. Groups the audit excluded (below the minimums) are left out of the model too.
What ``fairdesk audit --model-based`` prints is
:func:`fairdesk.presentation.regression_poisson_words.model_based_lines`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .model_based_parts import Agreement, ModelBasedFit

if TYPE_CHECKING:
    from .result import AuditRun

__all__ = ["ITEM_COVARIATES", "model_based_block"]

#: Per-item covariates an audit provides without user work (fairdesk.core.acoustics) and the
#: word count; any numeric metadata column can be named too.
ITEM_COVARIATES = (
    "duration_s",
    "nonspeech_share",
    "snr_db",
    "speech_rate",
    "asr_confidence",
    "n_words",
)


def _reference_level(run: AuditRun, by: list[str], var: str) -> str | None:
    """The audit's reference group as a level of ``var`` (``a=x × b=y`` for two columns)."""
    ref = run.reference
    if ref is None:
        return None
    ref = str(ref)
    if len(by) == 1:
        return ref
    for part in ref.split(" × "):
        k, _, v = part.partition("=")
        if k == var:
            return v
    return None


def model_based_block(
    frame, run: AuditRun, by, covariates=(), alpha: float | None = None
) -> dict[str, ModelBasedFit]:
    """The model-based analysis of each grouping column.

    Parameters
    ----------
    frame : the audit's per-item frame after the statistics (``group``, the grouping
        columns, ``n_sub``, ``n_del``, ``n_ins``, ``n_words``, ``speaker_id``, optional
        ``content_id`` and covariate columns).
    run : the audit's ``AuditRun`` (``reference``, ``comparisons``, ``groups``,
        ``settings``).
    by : the grouping columns.
    covariates : covariate columns (see :data:`ITEM_COVARIATES`).
    alpha : level of the tests (default: the audit's).

    Returns
    -------
    dict
        grouping column → :class:`~fairdesk.jobs.model_based_parts.ModelBasedFit`: the fit
        with its agreement with the bootstrap and its notes, or only the ``error`` that
        says why the model cannot be fitted for that column (the audit itself stands).
    """
    from ..stats.notices import Notice
    from ..stats.regression import agreement_with_bootstrap, run_poisson_mixed

    by = [str(b) for b in by]
    if alpha is None:
        alpha = float(run.settings.alpha) if run.settings is not None else 0.05
    # the excluded groups and the row of the items with no grouping value
    excluded = {str(g.group) for g in run.groups if not g.compared}
    f = frame[~frame["group"].astype(str).isin(excluded)] if excluded else frame
    covariates = list(covariates or ())
    out: dict[str, ModelBasedFit] = {}
    for v in by:
        ref = _reference_level(run, by, v)
        try:
            missing = [c for c in covariates if c not in f.columns]
            if missing:
                raise ValueError(f"no covariate column {missing} in this run's items")
            if "speaker_id" not in f.columns:
                raise ValueError("the model needs speaker ids (speaker_id)")
            fit = run_poisson_mixed(
                f,
                [v],
                covariates,
                reference={v: ref} if ref else None,
                speaker_col="speaker_id",
                content_col="content_id" if "content_id" in f.columns else None,
                alpha=alpha,
            )
        except ValueError as exc:
            out[v] = ModelBasedFit(error=str(exc))
            continue
        agreement: tuple[Agreement, ...] = ()
        agreement_note = None
        if len(by) > 1:  # the bootstrap compared combined groups: nothing to set beside
            agreement_note = Notice("poisson.combined_groups", {"columns": by})
        else:
            comps = [c.to_dict() for c in run.comparisons]
            agreement = tuple(
                Agreement(
                    level=a.level,
                    agree=a.agree,
                    model_significant=a.model_significant,
                    bootstrap_significant=a.bootstrap_significant,
                    note=a.note,
                )
                for a in agreement_with_bootstrap(fit, comps, v)
            )
        notes = list(fit.notes)
        if excluded:
            notes.append(Notice("poisson.groups_excluded", {"groups": sorted(excluded)}))
        out[v] = ModelBasedFit(
            fit=fit, agreement=agreement, agreement_note=agreement_note, notes=tuple(notes)
        )
    return out
