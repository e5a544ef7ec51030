"""Models compared on the same items in an incremental run (``fairdesk incremental --model A
--model B --by COL``; docs/METHODS.md, "Comparing systems").

Per policy and stream, every model after the first is compared with the first on the items
all of them decoded, with the paired replicates of :func:`fairdesk.stats.systems.compare_systems`:
the system difference per group and the gap difference per group. Pairing is limited to the
final WER and the edit overhead EO (both proportions); RPS divides by decode wall time, which
depends on the machine rather than the model's behaviour on the audio, and revokes per second
of audio, a count per second, is left to the per-model group tables.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

#: The incremental metrics compared across models with the paired scheme.
PAIRED_METRICS = ("wer", "eo")

__all__ = ["PAIRED_METRICS", "compare_models_by_group"]


def compare_models_by_group(
    frame: pd.DataFrame,
    by: Sequence[str] | str,
    models: Sequence[str],
    settings=None,
    metrics: Sequence[str] = PAIRED_METRICS,
    reference: str | None = None,
) -> list[dict]:
    """Per policy × stream with at least two models: ``policy``, ``stream`` and
    ``comparison`` (the encoded :class:`~fairdesk.stats.system_results.SystemComparisonResult`
    of every model against the first), or ``error`` (why the models could not be compared).

    ``metrics`` outside :data:`PAIRED_METRICS` are ignored.
    """
    from fairdesk.incremental.metrics import INCREMENTAL_METRICS
    from fairdesk.stats import slice_frame
    from fairdesk.stats.systems import compare_systems

    specs = [INCREMENTAL_METRICS[m] for m in metrics if m in PAIRED_METRICS]
    models = [m for m in dict.fromkeys(models)]
    if not specs or len(models) < 2 or frame.empty or "model" not in frame.columns:
        return []
    out = []
    include = bool(getattr(settings, "include_missing", False))
    for (policy, stream), part in frame.groupby(["policy", "stream"], sort=False):
        frames = {}
        for m in models:
            rows = part[part["model"] == m]
            if not rows.empty:
                frames[m] = slice_frame(rows.reset_index(drop=True), by, include_missing=include)
        if len(frames) < 2 or next(iter(frames)) != models[0]:
            continue
        try:
            res = compare_systems(frames, specs, settings, reference, item_col="id", audits=True)
        except ValueError as exc:
            out.append({"policy": policy, "stream": stream, "error": str(exc)})
            continue
        out.append({"policy": policy, "stream": stream, "comparison": _encoded(res)})
    return out


def _encoded(res) -> dict:
    """A comparison as JSON-ready data in the layout ``jobs.system_run.decode_comparison``
    reads (the per-model audits as ``AuditResult.to_dict`` writes them)."""
    from dataclasses import replace

    from fairdesk.core.jsonio import jsonable

    data = jsonable(replace(res, audits=None, draws=None))
    data["settings"] = res.settings.to_dict()
    if res.audits is not None:
        data["audits"] = {name: a.to_dict() for name, a in res.audits.items()}
    return data
