"""Fairness statistics: slicing, resampling, comparisons, verdicts, summaries (docs/METHODS.md, "Comparisons with the reference"
and "Representation"). The public API is re-exported here; regression models live in ``stats.regression``."""

from fairdesk.stats.bootstrap import ESTIMATOR_LABELS, SCHEMES
from fairdesk.stats.compare import compare_groups
from fairdesk.stats.minimums import Precheck, check_groups_before_inference, exclusion_message
from fairdesk.stats.representation import (
    RepresentationResult,
    leakage,
    representation_analysis,
    silhouette,
)
from fairdesk.stats.results import AuditResult, Comparison, Exclusion, GroupInfo
from fairdesk.stats.settings import AuditSettings
from fairdesk.stats.slicing import (
    apply_minimums,
    check_run_cap,
    choose_reference,
    slice_frame,
    stratified_sample,
)
from fairdesk.stats.summary import MetricSummary, gini, weighted_std

__all__ = [
    "ESTIMATOR_LABELS",
    "SCHEMES",
    "AuditResult",
    "AuditSettings",
    "Comparison",
    "Exclusion",
    "GroupInfo",
    "MetricSummary",
    "Precheck",
    "RepresentationResult",
    "apply_minimums",
    "check_groups_before_inference",
    "check_run_cap",
    "choose_reference",
    "compare_groups",
    "exclusion_message",
    "gini",
    "leakage",
    "representation_analysis",
    "silhouette",
    "slice_frame",
    "stratified_sample",
    "weighted_std",
]
