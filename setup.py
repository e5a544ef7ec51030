"""Ships the user guide inside the package (everything else is in pyproject.toml).

Help ▸ User guide (fairdesk/gui/guide.py) reads the guide's Markdown pages. In a source
checkout they are ``docs/`` beside the package; a wheel (``pip install .``, not editable) has
no source tree, so this build step copies the guide into the package as ``fairdesk/_guide/``:

    fairdesk/_guide/docs/*.md       the pages
    fairdesk/_guide/docs/img/*      the pictures, when docs/screenshots.py has made them
    fairdesk/_guide/mkdocs.yml      the navigation (the order of the pages)
    fairdesk/_guide/CHANGELOG.md    the file docs/changes.md includes

``fairdesk.paths.docs_dir`` finds ``fairdesk/_guide/docs`` when there is no source checkout.
docs/img/ is generated and not in git: without it the wheel ships the pages alone and the
guide says where each picture would be. An editable install copies nothing (it reads docs/).
MANIFEST.in puts the same files into the sdist, so a wheel built from it has the guide too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
GUIDE = Path("fairdesk") / "_guide"
PICTURES = (".png", ".jpg", ".jpeg", ".gif", ".svg")


def guide_files(root: Path = ROOT) -> list[tuple[Path, Path]]:
    """(source file, its path under ``fairdesk/_guide``) of every file the guide needs."""
    docs = root / "docs"
    if not (docs / "index.md").is_file():
        raise SystemExit(
            f"fairdesk build: {docs / 'index.md'} not found; the package would ship without "
            "its user guide (build from a source checkout or from the sdist, which has docs/)"
        )
    out = [(p, Path("docs") / p.name) for p in sorted(docs.glob("*.md"))]
    img = docs / "img"
    if img.is_dir():
        out += [
            (p, Path("docs") / "img" / p.name)
            for p in sorted(img.iterdir())
            if p.is_file() and p.suffix.lower() in PICTURES
        ]
    out += [(root / name, Path(name)) for name in ("mkdocs.yml", "CHANGELOG.md")]
    return out


class BuildPyWithGuide(build_py):
    """build_py, then the guide into ``<build_lib>/fairdesk/_guide`` (fresh each build)."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        target = Path(self.build_lib) / GUIDE
        shutil.rmtree(target, ignore_errors=True)  # no page or picture left from an old build
        for src, rel in guide_files():
            dest = target / rel
            self.mkpath(str(dest.parent))
            self.copy_file(str(src), str(dest))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if self.editable_mode:
            return outputs
        return outputs + [str(Path(self.build_lib) / GUIDE / rel) for _, rel in guide_files()]


setup(cmdclass={"build_py": BuildPyWithGuide})
