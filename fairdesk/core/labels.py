"""One label vocabulary for speaker metadata, whichever format it came from.

docs/METHODS.md, "Missing values" (the bullet on one label vocabulary for gender): formats
write the same gender differently (Kaldi ``m``, Lhotse ``M``, Common Voice 17
``male_masculine``), and a dataset merged from two of them must share its groups.
:func:`normalise_metadata` maps only clear synonyms of gender (:data:`GENDER_SYNONYMS`,
compared without case and surrounding spaces) to ``female`` / ``male``; an undisclosed
value (:data:`UNDISCLOSED`: ``do_not_wish_to_say``, ``U``, ``unknown``...) becomes
missing, so the item is counted as every missing value is; every other value
(``non-binary``, ``other``, ``intersex`` ...) stays as written. When the stored value
differs from the one written, the written one is kept as ``gender_raw``. Every importer's
candidates pass through it (``importers_formats.READERS``).

:func:`integer_columns` keeps integer metadata integers in a table with missing values
(``21``, never ``21.0``), so that filters and labels read ``21``.
"""

from __future__ import annotations

import math

__all__ = [
    "GENDER_KEYS",
    "GENDER_SYNONYMS",
    "UNDISCLOSED",
    "integer_columns",
    "normalise_gender",
    "normalise_metadata",
]

#: Metadata keys holding a speaker's gender (compared in lower case).
GENDER_KEYS = ("gender", "sex")
#: Written value (lower case) → the stored label. Only clear synonyms.
GENDER_SYNONYMS = {
    "f": "female",
    "female": "female",
    "woman": "female",
    "female_feminine": "female",
    "feminine": "female",
    "m": "male",
    "male": "male",
    "man": "male",
    "male_masculine": "male",
    "masculine": "male",
}
#: Written values (lower case) that say the gender was not disclosed: stored as missing.
UNDISCLOSED = frozenset(
    {
        "u",
        "unknown",
        "unk",
        "undisclosed",
        "unspecified",
        "not specified",
        "do_not_wish_to_say",
        "prefer not to say",
        "prefer_not_to_say",
    }
)


def normalise_gender(value):
    """The stored label of a written gender ``value``: its synonym, None (missing) when
    undisclosed, else ``value`` as written. Non-strings are returned as they are."""
    if not isinstance(value, str):
        return value
    key = value.strip().lower()
    if key in UNDISCLOSED or not key:
        return None
    return GENDER_SYNONYMS.get(key, value)


def normalise_metadata(meta: dict) -> dict:
    """``meta`` with its gender keys in the vocabulary (a new dict; see the module
    docstring). The written value is kept as ``<key>_raw`` when the stored one differs; a
    missing value is left out."""
    out = dict(meta)
    for k, v in meta.items():
        if str(k).lower() not in GENDER_KEYS or not isinstance(v, str):
            continue
        label = normalise_gender(v)
        if label == v:
            continue
        out.setdefault(f"{k}_raw", v)
        if label is None:
            del out[k]
        else:
            out[k] = label
    return out


def integer_columns(frame, records: list[dict], columns) -> None:
    """Make each of ``columns`` of ``frame`` whose present values in ``records`` are all
    Python ints (not bools) a column of ints and None (object dtype) in place: pandas reads
    such a column with a missing value as floats (``21.0``)."""
    for col in columns:
        if col not in frame.columns or frame[col].dtype.kind != "f":
            continue
        present = [r[col] for r in records if r.get(col) is not None]
        if not present or not all(isinstance(v, int) and not isinstance(v, bool) for v in present):
            continue
        import pandas as pd

        frame[col] = pd.Series(
            [None if isinstance(v, float) and math.isnan(v) else int(v) for v in frame[col]],
            index=frame.index,
            dtype=object,
        )
