"""The normaliser sensitivity as a typed result
(:func:`fairdesk.stats.sensitivity.normaliser_sensitivity`;
docs/METHODS.md, "Normaliser sensitivity").

:class:`NormaliserSensitivity` holds every tested text comparison re-scored under each
normaliser (:class:`SensitivityRow`), or, where the run tested no text metric, the coded
note that says so (:data:`NO_TEXT_METRIC`, worded by
:mod:`fairdesk.presentation.sensitivity_words`). Its JSON is the block the run stores
under ``normaliser_sensitivity``; a run stored before the note was coded kept the
sentence, which decodes to the code again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..core.jsonio import ResultJson, jsonable
from .notices import STORED_SENTENCE, Notice, notice, stored_notice

__all__ = ["NO_TEXT_METRIC", "NormaliserSensitivity", "SensitivityRow"]

#: The run tested no metric of the WER/CER family: nothing to re-score.
NO_TEXT_METRIC = "sensitivity.no_text_metric"
#: How a run stored before the note was coded said :data:`NO_TEXT_METRIC`.
_NO_TEXT_METRIC_STORED = "no tested text metric (WER/CER family) to re-score"
#: A row's per-normaliser keys, in their stored order.
_BY_NORMALISER = ("verdict", "value", "reference_value", "gap", "p_adjusted")


def _by_name(x: Any) -> Mapping[str, Any]:
    return dict(x or {})


@dataclass(frozen=True)
class SensitivityRow:
    """One tested comparison (``metric``, ``group`` against ``reference``) under each
    normaliser: ``verdict``, ``value``, ``reference_value``, ``gap`` and ``p_adjusted`` map
    a normaliser's name to its number (None: not estimable, NaN or infinite), ``holds``
    whether the verdict is the same under all of them."""

    JSON_CODEC: ClassVar[bool] = True

    metric: str
    group: Any
    reference: Any
    verdict: Mapping[str, str | None]
    value: Mapping[str, float | None]
    reference_value: Mapping[str, float | None]
    gap: Mapping[str, float | None]
    p_adjusted: Mapping[str, float | None]
    holds: bool

    def to_json(self) -> ResultJson:
        """``metric, group, reference``, the per-normaliser maps, then ``holds``."""
        out: dict[str, Any] = {
            "metric": self.metric,
            "group": self.group,
            "reference": self.reference,
        }
        for k in _BY_NORMALISER:
            out[k] = jsonable(dict(getattr(self, k)))
        out["holds"] = self.holds
        return ResultJson(out)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SensitivityRow:
        """A row as stored."""
        maps = {k: _by_name(d.get(k)) for k in _BY_NORMALISER}
        return cls(
            metric=str(d["metric"]),
            group=d.get("group"),
            reference=d.get("reference"),
            holds=bool(d.get("holds", False)),
            **maps,
        )


def _read_note(x: Any) -> Notice:
    """The stored note: coded, else the sentence (today's code where it is the known one)."""
    if x == _NO_TEXT_METRIC_STORED:
        return notice(NO_TEXT_METRIC)
    return stored_notice(x)


@dataclass(frozen=True)
class NormaliserSensitivity:
    """Every tested text comparison re-scored under each normaliser.

    Attributes
    ----------
    normalisers : the normalisers compared, by settings name.
    run_normaliser : the run's own normaliser.
    metrics : the text metrics re-scored.
    rows : one per comparison, in metric then group order.
    n_comparisons : ``len(rows)``.
    n_flipped : the rows whose verdict does not hold under all normalisers.
    reference_by_normaliser : the reference group under each normaliser (None where
        nothing was re-scored).
    note : why nothing was re-scored (:data:`NO_TEXT_METRIC`), coded; None otherwise.
    """

    JSON_CODEC: ClassVar[bool] = True

    normalisers: tuple[str, ...] = ()
    run_normaliser: str | None = None
    metrics: tuple[str, ...] = ()
    rows: tuple[SensitivityRow, ...] = ()
    n_comparisons: int = 0
    n_flipped: int = 0
    reference_by_normaliser: Mapping[str, Any] | None = None
    note: Notice | None = None

    def to_json(self) -> ResultJson:
        """The stored block: ``normalisers, run_normaliser, metrics, rows, n_comparisons,
        n_flipped``, then ``reference_by_normaliser`` and the coded ``note`` where present
        (``--json`` words the note: :mod:`fairdesk.presentation.run_notes`)."""
        out: dict[str, Any] = {
            "normalisers": list(self.normalisers),
            "run_normaliser": self.run_normaliser,
            "metrics": list(self.metrics),
            "rows": [r.to_json() for r in self.rows],
            "n_comparisons": self.n_comparisons,
            "n_flipped": self.n_flipped,
        }
        if self.note is not None:
            stored = self.note.code == STORED_SENTENCE  # an older run's sentence, as stored
            out["note"] = str(self.note.args.get("text", "")) if stored else self.note.to_json()
        if self.reference_by_normaliser is not None:
            out["reference_by_normaliser"] = jsonable(dict(self.reference_by_normaliser))
        return ResultJson(out)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> NormaliserSensitivity:
        """A block as stored (its note coded, or the sentence of an older run)."""
        by = d.get("reference_by_normaliser")
        note = d.get("note")
        return cls(
            normalisers=tuple(str(n) for n in d.get("normalisers") or ()),
            run_normaliser=None if d.get("run_normaliser") is None else str(d["run_normaliser"]),
            metrics=tuple(str(m) for m in d.get("metrics") or ()),
            rows=tuple(SensitivityRow.from_json(r) for r in d.get("rows") or ()),
            n_comparisons=int(d.get("n_comparisons", 0)),
            n_flipped=int(d.get("n_flipped", 0)),
            reference_by_normaliser=None if by is None else dict(by),
            note=None if note is None else _read_note(note),
        )
