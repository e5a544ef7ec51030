"""Reviewing a run's failures: ranking failing items and an item's aligned report.

Used by the CLI (``fairdesk show``) and the GUI's Items view alike.
"""

from .ranking import rank_failures
from .report import item_report, run_language, run_normaliser

__all__ = ["item_report", "rank_failures", "run_language", "run_normaliser"]
