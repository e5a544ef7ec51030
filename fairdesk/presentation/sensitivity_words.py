"""The normaliser sensitivity's coded notes in words
(:mod:`fairdesk.stats.sensitivity_types`)."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["TEXTS"]


def _no_text_metric() -> str:
    return "no tested text metric (WER/CER family) to re-score"


#: code → words (see fairdesk.presentation.notices).
TEXTS: dict[str, Callable[..., str]] = {"sensitivity.no_text_metric": _no_text_metric}
