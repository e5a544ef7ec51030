"""How an import's report is worded beyond its counts: what joining a speaker sheet did
(:class:`fairdesk.core.speaker_sheets.SheetJoin` as a dict), for the console and the GUI's
import dialog alike."""

from __future__ import annotations

from ..core.plurals import count

#: How many speaker ids a line lists before it says how many more there are.
SHOWN = 12


def _some(ids: list[str]) -> str:
    head = ", ".join(ids[:SHOWN])
    return head + (f" … and {len(ids) - SHOWN} more" if len(ids) > SHOWN else "")


def speaker_sheet_lines(join: dict) -> list[str]:
    """The lines that say what a speaker sheet gave: the columns joined, the items and
    speakers it reached, the speakers it lacks, its rows no item uses, and the values of
    the data it replaced."""
    cols = ", ".join(join["columns"]) or "no column"
    out = [
        f"speaker sheet {join['path']} (speakers in {join['column']!r}): {cols} joined to "
        f"{count(join['joined_items'], 'item')} of {count(join['joined_speakers'], 'speaker')}"
    ]
    if join["missing"]:
        out.append(
            f"  {count(len(join['missing']), 'speaker')} of the data not in the sheet (their "
            f"items have no sheet values): {_some(join['missing'])}"
        )
    if join["unused"]:
        out.append(
            f"  {count(len(join['unused']), 'row')} of the sheet that no item uses: "
            f"{_some(join['unused'])}"
        )
    for sid, col, old, new in join["replaced"][:SHOWN]:
        out.append(f"  {sid}: {col} {old!r} from the data replaced by the sheet's {new!r}")
    if len(join["replaced"]) > SHOWN:
        out.append(f"  … and {len(join['replaced']) - SHOWN} more values replaced")
    return out
