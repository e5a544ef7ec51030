"""The NLU interface: text in, intent and slots out.

An NLU stage reads each recogniser hypothesis and returns an :class:`NluResult`; exact match
(EM, docs/METHODS.md, "Exact match and classification") then compares it with the item's labelled intent and slots. Three kinds
of NLU are available through :func:`get_nlu`:

``"demo-music"``
    the small embedded music-domain NLU shipped with fairdesk (:mod:`fairdesk.nlu.music`);
``"hf:<folder>"``
    a user's JointBERT-style Hugging Face model on disk (:mod:`fairdesk.nlu.hf_joint`);
``"table:<file>"``
    predictions made elsewhere, imported from a CSV or JSONL file keyed by ``item_id``
    (:mod:`fairdesk.nlu.table`).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["NluModel", "NluResult", "parse_frame", "slots_from_json"]


@dataclass(frozen=True)
class NluResult:
    """What an NLU understood from one text.

    Attributes
    ----------
    intent : str
        Predicted intent label (``""`` when there is no prediction).
    slots : dict[str, str]
        Slot name -> value, the value as it reads in the text.
    intent_confidence : float or None
        Probability of the predicted intent, when the model gives one.
    """

    intent: str
    slots: dict[str, str] = field(default_factory=dict)
    intent_confidence: float | None = None

    def to_dict(self) -> dict:
        """JSON-ready copy."""
        return {
            "intent": self.intent,
            "slots": dict(self.slots),
            "intent_confidence": self.intent_confidence,
        }


class NluModel(ABC):
    """An NLU stage.

    Attributes
    ----------
    id : str
        Short name recorded with each run (e.g. ``"demo-music"``, ``"hf:my-slu"``).
    fingerprint : str
        Hex digest of everything that determines the outputs (weights, tables), so a run can
        tell whether two results came from the same NLU.
    """

    id: str
    fingerprint: str

    @abstractmethod
    def parse(self, texts: Sequence[str]) -> list[NluResult]:
        """Parse texts.

        Parameters
        ----------
        texts : sequence of str
            Recogniser hypotheses (or reference texts); ``None`` reads as ``""``.

        Returns
        -------
        list of NluResult
            One per text, same order.
        """

    def parse_items(self, item_ids: Sequence[str], texts: Sequence[str]) -> list[NluResult]:
        """Parse texts that belong to known items (tables look results up by ``item_id``)."""
        return self.parse(texts)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} id={self.id!r} fingerprint={self.fingerprint[:12]}>"


def parse_frame(
    model: NluModel,
    frame: pd.DataFrame,
    text_column: str = "hypothesis",
    prefix: str = "hyp",
) -> pd.DataFrame:
    """Run an NLU over one text column of an audit frame.

    Parameters
    ----------
    model : NluModel
    frame : pandas.DataFrame
        The per-item audit frame; an ``item_id`` column is passed to
        :meth:`NluModel.parse_items` when present.
    text_column : str, default "hypothesis"
    prefix : str, default "hyp"

    Returns
    -------
    pandas.DataFrame
        Same index, columns ``<prefix>_intent``, ``<prefix>_slots`` (dict) and
        ``<prefix>_intent_confidence``.
    """
    import pandas as pd

    if text_column not in frame.columns:
        raise KeyError(
            f"the frame has no column {text_column!r} to parse; columns: {list(frame.columns)}"
        )
    texts = [t if isinstance(t, str) else "" for t in frame[text_column].tolist()]
    if "item_id" in frame.columns:
        results = model.parse_items([str(i) for i in frame["item_id"].tolist()], texts)
    else:
        results = model.parse(texts)
    return pd.DataFrame(
        {
            f"{prefix}_intent": [r.intent for r in results],
            f"{prefix}_slots": [dict(r.slots) for r in results],
            f"{prefix}_intent_confidence": [r.intent_confidence for r in results],
        },
        index=frame.index,
    )


def slots_from_json(value: object) -> dict[str, str]:
    """Read a slot dictionary given as a dict or a JSON object string (``""``/None -> {})."""
    if value is None or (isinstance(value, float) and value != value):
        return {}
    if isinstance(value, str):
        if not value.strip():
            return {}
        value = json.loads(value)
    if not isinstance(value, dict):
        raise ValueError(f"slots must be a JSON object of name -> value, got {value!r}")
    out = {}
    for k, v in value.items():
        if v is None:
            continue
        if isinstance(v, (dict, list)):
            raise ValueError(f"slot {k!r} has a {type(v).__name__} value; values must be text")
        out[str(k)] = str(v)
    return out
