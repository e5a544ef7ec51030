"""``audit --model-based``: the mixed-effects Poisson model beside the bootstrap (docs/METHODS.md, "Model-based comparison (mixed-effects Poisson)").

After the bootstrap analysis, for each grouping column ``v`` of the audit, the word errors of
each utterance are fitted with :func:`fairdesk.stats.regression.run_poisson_mixed`
(``errors ~ Poisson(words · exp(v + covariates + speaker))``) with the audit's reference
group as reference, and each level's rate ratio is set beside the bootstrap comparison of
the same groups (:func:`~fairdesk.stats.regression.agreement_with_bootstrap`). The result
goes under ``payload["model_based"][v]``, stored with the run, so the GUI and the report find
it: the fit as ``MixedPoissonResult.to_json()`` writes it (numbers and coded notes; its
conclusions are derived from the numbers when shown, not stored) and the agreement with its
coded note. Groups the audit excluded (below the minimums) are left out of the model too.
What ``fairdesk audit --model-based`` prints is
:func:`fairdesk.presentation.regression_poisson_words.model_based_lines`.
"""

from __future__ import annotations

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


def _reference_level(run, by: list[str], var: str) -> str | None:
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


def model_based_block(frame, run, by, covariates=(), alpha: float | None = None) -> dict:
    """The model-based analysis of each grouping column (JSON-ready).

    Parameters
    ----------
    frame : the audit's per-item frame after the statistics (``group``, the grouping
        columns, ``n_sub``, ``n_del``, ``n_ins``, ``n_words``, ``speaker_id``, optional
        ``content_id`` and covariate columns).
    run : the audit's ``AuditRun`` (``reference``, ``comparisons``, ``excluded``,
        ``settings``), or its payload.
    by : the grouping columns.
    covariates : covariate columns (see :data:`ITEM_COVARIATES`).
    alpha : level of the tests (default: the audit's).

    Returns
    -------
    dict
        ``{v: run_poisson_mixed result (to_json) + "agreement"}``, or
        ``{v: {"error": reason}}``
        when the model cannot be fitted for ``v`` (the audit itself stands).
    """
    from ..stats.notices import Notice
    from ..stats.regression import agreement_with_bootstrap, run_poisson_mixed
    from .result import as_audit_run

    run = as_audit_run(run)
    by = [str(b) for b in by]
    if alpha is None:
        alpha = float(run.settings.alpha) if run.settings is not None else 0.05
    # the excluded groups and the row of the items with no grouping value
    excluded = {str(g.group) for g in run.groups if not g.compared}
    f = frame[~frame["group"].astype(str).isin(excluded)] if excluded else frame
    covariates = list(covariates or ())
    out = {}
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
            out[v] = {"error": str(exc)}
            continue
        comps = [c.to_dict() for c in run.comparisons]
        m = fit.to_json()
        del m["conclusions"]  # derived from the numbers when shown
        if len(by) > 1:  # the bootstrap compared combined groups: nothing to set beside
            m["agreement"] = []
            m["agreement_note"] = Notice("poisson.combined_groups", {"columns": by}).to_json()
        else:
            m["agreement"] = [
                {
                    "level": a.level,
                    "agree": a.agree,
                    "model_significant": a.model_significant,
                    "bootstrap_significant": a.bootstrap_significant,
                    "note": a.note.to_json(),
                }
                for a in agreement_with_bootstrap(fit, comps, v)
            ]
        if excluded:
            m["notes"].append(
                Notice("poisson.groups_excluded", {"groups": sorted(excluded)}).to_json()
            )
        out[v] = m
    return out
