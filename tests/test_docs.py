"""The methods document and the code's citations of it.

The code cites ``docs/METHODS.md`` by section name (``docs/METHODS.md, "Resampling
schemes"``, several names joined by ``and``). Every cited name must be a heading of the
document, and no citation of the old numbered sections (``METHODS.md §3``) may be left.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "METHODS.md"
PACKAGE = ROOT / "fairdesk"

#: One citation: ``docs/METHODS.md, "A"`` or ``docs/METHODS.md, "A" and "B"``; inside a
#: double-quoted Python string the quotes are written ``\"``.
_NAME = r'\\?"[^"\\]+\\?"'
CITATION = re.compile(rf"docs/METHODS\.md,\s+({_NAME}(?:\s+and\s+{_NAME})*)")
OLD_CITATION = re.compile(r"METHODS(?:\.md)?\s?§")


def headings() -> list[str]:
    """The document's headings (any level), in order."""
    out, fenced = [], False
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        m = None if fenced else re.match(r"#{1,6} (.+?)\s*#*\s*$", line)
        if m:
            out.append(m.group(1).strip())
    return out


def sources() -> list[Path]:
    return sorted(
        p for p in PACKAGE.rglob("*") if p.is_file() and p.suffix in (".py", ".j2", ".html")
    )


def citations() -> list[tuple[str, int, str]]:
    """(file, line, cited name) of every citation of docs/METHODS.md in the package."""
    out = []
    for path in sources():
        text = path.read_text(encoding="utf-8")
        for m in CITATION.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            for name in re.findall(r'\\?"([^"\\]+)\\?"', m.group(1)):
                out.append((str(path.relative_to(ROOT)), line, name))
    return out


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    s = re.sub(r"[^\w\- ]", "", heading.lower())
    return s.replace(" ", "-")


def test_headings_are_unique():
    hs = headings()
    assert len(hs) == len(set(hs)), sorted(h for h in hs if hs.count(h) > 1)


def test_the_sections_the_code_needs_exist():
    hs = set(headings())
    for name in (
        "Missing values",
        "Text normalisation",
        "Word and character error rates",
        "Diacritic and tone metrics",
        "Group values and their intervals",
        "Comparisons with the reference",
        "Resampling schemes",
        "Multiple comparisons (Holm)",
        "Minimum detectable effect",
        "Verdicts",
        "Regression",
        "Representation",
        "Saliency grounding",
        "Incremental stability",
        "Validation",
    ):
        assert name in hs, name


def test_every_citation_names_a_heading():
    found = citations()
    # the package cites the document in well over a hundred places; a parser that finds
    # none would pass the check below vacuously
    assert len(found) > 100, len(found)
    hs = set(headings())
    wrong = [f"{f}:{line}: {name!r}" for f, line, name in found if name not in hs]
    assert not wrong, "citations of missing headings:\n" + "\n".join(wrong)


def test_citation_parser_on_known_forms():
    text = (
        'x (docs/METHODS.md, "Resampling schemes"). '
        'y (docs/METHODS.md, "Comparisons with the reference"\nand "Representation") '
        'z "help (docs/METHODS.md, \\"Run cap\\") to N"'
    )
    names = [re.findall(r'\\?"([^"\\]+)\\?"', m.group(1)) for m in CITATION.finditer(text)]
    assert names == [
        ["Resampling schemes"],
        ["Comparisons with the reference", "Representation"],
        ["Run cap"],
    ]


def test_no_citation_of_the_numbered_sections_is_left():
    left = [
        f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
        for p in sources()
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if OLD_CITATION.search(line)
    ]
    assert not left, "\n".join(left)


def test_links_inside_the_document_reach_a_heading():
    anchors = {slug(h) for h in headings()}
    links = re.findall(r"\]\(#([^)]+)\)", DOC.read_text(encoding="utf-8"))
    assert links
    assert sorted(set(links) - anchors) == []


def test_readme_and_the_guide_link_the_document():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/METHODS.md)" in readme
    assert "(METHODS.md)" in (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
