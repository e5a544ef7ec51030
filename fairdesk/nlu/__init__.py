"""Spoken-language understanding: read a hypothesis, return its intent and slots.

Public API::

    from fairdesk.nlu import get_nlu, parse_frame, NluResult, NluModel
    nlu = get_nlu("demo-music")            # or "hf:<folder>", "table:<file.csv|.jsonl>"
    nlu.parse(["play thriller by michael jackson"])
    # [NluResult(intent='PlayMusic', slots={'artist': 'michael jackson', 'album': 'thriller'},
    #            intent_confidence=0.97)]

Slot and text normalisation (used for exact match) lives in :mod:`fairdesk.nlu.normalize`.
torch and transformers are imported only by the ``hf:`` backend, when first used.
"""

from fairdesk.nlu.base import NluModel, NluResult, parse_frame
from fairdesk.nlu.normalize import (
    exact_match,
    normalize_slot_value,
    normalize_slots,
    normalize_text,
    slots_match,
)
from fairdesk.nlu.registry import get_nlu

__all__ = [
    "NluModel",
    "NluResult",
    "exact_match",
    "get_nlu",
    "normalize_slot_value",
    "normalize_slots",
    "normalize_text",
    "parse_frame",
    "slots_match",
]
