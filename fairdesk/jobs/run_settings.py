"""How an audit run was made (``settings`` of its stored result, beside the statistics'
``AuditSettings``): the model and its decoding, the datasets, grouping, filters and sample,
the optional stages, where the references came from, and the software and machine."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .._meta import __version__
from .result_codec import canonical
from .result_parts import RunSettings

#: Bumped whenever a change alters computed numbers or a sentence the statistics still store
#: (part of the result-cache key; re-exported by :mod:`.audit`); 6: the readings' numbers in
#: the metric's unit; 7: the small-cluster t factor, CI bounds clamped to the metric's range,
#: gap-difference readings naming both gaps. A comparison's reading is no longer stored: it is
#: written at output time (``fairdesk.presentation.readings``), so a change of its words
#: leaves this version, and every cached result, as they are (tests/jobs/test_audit_job.py).
METRICS_CODE_VERSION = "7"

if TYPE_CHECKING:
    from .prepared import Prepared
    from .request import AuditRequest


def run_settings(req: AuditRequest, prep: Prepared) -> RunSettings:
    """How the run was made (stored under ``settings`` beside the statistics')."""
    return canonical(run_settings_dict(req, prep), RunSettings)


def run_settings_dict(req: AuditRequest, prep: Prepared) -> dict:
    b = prep.backend
    return {
        "model": req.model,
        "model_key": prep.model_key,
        "decoding": getattr(b, "settings", None)
        if not callable(getattr(b, "settings", None))
        else None,
        "device": getattr(b, "device", "cpu"),
        "datasets": list(prep.dataset_set.names) if prep.dataset_set else [req.dataset],
        "by": list(req.by),
        "filters": req.filters_dict(),
        "reference_requested": req.reference,
        "sample_per_group": req.sample,
        "nlu": req.nlu,
        "language": prep.dataset.language,
        "explain": req.wants_explain,
        "explain_per_group": req.explain_per_group,
        "explain_method": req.explain_method,
        "unstable": req.unstable,
        "model_based": req.model_based,
        "covariates": list(req.covariates),
        "text_source": _text_sources(prep.frame),
        "reference_text": req.reference_text,
        "annotators_resampled": _resampled(prep.frame),
        "shard_size": req.shard_size,
        "engine": req.engine,
        "fairdesk_version": __version__,
        "metrics_code_version": METRICS_CODE_VERSION,
        "cpu_count": os.cpu_count(),
    }


def _text_sources(frame) -> dict[str, int]:
    """How many analysed items took their reference from an annotation / the import."""
    if "text_source" not in frame.columns:
        return {"import": int(len(frame))}
    counts = frame["text_source"].value_counts()
    out = {k: int(counts.get(k, 0)) for k in ("annotation", "import")}
    if counts.get("adjudication", 0):
        out["adjudication"] = int(counts["adjudication"])
    return out


def _resampled(frame) -> int:
    """How many items have several versions the bootstrap draws from (``resample``)."""
    if "text_versions" not in frame.columns:
        return 0
    return int(sum(len(v) > 1 for v in frame["text_versions"]))


__all__ = ["METRICS_CODE_VERSION", "run_settings", "run_settings_dict"]
