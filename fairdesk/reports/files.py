"""Where report templates live, the one jinja2 environment that renders them
(:func:`environment`) and what a report writer returns; shared by the run report (:mod:`.html`)
and the incremental report (:mod:`.incremental`), so it lives below both."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jinja2

TEMPLATES = Path(__file__).resolve().parent / "templates"


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The jinja2 environment of every report template: autoescape on (every user string
    is escaped; only our own SVG and CSS go in as ``Markup``), an undefined name an error,
    block tags without their blank lines, and the ``counted`` filter
    (``{{ n|counted("item") }}``: ``1 item``, ``2 items``, the one plural rule)."""
    import jinja2

    from ..presentation import count

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["counted"] = count
    return env


@dataclass
class ReportFiles:
    """What :func:`write_report` wrote."""

    html: Path
    pdf: Path | None = None
    figures: list[Path] = field(default_factory=list)
    audio_skipped: list[str] = field(default_factory=list)
