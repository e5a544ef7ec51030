"""A two-annotator Igbo fixture: items whose references are written by two annotators in
Praat TextGrids (praatio), differing on known tone marks."""

from __future__ import annotations

import csv

from tests.conftest import write_wav

#: Per item key: (speaker, accent, imported text, Ada's version, Obi's version).
#: Obi differs from Ada on the marks of known letters (item: letters that differ):
#: n0: none; n1: 'à' of akwà (grave vs none) ; s0: none; s1: 'á' twice (ákwá vs àkwà).
ITEMS = {
    "n0": ("sp1", "north", "akwa ji", "àkwà ji", "àkwà ji"),
    "n1": ("sp1", "north", "akwa ego", "àkwà ego", "àkwa ego"),
    "n2": ("sp2", "north", "akwa ji", "akwa ji", "akwa ji"),
    "s0": ("sp3", "south", "akwa ji", "àkwà ji", "àkwà ji"),
    "s1": ("sp4", "south", "akwa ego", "àkwà ego", "ákwá ego"),
    "s2": ("sp4", "south", "akwa ji", "ákwá ji", "ákwá ji"),
}


def item_id(key: str) -> str:
    """The dataset's item id of a fixture key (the manifest's path)."""
    return f"{key}.wav"


def project(tmp_path, items=ITEMS, predictions: dict | None = None):
    """A project with dataset ``d`` (language ig) of ``items``; returns (project, predictions
    CSV path): the model reads each item's imported text unless ``predictions`` says."""
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project

    data = tmp_path / "data"
    rows = []
    for k, (spk, accent, text, *_rest) in items.items():
        write_wav(data / f"{k}.wav", seconds=0.2, freq=200.0 + 10 * len(rows))
        rows.append({"path": f"{k}.wav", "text": text, "speaker_id": spk, "accent": accent})
    with (data / "m.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    preds = data / "p.csv"
    with preds.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["path", "text"])
        w.writeheader()
        for k, (_s, _a, text, *_r) in items.items():
            w.writerow({"path": f"{k}.wav", "text": (predictions or {}).get(k, text)})
    p = Project(tmp_path / "proj")
    import_dataset(p, "d", data / "m.csv", fmt="manifest", language="ig")
    return p, preds


def write_textgrids(folder, texts: dict[str, str], tier: str = "reference"):
    """One TextGrid per item (``{item: text}``) written by praatio, the words of ``text`` as
    even intervals of ``tier``."""
    from praatio import textgrid
    from praatio.utilities.constants import Interval

    folder.mkdir(parents=True, exist_ok=True)
    for item, text in texts.items():
        words = text.split()
        tg = textgrid.Textgrid()
        entries = [Interval(0.05 * i, 0.05 * (i + 1), w) for i, w in enumerate(words)]
        tg.addTier(textgrid.IntervalTier(tier, entries, 0, 0.2))
        tg.save(str(folder / f"{item}.TextGrid"), format="long_textgrid", includeBlankSpaces=True)
    return folder


def import_annotator(p, folder, name: str, tier: str = "reference") -> int:
    from fairdesk.cli import main

    return main(
        [
            "annotate",
            "--project",
            str(p.folder),
            "--dataset",
            "d",
            "--from-textgrid",
            str(folder),
            "--tier",
            tier,
            "--annotator",
            name,
        ]
    )


def two_annotators(tmp_path, items=ITEMS, predictions=None):
    """The project with Ada's and Obi's versions imported from their TextGrids."""
    p, preds = project(tmp_path, items, predictions)
    ada = write_textgrids(tmp_path / "ada", {item_id(k): v[3] for k, v in items.items()})
    obi = write_textgrids(tmp_path / "obi", {item_id(k): v[4] for k, v in items.items()})
    assert import_annotator(p, ada, "Ada") == 0
    assert import_annotator(p, obi, "Obi") == 0
    return p, preds
