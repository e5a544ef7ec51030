"""The README and the user guide (docs/, built with MkDocs by installer/test.sh): a short
README with the two set-up commands and the five verdicts, a guide whose navigation lists
every page, built offline, and whose pictures are made by the app (docs/screenshots.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
VERDICTS = (
    "speaker_confounded",
    "disparity_detected",
    "significant_but_small",
    "inconclusive_underpowered",
    "no_disparity_detected",
)
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


def _mkdocs() -> dict:
    yaml = pytest.importorskip("yaml")
    # the config's one non-standard tag-free YAML: plain safe_load reads it
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def test_readme_is_short_and_says_what_a_newcomer_needs():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    assert "bash installer/demo.sh\n" in text and "bash installer/test.sh\n" in text
    for v in VERDICTS:  # all five, one line each
        (line,) = [ln for ln in text.splitlines() if ln.startswith(f"- `{v}`")]
        assert len(line) > len(v) + 20
    assert len(IMAGE.findall(text)) == 1  # one screenshot
    assert "docs/index.md" in text and "CHANGELOG.md" in text


def test_the_guide_lists_every_page_and_builds_offline():
    cfg = _mkdocs()
    assert cfg["theme"]["name"] == "material" and cfg["theme"]["font"] is False
    assert [p if isinstance(p, str) else next(iter(p)) for p in cfg["plugins"]] == [
        "search",
        "offline",
    ]
    nav = [next(iter(e.values())) for e in cfg["nav"]]
    titles = [next(iter(e)) for e in cfg["nav"]]
    for want in (
        "Getting started",
        "Your data",
        "Auditing",
        "Reading the results",
        "Listening and annotating",
        "Recording in the field",
        "Comparing systems",
        "Planning",
        "Reports and exports",
        "Notebooks",
        "Running on a cluster",
        "Troubleshooting",
        "Methods",
        "Development",
        "Changes",
    ):
        assert want in titles, want
    pages = sorted(p.name for p in DOCS.glob("*.md"))
    assert sorted(nav) == pages  # every page in the navigation, every entry a page
    test_sh = (ROOT / "installer" / "test.sh").read_text(encoding="utf-8")
    assert "mkdocs build --strict" in test_sh and "NO_MKDOCS_2_WARNING=1" in test_sh
    assert "docs/screenshots.py" in test_sh


def test_reading_the_results_names_every_verdict():
    text = (DOCS / "reading-results.md").read_text(encoding="utf-8")
    for v in (*VERDICTS, "not_estimable", "no_variation"):
        assert f"`{v}`" in text, v
    for words in ("## The interval", "## The MDE", "## Flags", "## When a gap is not causal"):
        assert words in text


def test_your_data_gives_each_format_a_command():
    from fairdesk.core.importers import FORMATS

    text = (DOCS / "your-data.md").read_text(encoding="utf-8")
    for fmt in FORMATS:
        if fmt == "auto":
            continue
        (row,) = [ln for ln in text.splitlines() if ln.startswith(f"| `{fmt}` |")]
        assert "import …" in row, fmt


def referenced_images() -> set[str]:
    """Every picture the guide and the README show, as a path under docs/."""
    out = set()
    for page in [ROOT / "README.md", *DOCS.glob("*.md")]:
        for ref in IMAGE.findall(page.read_text(encoding="utf-8")):
            out.add(ref.removeprefix("docs/"))
    return out


@pytest.mark.gui
def test_every_picture_the_guide_shows_is_made_by_the_screenshot_script(tmp_path):
    """docs/screenshots.py builds the demo project, runs ``fairdesk gui --screenshot`` at
    1366×768 and writes the PNGs the guide links (docs/img/ in CI, before mkdocs)."""
    pytest.importorskip("PySide6")
    refs = referenced_images()
    assert refs and all(r.startswith("img/") for r in refs), refs
    out = tmp_path / "img"
    done = subprocess.run(
        [sys.executable, str(DOCS / "screenshots.py"), str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    missing = sorted(r for r in refs if not (out / r.removeprefix("img/")).is_file())
    assert not missing, missing
    from PySide6.QtGui import QImage

    for r in refs:
        img = QImage(str(out / r.removeprefix("img/")))
        assert not img.isNull(), r
        if not r.startswith("img/05_") and not r.startswith("img/07_"):  # dialogs: own size
            assert (img.width(), img.height()) == (1366, 768), (r, img.width(), img.height())


def test_your_data_names_the_columns_the_importer_looks_for():
    from fairdesk.core import import_rows as r

    text = (DOCS / "your-data.md").read_text(encoding="utf-8")
    for group in ("AUDIO", "TEXT", "SPEAKER", "CONTENT", "ID", "LABEL"):
        names = getattr(r, f"{group}_COLUMNS")
        rows = [ln for ln in text.splitlines() if f"`{names[0]}`" in ln]
        assert rows, group
        assert any(all(f"`{n}`" in ln for n in names) for ln in rows), (group, names)
