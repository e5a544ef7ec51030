"""Fairness statistics: slicing, resampling, comparisons, verdicts, summaries (docs/METHODS.md, "Comparisons with the reference"
and "Representation"). The public API is re-exported here; regression models live in ``stats.regression``.

The names load their modules on first use (module ``__getattr__``): importing one
submodule, e.g. ``stats.representation`` for a typed result, does not load scipy.
"""

from .._lazy import lazy_attributes

#: public name -> the module that defines it (imported on first access)
_LAZY: dict[str, str] = {
    "ESTIMATOR_LABELS": ".bootstrap",
    "SCHEMES": ".bootstrap",
    "compare_groups": ".compare",
    "Precheck": ".minimums",
    "check_groups_before_inference": ".minimums",
    "exclusion_message": ".minimums",
    "RepresentationResult": ".representation",
    "leakage": ".representation",
    "representation_analysis": ".representation",
    "silhouette": ".representation",
    "AuditResult": ".results",
    "Comparison": ".results",
    "Exclusion": ".results",
    "GroupInfo": ".results",
    "AuditSettings": ".settings",
    "apply_minimums": ".slicing",
    "check_run_cap": ".slicing",
    "choose_reference": ".slicing",
    "slice_frame": ".slicing",
    "stratified_sample": ".slicing",
    "MetricSummary": ".summary",
    "gini": ".summary",
    "weighted_std": ".summary",
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
