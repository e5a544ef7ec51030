"""Corrected transcripts back from Praat or ELAN files, stored as annotations.

A linguist fixes a transcript (tone marks, typically) in the ``reference`` tier of an exported
TextGrid or EAF file, or in any tier they name. :func:`import_transcripts` reads every file of
a folder and its subfolders, maps it to a dataset item (the EAF's ``fairdesk:item`` property,
else the file's path in the folder as the export names it: ``audio/0053/x.TextGrid``, also
for the item ``audio/0053/x.opus`` whose audio extension the name leaves out, or the
flat percent-encoded ``audio%2F0053%2Fx.TextGrid`` of older exports), joins the tier's
non-empty intervals in time order, and stores the text as an annotation of kind ``transcript`` (what the record panel stores; value: ``text``,
``previous``, ``path``, ``speaker_id``, ``content_id``, ``source``). The item's own reference
text is not changed here. Every file that cannot be used is reported with the reason (not a
readable file, missing tier, no text in the tier); a transcript equal to the annotator's
current version (else the imported text) is counted as unchanged and not stored again; a
named annotator's first version of an item is stored even when it equals the imported text
(they checked the item, and their agreement counts it).

The transcripts are one annotator's version (``annotator``;
docs/METHODS.md, "References from several annotators"), written in one transaction: all of them or none. Files that name items
the dataset does not have are listed and nothing is imported (``refused``), since a version
with items missing would be half an import.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from .item_files import ItemResolver, item_from_file

KIND = "transcript"


@dataclass
class TranscriptImport:
    """What an import did. ``imported``: (file, item, annotation id); ``unchanged``: (file,
    item); ``problems``: (file, reason)."""

    dataset: str
    tier: str
    annotator: str = ""
    files: int = 0
    imported: list = field(default_factory=list)
    unchanged: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    #: (file, item) of each file naming an item the dataset lacks: nothing was imported.
    unknown: list = field(default_factory=list)

    @property
    def refused(self) -> bool:
        """Nothing was imported because some files name items the dataset does not have."""
        return bool(self.unknown)

    def to_dict(self) -> dict:
        from ..core.versions import said_annotator

        return {
            "dataset": self.dataset,
            "tier": self.tier,
            "annotator": said_annotator(self.annotator),
            "refused": self.refused,
            "unknown_items": [{"file": f, "item": i} for f, i in self.unknown],
            "files": self.files,
            "imported": [{"file": f, "item": i, "annotation_id": a} for f, i, a in self.imported],
            "unchanged": [{"file": f, "item": i} for f, i in self.unchanged],
            "problems": [{"file": f, "reason": r} for f, r in self.problems],
        }


def current_transcript(project, item_db_id: int, text: str) -> str:
    """The latest ``transcript`` annotation's text, else the item's reference text."""
    for a in reversed(project.annotations(item_db_id)):
        if a["kind"] == KIND:
            v = a["value"]
            return str(v.get("text", "")) if isinstance(v, dict) else str(v)
    return text


def import_transcripts(
    project, dataset: str, folder, tier: str, reader, pattern: str, what: str, annotator: str = ""
) -> TranscriptImport:
    """Import the ``tier`` of every ``pattern`` file in ``folder`` (see the module doc).

    Parameters
    ----------
    project : the open project.
    dataset : dataset name whose items the files belong to.
    folder : folder of exported (and edited) files.
    tier : tier name holding the corrected transcript.
    reader : ``reader(path) -> (item id or None, {tier name: [(start, end, label)]})``;
        raises ``ValueError`` for an unreadable file.
    pattern : glob of the files (``*.TextGrid``, ``*.eaf``).
    what : the files' kind in messages and in the annotation's ``source``.
    annotator : whose version the files hold (NFC, trimmed; "" reads as ``unnamed``).

    Raises
    ------
    FileNotFoundError
        ``folder`` is not a folder.
    """
    from ..core.versions import annotator_name, insert_versions

    annotator = annotator_name(annotator)
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such folder")
    ds = project.dataset(dataset)
    frame = project.items(ds)
    by_key = {str(k): r for k, r in zip(frame["id"], frame.to_dict(orient="records"))}
    resolve = ItemResolver(by_key)  # a file named without the id's audio extension too
    out = TranscriptImport(dataset, tier, annotator)
    pending: list[tuple[str, str, int, dict]] = []
    versions = project.transcript_versions(int(i) for i in frame["db_id"]) if len(frame) else {}
    files = sorted(p for p in folder.rglob(pattern) if p.is_file())
    if not files:
        files = sorted(
            p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() == pattern[1:].lower()
        )
    for path in files:
        out.files += 1
        rel = path.relative_to(folder)
        name = rel.as_posix()
        try:
            item, tiers = reader(path)
        except ValueError as exc:
            out.problems.append((name, f"not a readable {what} file: {exc}"))
            continue
        if item is None:
            item = item_from_file(rel, path.suffix)
        key = resolve(str(item))
        if key is None and str(item).startswith(f"{dataset}/"):  # exported from a run of
            key = resolve(str(item)[len(dataset) + 1 :])  # several datasets (dataset/key)
        if key is None:
            out.unknown.append((name, str(item)))
            several = resolve.candidates(str(item))
            out.problems.append(
                (
                    name,
                    f"item {item!r} could be any of {', '.join(map(repr, several))} in "
                    f"dataset {dataset!r}; rename the file after the whole item id "
                    f"({several[0]}{path.suffix})"
                    if len(several) > 1
                    else f"unknown item {item!r}: dataset {dataset!r} has no "
                    "such item (was the file renamed, or exported from "
                    "another dataset?)",
                )
            )
            continue
        item, row = key, by_key[key]
        if tier not in tiers:
            have = ", ".join(repr(t) for t in tiers) or "none"
            out.problems.append((name, f"no tier {tier!r} (tiers: {have})"))
            continue
        labels = [str(lab).strip() for _s, _e, lab in sorted(tiers[tier], key=lambda x: x[0])]
        labels = [lab for lab in labels if lab]
        if not labels:
            out.problems.append((name, f"tier {tier!r} has no text: every interval is empty"))
            continue
        text = unicodedata.normalize("NFC", " ".join(" ".join(labels).split()))
        iv = versions.get(int(row["db_id"]))
        own = iv.version(annotator) if iv is not None else None
        current = own.text if own is not None else str(row["text"])
        # a named annotator's first version is stored even when it reads as the imported
        # text: they checked the item, and their agreement counts it (unnamed files are
        # corrections: only a changed text is stored)
        if (own is not None or not annotator) and text == current:
            out.unchanged.append((name, str(item)))
            continue
        value = {
            "text": text,
            "previous": current,
            "path": row.get("path"),
            "speaker_id": row.get("speaker_id"),
            "content_id": row.get("content_id"),
            "source": f"{what} {name}, tier {tier}",
        }
        json.dumps(value, ensure_ascii=False)  # fail here, not inside the transaction
        pending.append((name, str(item), int(row["db_id"]), value))
    if out.unknown or not pending:
        return out  # nothing half-imported: the unknown items are listed
    with project.transaction() as c:
        ids = insert_versions(c, [(db, value, annotator) for _n, _i, db, value in pending])
    out.imported = [(n, i, a) for (n, i, _d, _v), a in zip(pending, ids)]
    return out
