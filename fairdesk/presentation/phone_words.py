"""The phone-level analyses' notes in words (area ``phones``;
:mod:`fairdesk.stats.phone_confusion`).
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["TEXTS"]


def _accentedness_confounded() -> str:
    return (
        "accentedness is a function of the group here (e.g. constant within "
        "each group), so their effects cannot be separated; annotate more "
        "items whose accentedness varies within groups"
    )


#: code → words (see fairdesk.presentation.notices).
TEXTS: dict[str, Callable[..., str]] = {
    "phones.accentedness_confounded": _accentedness_confounded,
}
