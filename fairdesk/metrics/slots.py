"""Spoken-language-understanding labels: intent match, exact match (EM) and slot diffs.

EM (Sekkat et al. 2024; docs/METHODS.md, "Exact match and classification") is 1 when the intent and *every* slot (name and value, after
normalisation) match the labels, else 0. The slot dictionaries are compared as a whole: a
missing or an extra slot fails the item.

Normalisation
-------------
* intents and slot names: NFC, case-folded, with every character that is not a letter or a
  digit removed, so ``"PlayMusic"``, ``"play_music"`` and ``"Play music"`` are equal;
* slot values: the language's WER normaliser (Whisper English for ``en``: case, punctuation,
  number words to digits, so ``"seven"`` equals ``"7"``; Whisper basic with diacritics kept
  otherwise). A value that is missing or normalises to ``""`` means the slot is absent.

Slots may be given as a dict ``{name: value}``, a JSON string of such a dict, a list of
``{"slot"|"name"|"type"|"entity": ..., "value"|"filler"|"text": ...}`` records (SLURP style)
or of ``[name, value]`` pairs. A slot that occurs several times (a list value) is compared as a
multiset of values.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass

from .normalize import as_text, normalizer_for

__all__ = [
    "SlotDiff",
    "exact_match",
    "intent_match",
    "normalize_label",
    "parse_slots",
    "slot_diff",
]

_NAME_KEYS = ("slot", "name", "type", "entity", "slot_name")
_VALUE_KEYS = ("value", "filler", "text", "slot_value")


def normalize_label(label) -> str:
    """Normalise an intent or slot name: NFC, case-folded, letters and digits only.

    Parameters
    ----------
    label : str or None/NaN.

    Returns
    -------
    str
    """
    s = unicodedata.normalize("NFC", as_text(label)).casefold()
    return "".join(c for c in s if c.isalnum())


def _is_missing(value) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and not value.strip()


def parse_slots(slots) -> dict[str, list]:
    """Read slots into ``{name: [raw values]}`` (names as given, first spelling kept).

    Parameters
    ----------
    slots : dict, JSON string, list of records or pairs, or None/NaN/"" (no slots).

    Returns
    -------
    dict
        Slot name -> list of raw values; values that are missing are dropped.

    Raises
    ------
    ValueError
        If the input is not one of the accepted shapes (the message shows an example).
    """
    if _is_missing(slots) or (not isinstance(slots, (str, Mapping, list, tuple)) and _na(slots)):
        return {}
    if isinstance(slots, str):
        try:
            slots = json.loads(slots)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"could not read slots {slots[:80]!r}: not valid JSON ({exc.msg}). Give a dict "
                'or a JSON object such as {"artist": "Adele", "volume": "7"}.'
            ) from None
        if slots is None:
            return {}
    pairs: list[tuple[str, object]] = []
    if isinstance(slots, Mapping):
        pairs = [(str(k), v) for k, v in slots.items()]
    elif isinstance(slots, (list, tuple)):
        for rec in slots:
            if isinstance(rec, Mapping):
                name = next((rec[k] for k in _NAME_KEYS if k in rec), None)
                value = next((rec[k] for k in _VALUE_KEYS if k in rec), None)
                if name is None:
                    raise ValueError(
                        f"slot record {dict(rec)!r} has no name; use one of the keys "
                        f"{list(_NAME_KEYS)} for the slot name and {list(_VALUE_KEYS)} for "
                        "its value."
                    )
                pairs.append((str(name), value))
            elif isinstance(rec, (list, tuple)) and len(rec) == 2:
                pairs.append((str(rec[0]), rec[1]))
            else:
                raise ValueError(
                    f"slot entry {rec!r} is neither a record nor a [name, value] pair; give "
                    'slots as {"artist": "Adele"} or [{"slot": "artist", "value": "Adele"}].'
                )
    else:
        raise ValueError(
            f"slots must be a dict, a JSON string, or a list, got {type(slots).__name__}; "
            'give slots as {"artist": "Adele"}.'
        )
    out: dict[str, list] = {}
    by_norm: dict[str, str] = {}
    for name, value in pairs:
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        values = [v for v in values if not _is_missing(v)]
        if not values:
            continue
        key = by_norm.setdefault(normalize_label(name), name)
        out.setdefault(key, []).extend(values)
    return out


def _na(value) -> bool:
    try:
        import pandas as pd

        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _value_text(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return as_text(value)


def _normalized(slots, norm: Callable[[object], str]) -> dict[str, tuple[str, list[str], list]]:
    """``{normalised name: (display name, sorted normalised values, raw values)}``; slots whose
    values all normalise to ``""`` are dropped."""
    out = {}
    for name, values in parse_slots(slots).items():
        vals = sorted(v for v in (norm(_value_text(x)) for x in values) if v)
        if vals:
            out[normalize_label(name)] = (name, vals, values)
    return out


@dataclass(frozen=True)
class SlotDiff:
    """How one slot of an item was recognised.

    Attributes
    ----------
    slot : slot name (the reference's spelling; the hypothesis's for ``extra``).
    status : ``"ok"``, ``"missed"`` (in the reference, not in the hypothesis), ``"wrong"``
        (both have it, the normalised values differ) or ``"extra"`` (only in the hypothesis).
    reference : the reference value as given (several joined by ``" | "``), or None.
    hypothesis : the hypothesis value as given, or None.
    """

    slot: str
    status: str
    reference: str | None
    hypothesis: str | None

    def to_dict(self) -> dict:
        """Plain dict for JSON."""
        return asdict(self)


def _display(values) -> str:
    return " | ".join(_value_text(v) for v in values)


def slot_diff(ref_slots, hyp_slots, language="en") -> list[SlotDiff]:
    """Compare the slots of one item, slot by slot.

    Parameters
    ----------
    ref_slots, hyp_slots : slots in any form :func:`parse_slots` accepts.
    language : picks the value normaliser (``"seven"`` == ``"7"`` for English).

    Returns
    -------
    list of SlotDiff
        Reference slots in their order, then the hypothesis's extra slots in theirs.
    """
    norm = normalizer_for(language)
    ref = _normalized(ref_slots, norm)
    hyp = _normalized(hyp_slots, norm)
    out = []
    for key, (name, vals, raw) in ref.items():
        if key not in hyp:
            out.append(SlotDiff(name, "missed", _display(raw), None))
        else:
            status = "ok" if hyp[key][1] == vals else "wrong"
            out.append(SlotDiff(name, status, _display(raw), _display(hyp[key][2])))
    for key, (name, _, raw) in hyp.items():
        if key not in ref:
            out.append(SlotDiff(name, "extra", None, _display(raw)))
    return out


def intent_match(ref_intent, hyp_intent) -> int:
    """1 if the intents are equal after :func:`normalize_label`, else 0 (a missing
    hypothesis intent never matches)."""
    r, h = normalize_label(ref_intent), normalize_label(hyp_intent)
    return int(bool(r) and r == h)


def exact_match(ref_intent, hyp_intent, ref_slots=None, hyp_slots=None, language="en") -> int:
    """Exact match (EM) of one item: intent and every slot name and value equal.

    Parameters
    ----------
    ref_intent, hyp_intent : intent labels (str or None).
    ref_slots, hyp_slots : slots in any form :func:`parse_slots` accepts; None = no slots.
    language : picks the slot-value normaliser.

    Returns
    -------
    int
        1 or 0. An item whose reference has no intent is 0 here; ``compute_item_stats``
        leaves such items out of the EM denominator instead.
    """
    if not intent_match(ref_intent, hyp_intent):
        return 0
    return int(all(d.status == "ok" for d in slot_diff(ref_slots, hyp_slots, language)))
