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

from fairdesk.incremental.result_parts import SystemsBlock, encode_system_comparison

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
) -> list[SystemsBlock]:
    """Per policy × stream with at least two models, a
    :class:`~fairdesk.incremental.result_parts.SystemsBlock`: ``policy``, ``stream`` and
    ``comparison`` (every model against the first, as its stored JSON reads back), or
    ``error`` (why the models could not be compared).

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
            out.append(
                SystemsBlock.from_json({"policy": policy, "stream": stream, "error": str(exc)})
            )
            continue
        data = {"policy": policy, "stream": stream, "comparison": encode_system_comparison(res)}
        out.append(SystemsBlock.from_json(data))
    return out
