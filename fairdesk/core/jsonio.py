"""JSON-ready values, the one cleaner of every stored or printed result: NaN and ±infinity
become null (JSON has no NaN), numpy scalars and arrays plain Python, dataclasses dicts,
tuples lists, keys strings (:func:`jsonable`; :func:`json_number` for one number)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, NewType

import numpy as np

#: A result's JSON (what a codec's ``to_json()`` writes and the store keeps): a plain dict to
#: statisticians' eyes, a distinct type to the type checker, so that reading a result by
#: string key instead of through its typed object is found by type
#: (tests/test_typed_access.py), whatever the variable is called.
ResultJson = NewType("ResultJson", dict[str, Any])


def json_number(x: Any) -> Any:
    """One number for JSON: None stays None, a bool a bool, an integer an int, anything else
    a float, or None when it is NaN or ±inf."""
    if x is None:
        return None
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    x = float(x)
    return x if math.isfinite(x) else None


def jsonable(obj: Any) -> Any:
    """Plain JSON-ready data, recursively: dataclasses → dicts, tuples → lists, numpy →
    Python, NaN and ±inf → None, keys → str; text and other objects unchanged."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [jsonable(v) for v in obj.tolist()]
    if isinstance(obj, (bool, np.bool_, int, np.integer, float, np.floating)):
        return json_number(obj)
    return obj


def json_default(o):
    """``json.dumps``' ``default`` for what :func:`jsonable` leaves: numpy, ``to_dict``
    objects, else the text."""
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return None if not math.isfinite(float(o)) else float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if hasattr(o, "to_dict"):
        return o.to_dict()
    return str(o)
