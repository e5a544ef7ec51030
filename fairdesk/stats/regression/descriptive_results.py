"""The result objects of Sekkat et al.'s complementary tests and tables
(:mod:`.descriptive`): frozen dataclasses whose ``to_json`` writes the dict every version
stored (the keys ``outcome_chi2``, ``anova``, ``cross_tables`` and ``speaker_spread`` of a
regression result) and whose ``from_json`` reads it back."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fairdesk.core.jsonio import ResultJson

from ...core.jsonio import json_number as _num
from ..notices import Notice
from .codes import Words, decode_note, write_note


def _opt(x: Any) -> float | None:
    return None if x is None else float(x)


@dataclass(frozen=True)
class OutcomeChi2:
    """χ² test of independence of the outcome and ``variable``; ``table``: level → column
    (``"1"``/``"0"``, or ``"word errors"``/``"correct words"``) → count of ``unit``.
    ``reason`` is set (and the statistics None) when it could not be computed."""

    variable: str
    unit: str
    table: Mapping[str, Mapping[str, int]]
    chi2: float | None = None
    df: int = 0
    p_value: float | None = None
    p_log10: float | None = None
    min_expected: float | None = None
    valid: bool = False
    reason: Notice | None = None

    def to_json(self, words: Words = None) -> ResultJson:
        out: dict[str, Any] = {
            "variable": self.variable,
            "unit": self.unit,
            "table": {lev: {c: int(v) for c, v in row.items()} for lev, row in self.table.items()},
            "chi2": _num(self.chi2),
            "df": int(self.df),
            "p_value": _num(self.p_value),
        }
        if self.reason is not None:
            out["reason"] = write_note(self.reason, words)
            return ResultJson(out)
        out.update(
            p_log10=_num(self.p_log10), min_expected=_num(self.min_expected), valid=self.valid
        )
        return ResultJson(out)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> OutcomeChi2:
        return cls(
            variable=str(d["variable"]),
            unit=str(d.get("unit") or ""),
            table={
                str(r): {str(c): int(v) for c, v in row.items()}
                for r, row in (d.get("table") or {}).items()
            },
            chi2=_opt(d.get("chi2")),
            df=int(d.get("df") or 0),
            p_value=_opt(d.get("p_value")),
            p_log10=_opt(d.get("p_log10")),
            min_expected=_opt(d.get("min_expected")),
            valid=bool(d.get("valid")),
            reason=decode_note(d.get("reason")),
        )


@dataclass(frozen=True)
class Anova:
    """One-way ANOVA of the outcome (``per``: per utterance, 0/1 or error rate) across the
    ``k`` levels of ``variable`` (``n`` utterances); ``tested`` False (and the statistics
    None) when there were fewer than two levels or no level with two utterances."""

    variable: str
    per: str
    n: int
    k: int
    tested: bool = False
    f: float | None = None
    df_between: int = 0
    df_within: int = 0
    p_value: float | None = None
    p_log10: float | None = None

    def to_json(self) -> ResultJson:
        out: dict[str, Any] = {
            "variable": self.variable,
            "per": self.per,
            "n": int(self.n),
            "k": int(self.k),
            "f": _num(self.f),
            "df_between": int(self.df_between),
            "df_within": int(self.df_within),
            "p_value": _num(self.p_value),
        }
        if self.tested:
            out["p_log10"] = _num(self.p_log10)
        return ResultJson(out)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Anova:
        return cls(
            variable=str(d["variable"]),
            per=str(d.get("per") or ""),
            n=int(d.get("n") or 0),
            k=int(d.get("k") or 0),
            tested="p_log10" in d or d.get("p_value") is not None,
            f=_opt(d.get("f")),
            df_between=int(d.get("df_between") or 0),
            df_within=int(d.get("df_within") or 0),
            p_value=_opt(d.get("p_value")),
            p_log10=_opt(d.get("p_log10")),
        )


@dataclass(frozen=True)
class CellCounts:
    """Utterances and (with a speaker column) speakers of a level or a cell."""

    utterances: int
    speakers: int | None = None

    def to_json(self) -> ResultJson:
        out = {"utterances": int(self.utterances)}
        if self.speakers is not None:
            out["speakers"] = int(self.speakers)
        return ResultJson(out)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> CellCounts:
        spk = d.get("speakers")
        return cls(int(d.get("utterances") or 0), None if spk is None else int(spk))


@dataclass(frozen=True)
class PairTable:
    """The counts of each cell of two variables (``cells[level_a][level_b]``)."""

    variable_a: str
    variable_b: str
    cells: Mapping[str, Mapping[str, CellCounts]]

    def to_json(self) -> ResultJson:
        return ResultJson(
            {
                "variable_a": self.variable_a,
                "variable_b": self.variable_b,
                "cells": {
                    r: {c: v.to_json() for c, v in row.items()} for r, row in self.cells.items()
                },
            }
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> PairTable:
        return cls(
            str(d["variable_a"]),
            str(d["variable_b"]),
            {
                str(r): {str(c): CellCounts.from_json(v) for c, v in row.items()}
                for r, row in (d.get("cells") or {}).items()
            },
        )


def _no_levels() -> dict[str, dict[str, CellCounts]]:
    return {}


@dataclass(frozen=True)
class CrossTables:
    """Counts per level of each variable (``levels[variable][level]``), and per cell of
    each pair of variables."""

    levels: Mapping[str, Mapping[str, CellCounts]] = field(default_factory=_no_levels)
    pairs: tuple[PairTable, ...] = ()

    def to_json(self) -> ResultJson:
        return ResultJson(
            {
                "levels": {
                    v: {lev: c.to_json() for lev, c in row.items()}
                    for v, row in self.levels.items()
                },
                "pairs": [p.to_json() for p in self.pairs],
            }
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> CrossTables:
        return cls(
            {
                str(v): {str(lev): CellCounts.from_json(c) for lev, c in row.items()}
                for v, row in (d.get("levels") or {}).items()
            },
            tuple(PairTable.from_json(p) for p in d.get("pairs") or ()),
        )


@dataclass(frozen=True)
class SpeakerValue:
    """One speaker's outcome rate within a level (NaN: not defined)."""

    speaker: str
    n_utterances: int
    value: float

    def to_json(self) -> ResultJson:
        return ResultJson(
            {
                "speaker": self.speaker,
                "n_utterances": int(self.n_utterances),
                "value": _num(self.value),
            }
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SpeakerValue:
        v = d.get("value")
        return cls(
            str(d["speaker"]), int(d.get("n_utterances") or 0), math.nan if v is None else float(v)
        )


@dataclass(frozen=True)
class SpreadLevel:
    """The spread of the speakers' rates within one level (``sd`` None with one speaker)."""

    level: str
    n_speakers: int
    min: float | None
    median: float | None
    max: float | None
    sd: float | None
    speakers: tuple[SpeakerValue, ...]

    def to_json(self) -> ResultJson:
        return ResultJson(
            {
                "level": self.level,
                "n_speakers": int(self.n_speakers),
                "min": _num(self.min),
                "median": _num(self.median),
                "max": _num(self.max),
                "sd": _num(self.sd),
                "speakers": [s.to_json() for s in self.speakers],
            }
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SpreadLevel:
        return cls(
            str(d["level"]),
            int(d.get("n_speakers") or 0),
            _opt(d.get("min")),
            _opt(d.get("median")),
            _opt(d.get("max")),
            _opt(d.get("sd")),
            tuple(SpeakerValue.from_json(s) for s in d.get("speakers") or ()),
        )


@dataclass(frozen=True)
class SpeakerSpread:
    """Each speaker's outcome rate (``measure``) within each level of ``variable``."""

    variable: str
    measure: str
    levels: tuple[SpreadLevel, ...]

    def to_json(self) -> ResultJson:
        return ResultJson(
            {
                "variable": self.variable,
                "measure": self.measure,
                "levels": [lev.to_json() for lev in self.levels],
            }
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SpeakerSpread:
        return cls(
            str(d["variable"]),
            str(d.get("measure") or ""),
            tuple(SpreadLevel.from_json(lev) for lev in d.get("levels") or ()),
        )


@dataclass(frozen=True)
class Descriptive:
    """Sekkat et al.'s χ² and ANOVA per variable, the cross-tables and the per-speaker
    spread (empty without a speaker column)."""

    outcome_chi2: tuple[OutcomeChi2, ...] = ()
    anova: tuple[Anova, ...] = ()
    cross_tables: CrossTables = field(default_factory=CrossTables)
    speaker_spread: tuple[SpeakerSpread, ...] = ()
    #: False for a result stored without the block (its keys are then not written).
    present: bool = True

    def to_json(self, words: Words = None) -> ResultJson:
        if not self.present:
            return ResultJson({})
        return ResultJson(
            {
                "outcome_chi2": [c.to_json(words) for c in self.outcome_chi2],
                "anova": [a.to_json() for a in self.anova],
                "cross_tables": self.cross_tables.to_json(),
                "speaker_spread": [s.to_json() for s in self.speaker_spread],
            }
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Descriptive:
        """The block of a result dict (its four keys; a dict without them: not present)."""
        if "outcome_chi2" not in d and "anova" not in d:
            return cls(present=False)
        return cls(
            tuple(OutcomeChi2.from_json(c) for c in d.get("outcome_chi2") or ()),
            tuple(Anova.from_json(a) for a in d.get("anova") or ()),
            CrossTables.from_json(d.get("cross_tables") or {}),
            tuple(SpeakerSpread.from_json(s) for s in d.get("speaker_spread") or ()),
        )
