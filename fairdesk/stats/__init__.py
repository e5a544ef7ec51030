"""Fairness statistics: slicing, resampling, comparisons, verdicts, summaries (docs/METHODS.md, "Comparisons with the reference"
and "Representation"). The public API is re-exported here; regression models live in ``stats.regression``.

The names load their modules on first use (module ``__getattr__``): importing one
submodule, e.g. ``stats.representation`` for a typed result, does not load scipy.
"""

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


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
