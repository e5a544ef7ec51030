"""The result of the OLS of WER on covariates (:func:`.linear.run_linear`): a frozen
dataclass whose ``to_json`` writes the dict every version stored (``family="linear"``) and
whose ``from_json`` reads it back (the sentences an older version stored decoded,
:func:`~.codes.decode_note`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fairdesk.core.jsonio import ResultJson

from ...core.jsonio import json_number as _num
from ..notices import Notice
from .codes import AGGREGATION_UTTERANCE, Words, decode_note, decode_notes, write_note

__all__ = ["Coefficient", "LinearResult", "SpearmanResult"]


def _nan(x: Any) -> float:
    return math.nan if x is None else float(x)


@dataclass(frozen=True)
class Coefficient:
    """One term of the fit (``term``: the covariate, or ``variable[T.level]``)."""

    term: str
    estimate: float
    se: float
    ci_low: float
    ci_high: float
    p_value: float
    p_log10: float

    def to_json(self) -> ResultJson:
        return ResultJson(
            {
                "term": self.term,
                "estimate": _num(self.estimate),
                "se": _num(self.se),
                "ci_low": _num(self.ci_low),
                "ci_high": _num(self.ci_high),
                "p_value": _num(self.p_value),
                "p_log10": _num(self.p_log10),
            }
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Coefficient:
        return cls(
            str(d["term"]),
            _nan(d.get("estimate")),
            _nan(d.get("se")),
            _nan(d.get("ci_low")),
            _nan(d.get("ci_high")),
            _nan(d.get("p_value")),
            _nan(d.get("p_log10")),
        )


@dataclass(frozen=True)
class SpearmanResult:
    """The Spearman rank correlation of the outcome with one covariate (descriptive)."""

    covariate: str
    rho: float
    p_value: float
    p_log10: float
    n: int

    def to_json(self) -> ResultJson:
        return ResultJson(
            {
                "covariate": self.covariate,
                "rho": _num(self.rho),
                "p_value": _num(self.p_value),
                "p_log10": _num(self.p_log10),
                "n": int(self.n),
            }
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SpearmanResult:
        return cls(
            str(d["covariate"]),
            _nan(d.get("rho")),
            _nan(d.get("p_value")),
            _nan(d.get("p_log10")),
            int(d.get("n") or 0),
        )


@dataclass(frozen=True)
class LinearResult:
    """OLS of ``outcome`` (``"wer"`` or a numeric column) on covariates and group
    variables, one row per ``level`` (``"speaker"`` or ``"utterance"``); ``formula`` is its
    label (``WER ~ age + C(group)``); ``aggregation`` says how rows were made (a coded
    note); ``notes``: rows left out, covariates averaged per speaker."""

    outcome: str
    level: str
    formula: str
    n: int
    n_utterances: int
    n_dropped: int
    alpha: float
    references: Mapping[str, str]
    coefficients: tuple[Coefficient, ...]
    r2: float
    adj_r2: float
    f_p_value: float
    f_p_log10: float
    spearman: tuple[SpearmanResult, ...]
    aggregation: Notice
    notes: tuple[Notice, ...] = ()

    family = "linear"

    def to_json(self, words: Words = None) -> ResultJson:
        return ResultJson(
            {
                "family": "linear",
                "outcome": self.outcome,
                "level": self.level,
                "formula": self.formula,
                "n": int(self.n),
                "n_utterances": int(self.n_utterances),
                "n_dropped": int(self.n_dropped),
                "alpha": float(self.alpha),
                "references": dict(self.references),
                "coefficients": [c.to_json() for c in self.coefficients],
                "r2": _num(self.r2),
                "adj_r2": _num(self.adj_r2),
                "f_p_value": _num(self.f_p_value),
                "f_p_log10": _num(self.f_p_log10),
                "spearman": [s.to_json() for s in self.spearman],
                "aggregation": write_note(self.aggregation, words),
                "notes": [write_note(n, words) for n in self.notes],
            }
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> LinearResult:
        """A stored OLS result (``to_json()``, either way of writing its notes, or an older
        version's sentences)."""
        return cls(
            outcome=str(d.get("outcome") or "wer"),
            level=str(d.get("level") or "utterance"),
            formula=str(d.get("formula") or ""),
            n=int(d.get("n") or 0),
            n_utterances=int(d.get("n_utterances") or 0),
            n_dropped=int(d.get("n_dropped") or 0),
            alpha=float(d.get("alpha", 0.05)),
            references={str(k): str(v) for k, v in (d.get("references") or {}).items()},
            coefficients=tuple(Coefficient.from_json(c) for c in d.get("coefficients") or ()),
            r2=_nan(d.get("r2")),
            adj_r2=_nan(d.get("adj_r2")),
            f_p_value=_nan(d.get("f_p_value")),
            f_p_log10=_nan(d.get("f_p_log10")),
            spearman=tuple(SpearmanResult.from_json(s) for s in d.get("spearman") or ()),
            aggregation=decode_note(d.get("aggregation")) or Notice(AGGREGATION_UTTERANCE),
            notes=decode_notes(d.get("notes")),
        )
