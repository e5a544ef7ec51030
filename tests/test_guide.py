"""The README and the user guide (docs/, built with MkDocs by installer/test.sh): a short
README with the two set-up commands and the five verdicts, a guide whose navigation lists
every page, built offline, and whose pictures are made by the app (docs/screenshots.py)."""

from __future__ import annotations

import os
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
    # ... which is generated, not in git (.gitignore): the README says so and how it is made
    (shot,) = IMAGE.findall(text)
    assert shot.startswith("docs/img/") and "docs/img/" in (ROOT / ".gitignore").read_text()
    said = " ".join(text[text.index(shot) :].split()[:60])
    assert "not kept in git" in said and "python docs/screenshots.py" in said
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


# -- the guide inside the package: a wheel (`pip install .`) carries it as fairdesk/_guide ----

#: What setup.py copies into the wheel besides the pages (docs/*.md).
GUIDE_EXTRAS = ("mkdocs.yml", "CHANGELOG.md")


def _png(path: Path) -> None:
    """A valid 1×1 PNG, a stand-in for a screenshot (docs/img is made by docs/screenshots.py)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
        + chunk(b"IEND", b"")
    )


def _source_copy(dest: Path, picture: bool) -> Path:
    """The files a build reads, copied from this checkout (so the build writes build/ and
    *.egg-info there, not here), without docs/img; with one stand-in picture if asked."""
    import shutil

    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "img", "*.egg-info", "_guide")
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", *GUIDE_EXTRAS):
        shutil.copy(ROOT / name, dest / name)
    shutil.copytree(ROOT / "fairdesk", dest / "fairdesk", ignore=skip)
    shutil.copytree(DOCS, dest / "docs", ignore=skip)
    if picture:
        (dest / "docs" / "img").mkdir()
        _png(dest / "docs" / "img" / "03_results_comparisons.png")
    return dest


def _build_wheel(src: Path, out: Path) -> Path:
    import importlib.util

    if importlib.util.find_spec("pip") is None or importlib.util.find_spec("setuptools") is None:
        pytest.skip("building a wheel offline needs pip and setuptools in this environment")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["--no-index", "-w", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = out.glob("fairdesk-*.whl")
    return wheel


def test_a_wheel_carries_the_guide_and_the_installed_package_finds_it(tmp_path):
    """`pip wheel .` (what `pip install .` builds) puts every page, the navigation, the changes
    and the pictures that exist into fairdesk/_guide; unpacked as site-packages (a wheel's
    purelib is exactly that), fairdesk.paths.docs_dir() finds that copy."""
    import zipfile

    (tmp_path / "src").mkdir()
    src = _source_copy(tmp_path / "src", picture=True)
    wheel = _build_wheel(src, tmp_path / "dist")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        guide = {n.removeprefix("fairdesk/_guide/") for n in names if "/_guide/" in n}
        pages = {p.name for p in DOCS.glob("*.md")}
        assert {"index.md", "METHODS.md", "getting-started.md", "changes.md"} <= pages
        assert guide == {f"docs/{p}" for p in pages} | set(GUIDE_EXTRAS) | {
            "docs/img/03_results_comparisons.png"
        }
        for rel in ("docs/index.md", "docs/METHODS.md", *GUIDE_EXTRAS):
            assert z.read(f"fairdesk/_guide/{rel}") == (src / rel).read_bytes(), rel
        site = tmp_path / "site-packages"
        z.extractall(site)
    # the installed package, outside any source checkout, with nothing pointing at docs/
    env = {k: v for k, v in os.environ.items() if k != "FAIRDESK_DOCS"}
    env["PYTHONPATH"] = str(site)
    shown = subprocess.run(
        [
            sys.executable,
            "-c",
            "import fairdesk.paths as p; print(p.__file__); print(p.docs_dir())",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr[-3000:]
    module, docs = shown.stdout.split()
    assert Path(module).parent == site / "fairdesk"  # the unpacked wheel, not this checkout
    assert Path(docs) == site / "fairdesk" / "_guide" / "docs"
    assert (Path(docs) / "index.md").read_text(encoding="utf-8").startswith("# ")
    assert (Path(docs).parent / "mkdocs.yml").is_file()  # the navigation, for the page order


def test_a_wheel_built_without_pictures_carries_the_pages_alone(tmp_path):
    """docs/img is generated and not in git: a build from a fresh clone ships the pages (the
    guide then says where each picture would be, tests/gui/test_guide_window.py)."""
    import zipfile

    (tmp_path / "src").mkdir()
    src = _source_copy(tmp_path / "src", picture=False)
    with zipfile.ZipFile(_build_wheel(src, tmp_path / "dist")) as z:
        guide = [n for n in z.namelist() if "/_guide/" in n]
    assert "fairdesk/_guide/docs/index.md" in guide
    assert not [n for n in guide if "/img/" in n or n.endswith(".py")]


def test_the_sdist_carries_what_the_wheel_copies(tmp_path):
    """MANIFEST.in: a wheel built from the sdist (`python -m build`) has the guide too."""
    import importlib.util
    import tarfile
    import zipfile

    if importlib.util.find_spec("setuptools") is None:  # found, not imported: it patches distutils
        pytest.skip("building an sdist offline needs setuptools in this environment")
    (tmp_path / "src").mkdir()
    src = _source_copy(tmp_path / "src", picture=True)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from setuptools import build_meta as b; print(b.build_sdist(sys.argv[1]))",
            str(tmp_path / "dist"),
        ],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    sdist = tmp_path / "dist" / done.stdout.split()[-1]
    with tarfile.open(sdist) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        t.extractall(tmp_path / "unpacked", **safe)
    want = {f"docs/{p.name}" for p in DOCS.glob("*.md")} | set(GUIDE_EXTRAS)
    want |= {"setup.py", "docs/img/03_results_comparisons.png"}
    assert want <= names, sorted(want - names)
    # and the wheel built from the unpacked sdist, as `python -m build` does
    (unpacked,) = (tmp_path / "unpacked").iterdir()
    with zipfile.ZipFile(_build_wheel(unpacked, tmp_path / "wheel")) as z:
        guide = {n.removeprefix("fairdesk/_guide/") for n in z.namelist() if "/_guide/" in n}
    assert guide == {n for n in want if n != "setup.py"}


def test_docs_dir_prefers_the_source_checkout_then_the_packaged_copy(tmp_path, monkeypatch):
    """A source checkout's docs/ (beside the package, with mkdocs.yml) first, so an editable
    install shows the guide being edited; else the wheel's fairdesk/_guide/docs."""
    import fairdesk.paths as paths

    monkeypatch.delenv("FAIRDESK_DOCS", raising=False)
    assert paths.docs_dir() == ROOT / "docs"  # this checkout
    site = tmp_path / "site-packages"
    package = site / "fairdesk"
    packaged = package / "_guide" / "docs"
    packaged.mkdir(parents=True)
    monkeypatch.setattr(paths, "_PACKAGE", package)
    assert paths.docs_dir() == site / "docs"  # neither: the checkout's path, named as missing
    (packaged / "index.md").write_text("# fairdesk\n", encoding="utf-8")
    assert paths.docs_dir() == packaged
    # a stray docs/ in site-packages (another package's) is not taken for fairdesk's source
    (site / "docs").mkdir()
    (site / "docs" / "index.md").write_text("# other\n", encoding="utf-8")
    assert paths.docs_dir() == packaged
    (site / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")  # a source checkout
    assert paths.docs_dir() == site / "docs"
    monkeypatch.setenv("FAIRDESK_DOCS", str(tmp_path / "mine"))
    assert paths.docs_dir() == tmp_path / "mine"
