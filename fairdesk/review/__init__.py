"""Reviewing a run's failures: ranking failing items and an item's aligned report.

Used by the CLI (``fairdesk show``) and the GUI's Items view alike.
"""

from .ranking import rank_failures
from .report import (
    AlignedWord,
    WordAlignment,
    item_report,
    run_language,
    run_normaliser,
    word_alignment,
)

__all__ = [
    "AlignedWord",
    "WordAlignment",
    "item_report",
    "rank_failures",
    "run_language",
    "run_normaliser",
    "word_alignment",
]
