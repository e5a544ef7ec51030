"""Where report templates live and what a report writer returns; shared by the run report
(:mod:`.html`) and the incremental report (:mod:`.incremental`), so it lives below both."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parent / "templates"


@dataclass
class ReportFiles:
    """What :func:`write_report` wrote."""

    html: Path
    pdf: Path | None = None
    figures: list[Path] = field(default_factory=list)
    audio_skipped: list[str] = field(default_factory=list)
