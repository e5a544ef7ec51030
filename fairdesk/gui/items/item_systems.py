"""The item view's systems: when the shown run is a comparison's baseline, every system's
hypothesis of the item aligned against the reference (under the difference view)."""

from __future__ import annotations

import pandas as pd


def comparison_hypotheses(project, run_id: int) -> dict | None:
    """``{system: hypothesis by item id}`` of the latest comparison whose baseline is run
    ``run_id``; None when there is none or a system's run is gone (the item view then shows
    this run alone)."""
    from ...jobs.system_run import comparison_frames, latest_comparison

    cmp = latest_comparison(project, run_id)
    if cmp is None:
        return None
    try:
        frames = comparison_frames(project, cmp)
    except ValueError:
        return None
    return {
        n: f.drop_duplicates("item_id").set_index(f["item_id"].astype(str))["hypothesis"]
        for n, f in frames.items()
    }


def show_systems(diff, systems: dict | None, row: dict | None, language, normaliser) -> None:
    """Every system's hypothesis of ``row`` aligned against its reference in ``diff`` (a
    :class:`~.diff_view.DiffView`); hidden for an item that is not a common one."""
    from ...review.systems_align import systems_alignment

    key = None if row is None else str(row.get("item_id", row.get("id")))
    if not systems or key is None or any(key not in h.index for h in systems.values()):
        diff.set_systems(None)
        return
    hyps = {n: "" if pd.isna(h.at[key]) else str(h.at[key]) for n, h in systems.items()}
    cols, counts = systems_alignment(row.get("reference"), hyps, language, normaliser)
    diff.set_systems(cols, counts)
