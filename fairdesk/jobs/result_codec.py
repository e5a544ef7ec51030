"""The JSON codec of the typed audit result: :mod:`fairdesk.stats.codec` (it moved there so
that the incremental results, below ``jobs``, decode with the same codec); its names are
re-exported here for the modules and tests that import them from ``jobs``."""

from __future__ import annotations

from ..stats.codec import (
    FIELD_RULES,
    SETTINGS_RECORDS,
    canonical,
    decode,
    decode_dataclass,
    decode_settings,
    encode,
    encode_dataclass,
    freeze,
    hints,
)

__all__ = [
    "FIELD_RULES",
    "SETTINGS_RECORDS",
    "canonical",
    "decode",
    "decode_dataclass",
    "decode_settings",
    "encode",
    "encode_dataclass",
    "freeze",
    "hints",
]
