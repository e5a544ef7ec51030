"""The normaliser-sensitivity stage of an audit (``--normaliser-sensitivity``): re-scores the
run's per-item frame under each normaliser with the run's settings
(:func:`fairdesk.stats.sensitivity.normaliser_sensitivity`) and returns the run with the
``normaliser_sensitivity`` block."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from .result import AuditRun

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["run_language", "sensitivity_stage"]


def run_language(run: AuditRun) -> str:
    """The language the run's normaliser was chosen for (``en`` / ``und`` where the run
    asked for ``auto``).

    Parameters
    ----------
    run : AuditRun
        The finished run.

    Returns
    -------
    str
        A language code.
    """
    lang = run.run_settings.language if run.run_settings is not None else None
    if lang in (None, "", "auto"):
        name = run.normaliser.name if run.normaliser is not None else None
        lang = "en" if name == "whisper-english" else "und"
    return lang


def sensitivity_stage(frame: pd.DataFrame, run: AuditRun, settings) -> AuditRun:
    """The run with ``normaliser_sensitivity`` (every tested text comparison under each
    normaliser).

    Parameters
    ----------
    frame : pandas.DataFrame
        The run's per-item frame (``group``, ``reference``, ``hypothesis``).
    run : AuditRun
        The finished run (its reference group and tested metrics).
    settings : AuditSettings
        The statistics settings the run was asked with.

    Returns
    -------
    AuditRun
        A new run.
    """
    from ..stats.sensitivity import normaliser_sensitivity

    block = normaliser_sensitivity(
        frame, settings, run.reference, list(run.tested_metrics) or None, run_language(run)
    )
    return replace(run, normaliser_sensitivity=type(block).from_json(block.to_json()))
