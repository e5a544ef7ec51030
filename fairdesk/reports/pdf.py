"""The report as PDF: the same HTML rendered by WeasyPrint (pip ``weasyprint``; it needs the
system Pango library, ``libpango-1.0-0``, which installer/install.sh installs with apt).

The print style sheet of the report hides the audio players; everything else (tables, inline
SVG charts, verdict cards) is the HTML's. WeasyPrint may only read ``data:`` URLs here: any
other URL is refused, so the PDF, like the HTML, depends on nothing outside the file.
"""

from __future__ import annotations

import logging
from pathlib import Path


class PdfUnavailable(RuntimeError):
    """WeasyPrint or the Pango library it needs is missing."""


def _fetch_data_only(url: str, *args, **kwargs):
    if not url.startswith("data:"):
        raise ValueError(f"the report refers to {url!r}; only data: URLs are allowed")
    from weasyprint.urls import default_url_fetcher

    return default_url_fetcher(url, *args, **kwargs)


def write_pdf(html_text: str, path) -> Path:
    """Render report HTML to ``path`` (A4); returns the path.

    Raises
    ------
    PdfUnavailable
        WeasyPrint cannot be imported (not installed, or Pango missing: on Debian/Ubuntu
        ``apt install libpango-1.0-0 libpangoft2-1.0-0``).
    """
    try:
        import weasyprint
    except (ImportError, OSError) as exc:
        raise PdfUnavailable(
            f"cannot write a PDF: WeasyPrint is unavailable ({exc}); PDF reports need "
            "fairdesk[pdf]: pip install 'fairdesk[pdf]', and the Pango library: `apt install "
            "libpango-1.0-0 libpangoft2-1.0-0`; or open the HTML report in a browser and print it"
        ) from None
    from ..core.atomic import atomic_write

    path = Path(path)
    # WeasyPrint logs every CSS property it does not support (e.g. grid) as a warning.
    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    document = weasyprint.HTML(string=html_text, url_fetcher=_fetch_data_only).render()
    with atomic_write(path, "wb", make_parents=True) as f:  # complete or not at all
        document.write_pdf(f)
    return path
