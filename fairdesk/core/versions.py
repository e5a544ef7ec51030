"""Versions of an item's reference text: one per annotator, and adjudicated ones
(docs/METHODS.md, "References from several annotators").

Transcript annotations are append-only rows with an annotator name (schema v5). An item's
*version* of an annotator is the latest row of that annotator's own history; the imported text
(``items.text``) stays beside them. An *adjudication* is a new transcript row whose value says
``adjudicated`` with the adjudicator's name (the row's annotator) and time: nothing is ever
overwritten, and undoing an adjudication is undoing that row.

Annotator names are compared NFC-normalised and trimmed (two spellings of one name in
different Unicode forms are one annotator); rows stored with no name read as
:data:`UNNAMED`.
"""

from __future__ import annotations

import json
import time
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from .errors import StoreError
from .schema import inserted_id

__all__ = [
    "ADJUDICATION",
    "UNNAMED",
    "Adjudication",
    "ItemVersions",
    "Version",
    "adjudicate",
    "annotator_name",
    "insert_versions",
    "item_versions",
    "is_adjudication",
    "same_text",
    "said_annotator",
]

#: How an annotation row stored without an annotator name is read.
UNNAMED = "unnamed"
#: The ``source`` of an adjudicated transcript row.
ADJUDICATION = "adjudication"
#: Annotation kind of a transcript (``fairdesk.core.store.TRANSCRIPT``).
_TRANSCRIPT = "transcript"


def annotator_name(name) -> str:
    """A name as stored and compared: NFC, trimmed, inner whitespace one space ("" for none)."""
    if name is None:
        return ""
    return " ".join(unicodedata.normalize("NFC", str(name)).split())


def said_annotator(stored) -> str:
    """The annotator of a stored row: its name, or :data:`UNNAMED` for a row with none."""
    return annotator_name(stored) or UNNAMED


def same_text(a: str | None, b: str | None) -> bool:
    """Whether two versions are identical (NFC, whitespace runs as one space)."""
    return annotator_name(a) == annotator_name(b)


def is_adjudication(value) -> bool:
    """Whether a transcript annotation's value is an adjudicated version."""
    return isinstance(value, dict) and bool(value.get("adjudicated"))


@dataclass(frozen=True)
class Version:
    """One annotator's version of an item: the latest row of their history."""

    annotator: str
    text: str
    annotation_id: int
    created_at: float


@dataclass(frozen=True)
class Adjudication:
    """The latest adjudicated version of an item, by whom and when."""

    adjudicator: str
    text: str
    annotation_id: int
    created_at: float


@dataclass(frozen=True)
class ItemVersions:
    """An item's reference texts.

    Attributes
    ----------
    item_db_id : the item's database id.
    imported : the imported text (``items.text``).
    versions : one per annotator (their latest), sorted by annotator name.
    adjudication : the latest adjudicated version (None: not adjudicated).
    latest : the newest transcript row by anyone, adjudication included (None: no row, or
        the newest is empty), what audits used before versions existed.
    """

    item_db_id: int
    imported: str
    versions: tuple[Version, ...] = ()
    adjudication: Adjudication | None = None
    latest: str | None = None

    @property
    def annotators(self) -> tuple[str, ...]:
        return tuple(v.annotator for v in self.versions)

    def version(self, annotator: str) -> Version | None:
        name = said_annotator(annotator)
        return next((v for v in self.versions if v.annotator == name), None)

    @property
    def disagree(self) -> bool:
        """Two or more versions whose texts are not identical."""
        return len({annotator_name(v.text) for v in self.versions}) > 1

    @property
    def distinct_texts(self) -> tuple[str, ...]:
        """The versions' different texts, in annotator order (each once)."""
        out: dict[str, str] = {}
        for v in self.versions:
            out.setdefault(annotator_name(v.text), v.text)
        return tuple(out.values())


def _text(value) -> str | None:
    text = value.get("text") if isinstance(value, dict) else value
    return text if isinstance(text, str) and text.strip() else None


def item_versions(project, item_db_ids: Iterable[int] | None = None) -> dict[int, ItemVersions]:
    """Every item's :class:`ItemVersions` (``item_db_ids`` None: every item of the project)."""
    from .batches import select_in

    conn = project.conn
    if item_db_ids is None:
        items = conn.execute("SELECT id, text FROM items").fetchall()
        rows = conn.execute(
            "SELECT id, item_id, value, annotator, created_at FROM annotations WHERE kind=? "
            "ORDER BY id",
            (_TRANSCRIPT,),
        ).fetchall()
    else:
        ids = sorted({int(i) for i in item_db_ids})
        items = list(select_in(conn, "SELECT id, text FROM items WHERE id IN ({marks})", (), ids))
        rows = sorted(
            select_in(
                conn,
                "SELECT id, item_id, value, annotator, created_at FROM annotations "
                "WHERE kind=? AND item_id IN ({marks})",
                (_TRANSCRIPT,),
                ids,
            ),
            key=lambda r: r["id"],
        )
    per_item: dict[int, list] = {}
    for r in rows:
        per_item.setdefault(int(r["item_id"]), []).append(r)
    out = {}
    for item in items:
        iid = int(item["id"])
        own: dict[str, Version | None] = {}
        adjudication = None
        latest = None
        for r in per_item.get(iid, ()):
            value = json.loads(r["value"])
            text = _text(value)
            latest = text
            when = float(r["created_at"] or 0.0)
            if is_adjudication(value):
                if text is not None:
                    adjudication = Adjudication(
                        said_annotator(value.get("adjudicator") or r["annotator"]),
                        text,
                        int(r["id"]),
                        when,
                    )
                continue
            name = said_annotator(r["annotator"])
            # an emptied text withdraws the annotator's version
            own[name] = None if text is None else Version(name, text, int(r["id"]), when)
        versions = tuple(v for _n, v in sorted(own.items()) if v is not None)
        out[iid] = ItemVersions(iid, str(item["text"] or ""), versions, adjudication, latest)
    return out


def insert_versions(conn, rows: Iterable[tuple[int, dict, str]]) -> list[int]:
    """Insert transcript rows ``(item_db_id, value, annotator)`` inside the caller's
    transaction (``conn`` of :meth:`Project.transaction`); returns their ids."""
    now = time.time()
    ids = []
    for item_db_id, value, annotator in rows:
        cur = conn.execute(
            "INSERT INTO annotations(item_id, kind, start, end, value, created_at, "
            "updated_at, annotator) VALUES (?,?,NULL,NULL,?,?,?,?)",
            (
                int(item_db_id),
                _TRANSCRIPT,
                json.dumps(value, ensure_ascii=False),
                now,
                now,
                annotator_name(annotator),
            ),
        )
        ids.append(inserted_id(cur))
    return ids


def adjudicate(project, item_db_id: int, text: str, adjudicator: str) -> int:
    """Store ``text`` as the adjudicated version of an item by ``adjudicator`` (now); the
    versions it was made from are named in the row. Returns the annotation id.

    Raises
    ------
    StoreError
        No adjudicator named, an empty text, or no such item.
    """
    name = annotator_name(adjudicator)
    if not name:
        raise StoreError("name the adjudicator: an adjudicated version says who chose it")
    new = unicodedata.normalize("NFC", str(text or ""))
    if not new.strip():
        raise StoreError("an adjudicated version needs a text (it is empty)")
    iv = item_versions(project, [item_db_id]).get(int(item_db_id))
    if iv is None:
        raise StoreError(f"no item with id {item_db_id} in {project.folder}")
    value = {
        "text": new,
        "adjudicated": True,
        "adjudicator": name,
        "versions": {v.annotator: v.annotation_id for v in iv.versions},
        "previous": iv.latest if iv.latest is not None else iv.imported,
        "original": iv.imported,
        "source": ADJUDICATION,
    }
    with project.transaction() as c:
        return insert_versions(c, [(item_db_id, value, name)])[0]
