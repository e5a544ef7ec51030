"""The diacritics-by-category table in words (area ``diacritics``;
:func:`fairdesk.stats.diacritics_table.diacritic_table`): its notes, the reading of its
utterance bootstrap, and its console lines (``fairdesk diacritics``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .interval_words import note_json_text

__all__ = ["SCHEME_READING", "TEXTS", "format_table", "table_json"]

#: What an utterance-bootstrap interval of one speaker's recordings means (docs/METHODS.md, "Resampling schemes").
SCHEME_READING = (
    "utterances resampled within each category (asked for explicitly): the intervals describe "
    "these recordings of these speakers and sentences, not other speakers or other sentences"
)


def _replicates_dropped(n: int, without: bool) -> str:
    what = "without" if without else "with"
    return f"{n} replicates drew no item {what} diacritics and are left out"


def _worded(block: Any) -> Any:
    """A row (or a rate block) with its ``note`` in words, nested rates too."""
    if not isinstance(block, Mapping):
        return block
    out = dict(block)
    if out.get("note") is not None:
        out["note"] = note_json_text(out["note"])
    if isinstance(out.get("rates"), Mapping):
        out["rates"] = {k: _worded(v) for k, v in out["rates"].items()}
    return out


def table_json(table: Mapping[str, Any]) -> dict:
    """The table as ``fairdesk diacritics --json`` writes it: its notes in words and the
    reading of its scheme (``scheme_reading``) after its settings."""
    out: dict = {}
    for k, v in table.items():
        if k == "categories":
            v = [_worded(r) for r in v]
        elif k == "overall":
            v = _worded(v)
        out[k] = v
        if k == "settings":
            out["scheme_reading"] = SCHEME_READING
    out.setdefault("scheme_reading", SCHEME_READING)
    return out


def _pct(block: dict, scale: float = 100.0, unit: str = "%") -> str:
    v = block.get("value")
    if v is None:
        return "-"
    s = f"{scale * v:.1f}{unit}"
    if block.get("ci"):
        lo, hi = block["ci"]
        s += f" [{scale * lo:.1f}, {scale * hi:.1f}] mean {scale * block['bootstrap_mean']:.1f}"
    return s


def format_table(table: dict) -> list[str]:
    """Console lines of :func:`diacritic_table` (net loss, RDD, DER; added per 100 letters)."""
    count = table["settings"]["count"]
    lines = [
        f"Diacritics by {table['by']} (counting {count}; 95% CI and bootstrap mean of "
        f"{table['settings']['n_bootstrap']:,} utterance resamples, seed "
        f"{table['settings']['seed']})"
    ]
    head = f"{'category':<24} {'n':>3} {'E':>4} {'P':>4}  net loss [95% CI] mean"
    lines.append(head)
    n_missing = table["overall"].get("n_missing") or 0
    overall = "overall, incl. no value" if n_missing else "overall"
    for r in [*table["categories"], {**table["overall"], "category": overall}]:
        rt = r["rates"]
        name = r["category"] + (" *" if r.get("missing") else "")
        first = f"{name[:24]:<24} {r['n_items']:>3} {r['expected']:>4} {r['produced']:>4}"
        if r["expected"] == 0:
            add = rt["added_per_100_letters"]
            lines.append(
                f"{first}  no diacritics in the references: {r['produced']} added "
                f"on {r['letters']} letters = {_pct(add, 1.0, '')} per 100 letters"
            )
            continue
        lines.append(f"{first}  {_pct(rt['net_loss'])}")
        lines.append(f"{'':<38}RDD {_pct(rt['rdd'])}; DER {_pct(rt['der'])}")
        if r.get("items_without_diacritics"):
            lines.append(
                f"{'':<38}{r['items_without_diacritics']} item(s) without diacritics: "
                f"{r['added_on_items_without_diacritics']} added"
            )
    if any(r.get("missing") for r in table["categories"]):
        lines.append(
            f"* items with no {table['by']} value ({n_missing}): described, not a category; "
            "the overall row includes them (--include-missing makes them the category "
            "'(missing)')."
        )
    lines.append("Reading: " + table.get("scheme_reading", SCHEME_READING) + ".")
    return lines


#: code → words (see fairdesk.presentation.notices).
TEXTS: dict[str, Callable[..., str]] = {
    "diacritics.replicates_dropped": _replicates_dropped,
}
