"""Fairness statistics: slicing, resampling, comparisons, verdicts, summaries (docs/METHODS.md, "Comparisons with the reference"
and "Representation"). The public API is re-exported here; regression models live in ``stats.regression``.

The names load their modules on first use (module ``__getattr__``): importing one
submodule, e.g. ``stats.representation`` for a typed result, does not load scipy.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_attributes

#: public name -> the module that defines it (imported on first access)
_LAZY: dict[str, str] = {
    "SCHEMES": ".bootstrap",
    "compare_groups": ".compare",
    "Precheck": ".minimums",
    "check_groups_before_inference": ".minimums",
    "exclusion_notice": ".minimums",
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

# the same names for type checkers (``X as X``: re-exported; tests/test_lazy_exports.py)
if TYPE_CHECKING:
    from .bootstrap import SCHEMES as SCHEMES
    from .compare import compare_groups as compare_groups
    from .minimums import Precheck as Precheck
    from .minimums import check_groups_before_inference as check_groups_before_inference
    from .minimums import exclusion_notice as exclusion_notice
    from .representation import RepresentationResult as RepresentationResult
    from .representation import leakage as leakage
    from .representation import representation_analysis as representation_analysis
    from .representation import silhouette as silhouette
    from .results import AuditResult as AuditResult
    from .results import Comparison as Comparison
    from .results import Exclusion as Exclusion
    from .results import GroupInfo as GroupInfo
    from .settings import AuditSettings as AuditSettings
    from .slicing import apply_minimums as apply_minimums
    from .slicing import check_run_cap as check_run_cap
    from .slicing import choose_reference as choose_reference
    from .slicing import slice_frame as slice_frame
    from .slicing import stratified_sample as stratified_sample
    from .summary import MetricSummary as MetricSummary
    from .summary import gini as gini
    from .summary import weighted_std as weighted_std

__all__ = sorted(_LAZY)


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
