"""``fairdesk annotate`` with TextGrids that cannot be read (issue 29): a Latin-1 TextGrid, an
empty one, one that is not a TextGrid, a binary one and one fairdesk may not read each get a
line naming the file, what is wrong and what to do, instead of the raw exception
(``UnicodeDecodeError``, ``IndexError``); the readable files are imported all the same, and
nothing but the annotations changes."""

from __future__ import annotations

import errno
import json
from pathlib import Path

from .conftest import changed, dump

GOOD = ("north-0-0", "south-1-1")


def _textgrid(path: Path, text: str, encoding: str = "utf-8") -> Path:
    """A long TextGrid with one interval tier ``reference`` holding ``text``."""
    from praatio import textgrid

    tg = textgrid.Textgrid(minTimestamp=0.0, maxTimestamp=0.4)
    tg.addTier(textgrid.IntervalTier("reference", [(0.0, 0.4, text)], 0.0, 0.4))
    tmp = path.with_suffix(".tmp")
    tg.save(str(tmp), format="long_textgrid", includeBlankSpaces=True)
    path.write_bytes(tmp.read_text(encoding="utf-8").encode(encoding))
    tmp.unlink()
    return path


def _annotate(cli, proj, folder, *extra):
    return cli(
        "annotate",
        "--project",
        proj,
        "--dataset",
        "base",
        "--from-textgrid",
        folder,
        "--tier",
        "reference",
        *extra,
    )


LATIN1 = (
    "not a readable TextGrid file: the file is neither UTF-8 nor UTF-16 (byte 0xe9 at byte {at}; "
    "most likely Latin-1 or Windows-1252, as older Praat versions and some editors save): set "
    "Praat's Preferences > Text writing preferences to UTF-8, open the file and save it again, "
    "or re-save it as UTF-8 in a text editor"
)


def test_unreadable_textgrids_are_named_and_the_rest_imported(cli, base, tmp_path):
    proj, _data = base
    folder = tmp_path / "grids"
    folder.mkdir()
    _textgrid(folder / "north-0-0.TextGrid", "play the sóng 0")
    _textgrid(folder / "south-1-1.TextGrid", "play the sóng 1", "utf-16")  # Praat's UTF-16
    latin = _textgrid(folder / "north-0-1.TextGrid", "café", "latin-1")
    (folder / "north-1-0.TextGrid").write_bytes(b"")
    (folder / "north-1-1.TextGrid").write_text("\n\n")
    (folder / "south-0-0.TextGrid").write_text("just some notes\n")
    (folder / "south-0-1.TextGrid").write_bytes(b"ooBinaryFile\x08TextGrid\x00\x00")
    before = dump(proj)
    code, out, err = _annotate(cli, proj, folder, "--json", tmp_path / "a.json")
    assert code == 0
    assert (
        f"7 files in {folder}: 2 transcripts imported as annotations, 0 unchanged, 5 problems"
        in out
    )
    at = latin.read_bytes().index(b"\xe9") + 1
    lines = err.splitlines()
    assert f"  north-0-1.TextGrid: {LATIN1.format(at=at)}" in lines
    empty = (
        "not a readable TextGrid file: the file is empty ({n} bytes); export it again with "
        "`fairdesk export --textgrid`, or remove it from the folder"
    )
    assert f"  north-1-0.TextGrid: {empty.format(n=0)}" in lines
    assert f"  north-1-1.TextGrid: {empty.format(n=2)}" in lines
    assert (
        "  south-0-0.TextGrid: not a readable TextGrid file: not a Praat TextGrid (it does not "
        'begin with File type = "ooTextFile"); give the TextGrids `fairdesk export --textgrid` '
        "wrote, edited in Praat" in lines
    )
    assert (
        "  south-0-1.TextGrid: not a readable TextGrid file: a binary TextGrid; open it in "
        "Praat and save it with Save as text file" in lines
    )
    for raw in ("UnicodeDecodeError", "IndexError", "list index out of range"):
        assert raw not in err
    rep = json.loads((tmp_path / "a.json").read_text())
    assert sorted(i["item"] for i in rep["imported"]) == sorted(GOOD)
    assert [p["file"] for p in rep["problems"]] == [
        "north-0-1.TextGrid",
        "north-1-0.TextGrid",
        "north-1-1.TextGrid",
        "south-0-0.TextGrid",
        "south-0-1.TextGrid",
    ]
    after = dump(proj)
    assert changed(before, after) == {"annotations"}
    assert len(after["annotations"]) - len(before["annotations"]) == 2


def test_only_unreadable_textgrids_exit_1(cli, base, tmp_path):
    proj, _data = base
    folder = tmp_path / "grids"
    folder.mkdir()
    _textgrid(folder / "north-0-1.TextGrid", "café", "latin-1")
    (folder / "north-1-0.TextGrid").write_bytes(b"")
    before = dump(proj)
    code, out, err = _annotate(cli, proj, folder)
    assert code == 1
    assert "0 transcripts imported as annotations, 0 unchanged, 2 problems" in out
    assert "north-0-1.TextGrid: not a readable TextGrid file: the file is neither UTF-8" in err
    assert "north-1-0.TextGrid: not a readable TextGrid file: the file is empty" in err
    assert dump(proj) == before


def test_textgrid_one_may_not_read_says_permission_denied(cli, base, tmp_path, monkeypatch):
    proj, _data = base
    folder = tmp_path / "grids"
    folder.mkdir()
    _textgrid(folder / "north-0-0.TextGrid", "play the sóng 0")
    locked = _textgrid(folder / "north-0-1.TextGrid", "play it")
    real = Path.read_bytes

    def read_bytes(self):  # root reads whatever the mode: the refusal is injected
        if self == locked:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    code, out, err = _annotate(cli, proj, folder)
    assert code == 0 and "1 transcript imported" in out
    assert (
        "  north-0-1.TextGrid: not a readable TextGrid file: permission denied: fairdesk may not "
        "read the file; give your user read permission (chmod u+r) or copy the file somewhere "
        "you can read" in err.splitlines()
    )
