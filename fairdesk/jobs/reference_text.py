"""Which reference text an audit scores against
(docs/METHODS.md, "References from several annotators"): ``latest`` (the default, as before versions: the newest version by anyone, else
the imported text), ``imported``, ``annotator:NAME``, ``adjudicated`` or ``resample``.

:func:`choose_references` gives the audit's items their reference text for the choice, lists
the items it leaves out (``problems``: never silently given one of the versions) and says how
many items have versions that disagree. ``resample`` keeps every distinct version of an item in
``text_versions`` (the statistics draw one per bootstrap replicate).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.errors import FairdeskError
from ..core.versions import annotator_name
from ..stats.notices import Notice
from .run_notes import REFERENCES_DISAGREE, REFERENCES_LEFT_OUT, REFERENCES_RESAMPLED

if TYPE_CHECKING:
    import pandas as pd

    from ..core.store import Project

__all__ = [
    "DEFAULT",
    "REFERENCE_TEXTS",
    "ReferenceChoice",
    "annotator_of",
    "choose_references",
    "parse_reference_text",
]

#: The choices without an argument; ``annotator:NAME`` names one annotator.
REFERENCE_TEXTS = ("latest", "imported", "adjudicated", "resample")
DEFAULT = "latest"
_ANNOTATOR = "annotator:"


def parse_reference_text(value: str | None) -> str:
    """The canonical choice of ``value`` (``annotator:`` with the name NFC and trimmed).

    Raises
    ------
    FairdeskError
        Not one of the choices, or ``annotator:`` with no name.
    """
    text = str(value if value is not None else DEFAULT).strip()
    if text in REFERENCE_TEXTS:
        return text
    if text.startswith(_ANNOTATOR):
        name = annotator_name(text[len(_ANNOTATOR) :])
        if not name:
            raise FairdeskError("--reference-text annotator:NAME needs the annotator's name")
        return _ANNOTATOR + name
    raise FairdeskError(
        f"--reference-text {value!r}: choose latest (the default), imported, "
        "annotator:NAME, adjudicated or resample"
    )


def annotator_of(choice: str) -> str | None:
    """The annotator of an ``annotator:NAME`` choice (None for the others)."""
    return choice[len(_ANNOTATOR) :] if choice.startswith(_ANNOTATOR) else None


@dataclass(frozen=True)
class ReferenceChoice:
    """The items with their reference text for one choice.

    Attributes
    ----------
    items : the items kept (``text`` the chosen reference, ``text_source`` where it came
        from: ``import``, ``annotation`` or ``adjudication``; with ``resample``,
        ``text_versions``: the item's distinct versions, one tuple per item).
    problems : the items left out, as ``{"item", "reason"}``.
    disagreeing : items whose versions disagree and have no adjudication.
    notes : what the run says about its references (coded notes, area ``run``).
    """

    items: pd.DataFrame
    problems: tuple[dict, ...] = ()
    disagreeing: int = 0
    notes: tuple[Notice, ...] = ()


def _quoted(versions) -> str:
    return ", ".join(f"{v.annotator}: {v.text!r}" for v in versions)


def choose_references(project: Project, items: pd.DataFrame, choice: str) -> ReferenceChoice:
    """The items' reference texts for ``choice`` (see the module doc)."""
    choice = parse_reference_text(choice)
    ids = [int(i) for i in items["db_id"]] if len(items) else []
    versions = project.transcript_versions(ids) if ids else {}
    items = items.copy()
    texts, sources, keep, problems = [], [], [], []
    resampled: list[tuple[str, ...]] = []
    disagreeing = 0
    wanted = annotator_of(choice)
    for key, db, imported in zip(items["id"], ids, items["text"]):
        iv = versions.get(db)
        vs = iv.versions if iv is not None else ()
        adj = iv.adjudication if iv is not None else None
        split = iv is not None and iv.disagree and adj is None
        disagreeing += split
        text, source = imported, "import"
        if choice == "latest":
            if iv is not None and iv.latest is not None:
                text, source = iv.latest, "annotation"
        elif choice == "adjudicated":
            if adj is not None:
                text, source = adj.text, "adjudication"
            elif split:
                problems.append(
                    {
                        "item": str(key),
                        "reason": f"its versions disagree ({_quoted(vs)}) and none is "
                        "adjudicated: left out; adjudicate it (Items view), or audit with "
                        "--reference-text resample",
                    }
                )
                keep.append(False)
                texts.append(imported)
                sources.append(source)
                resampled.append(())
                continue
            elif vs:  # one version, or identical ones: agreed
                text, source = vs[0].text, "annotation"
        elif wanted is not None:
            own = iv.version(wanted) if iv is not None else None
            if own is None:
                problems.append(
                    {
                        "item": str(key),
                        "reason": f"no version by {wanted} (versions: "
                        f"{', '.join(v.annotator for v in vs) or 'none'}): left out",
                    }
                )
                keep.append(False)
                texts.append(imported)
                sources.append(source)
                resampled.append(())
                continue
            text, source = own.text, "annotation"
        elif choice == "resample":
            if vs:
                text, source = vs[0].text, "annotation"
        texts.append(text)
        sources.append(source)
        keep.append(True)
        resampled.append(iv.distinct_texts if (iv is not None and choice == "resample") else ())
    items["text"] = texts
    items["text_source"] = sources
    if choice == "resample":
        items["text_versions"] = [v if len(v) > 1 else () for v in resampled]
    if wanted is not None and not any(iv.version(wanted) is not None for iv in versions.values()):
        names = sorted({v.annotator for iv in versions.values() for v in iv.versions})
        raise FairdeskError(
            f"--reference-text {choice}: no selected item has a version by {wanted} "
            f"(annotators: {', '.join(names) or 'none'}); names are compared as typed, "
            "after Unicode NFC and trimming"
        )
    items = items[keep].reset_index(drop=True)
    if items.empty:
        raise FairdeskError(
            f"--reference-text {choice}: every selected item was left out "
            f"({problems[0]['reason'] if problems else 'no reference'}); see `fairdesk "
            "agreement` and adjudicate, or choose another --reference-text"
        )
    return ReferenceChoice(
        items, tuple(problems), disagreeing, _notes(choice, disagreeing, problems)
    )


def _notes(choice: str, disagreeing: int, problems: list) -> tuple[Notice, ...]:
    out = []
    if disagreeing and choice not in ("adjudicated", "resample"):
        out.append(Notice(REFERENCES_DISAGREE, {"n": disagreeing, "choice": choice}))
    if problems:
        out.append(Notice(REFERENCES_LEFT_OUT, {"n": len(problems), "choice": choice}))
    if choice == "resample" and disagreeing:
        out.append(Notice(REFERENCES_RESAMPLED, {"n": disagreeing}))
    return tuple(out)
