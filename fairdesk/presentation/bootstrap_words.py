"""The bootstrap plan's coded rule in words (:mod:`fairdesk.stats.bootstrap_plan`), and
the ``bootstrap`` blocks of a result's JSON with it worded, as ``--json`` writes them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["TEXTS", "bootstrap_json"]


def _rule() -> str:
    return (
        "B >= ceil(5 * comparisons / alpha), at most 20,000 "
        '(docs/METHODS.md, "Multiple comparisons (Holm)")'
    )


#: code → words (see fairdesk.presentation.notices).
TEXTS: dict[str, Callable[..., str]] = {"bootstrap.rule": _rule}


def _worded(block: Any) -> Any:
    if not isinstance(block, Mapping) or not isinstance(block.get("rule"), Mapping):
        return block
    from ..stats.notices import Notice
    from .notices import notice_text

    return {**block, "rule": notice_text(Notice.from_json(block["rule"]))}


def bootstrap_json(payload: Mapping[str, Any]) -> dict:
    """``payload`` (a result's JSON: an audit's, a group block's, a comparison of
    systems') with the rule of its ``bootstrap`` block and of its settings'
    ``bootstrap_raise`` in words, where they are coded."""
    out = dict(payload)
    if "bootstrap" in out:
        out["bootstrap"] = _worded(out["bootstrap"])
    settings = out.get("settings")
    if isinstance(settings, Mapping) and "bootstrap_raise" in settings:
        out["settings"] = {**settings, "bootstrap_raise": _worded(settings["bootstrap_raise"])}
    return out
