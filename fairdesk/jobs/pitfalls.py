"""The pitfalls stage of an audit (docs/METHODS.md, "Audit pitfalls"), called by
:func:`fairdesk.jobs.analysis.analyse` for every audit (project or table).

The statistics live in :mod:`fairdesk.stats.pitfalls` (flag columns, flag counts, the item
that carries a group's WER, verdicts recomputed without the flagged items); this stage calls
them and returns the new, typed result: the groups with ``wer_dominated_by``, the tested
comparisons with ``without_flagged`` (and the flag ``verdict_changes_without_flagged_items``
where the verdict differs), and the :class:`~fairdesk.jobs.result_parts.Pitfalls` block.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from ..stats.results import AuditResult
from .result_codec import canonical
from .result_parts import Pitfalls

__all__ = ["pitfalls_stage"]


def pitfalls_stage(
    frame: pd.DataFrame, result: AuditResult, specs, settings, reference=None
) -> tuple[AuditResult, Pitfalls | None]:
    """The statistics with the pitfalls written in, and the pitfalls block.

    Parameters
    ----------
    frame : pandas.DataFrame
        The per-item frame with stats (``hallucinated`` and the flag columns; without them,
        a frame with no transcripts, nothing is added).
    result : AuditResult
        ``compare_groups``' result of the run (not changed).
    specs : list of MetricSpec
        The tested metric specs.
    settings : AuditSettings
        The run's settings.
    reference : str, optional
        The requested reference group.

    Returns
    -------
    (AuditResult, Pitfalls or None)
        A new result (groups and comparisons replaced) and the block (None for a frame
        without transcripts).
    """
    from ..core.acoustics import VAD_SETTINGS
    from ..metrics.hallucination import HallucinationSettings
    from ..stats.notices import notice
    from ..stats.pitfall_types import OVER_NONSPEECH_NOT_CHECKED
    from ..stats.pitfalls import (
        DOMINANCE_MIN_ERRORS,
        DOMINANCE_SHARE,
        dominant_items,
        flag_counts,
        nonspeech_share_by_group,
        verdicts_without_flagged,
    )

    if "hallucinated" not in frame.columns:
        return result, None
    dom = dominant_items(frame)
    entries, changed = verdicts_without_flagged(frame, result, specs, settings, reference)
    groups = tuple(replace(g, wer_dominated_by=dom.get(str(g.group))) for g in result.groups)
    comps = []
    for c in result.comparisons:
        entry = entries.get((c.metric, c.group))
        if entry is not None:
            flags = c.flags
            if entry.verdict != c.verdict:
                flags = (*flags, "verdict_changes_without_flagged_items")
            c = replace(c, without_flagged=entry, flags=tuple(flags))
        comps.append(c)
    result = replace(result, groups=groups, comparisons=tuple(comps))
    checked = "nonspeech_words" in frame.columns and frame["nonspeech_words"].notna().any()
    block = {
        "settings": {
            **HallucinationSettings().to_dict(),
            "dominance_min_errors": DOMINANCE_MIN_ERRORS,
            "dominance_share": DOMINANCE_SHARE,
            "vad": VAD_SETTINGS if checked else None,
        },
        "flags_checked": ["loop", "runaway"]
        + (["over_nonspeech"] if checked else [])
        + (["unstable"] if "hypothesis_sampled_a" in frame.columns else []),
        "n_flagged": int(frame["hallucinated"].sum()),
        "by_group": flag_counts(frame),
        "wer_dominated": [{"group": g, **d.to_json()} for g, d in dom.items()],
        "verdicts_without_flagged": changed,
    }
    if not checked:
        block["not_checked"] = notice(OVER_NONSPEECH_NOT_CHECKED)
    share = nonspeech_share_by_group(frame)
    if share is not None:
        block["nonspeech_share_by_group"] = share
    return result, canonical(block, Pitfalls)
