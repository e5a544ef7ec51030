"""Result objects of the regression tests: frozen dataclasses, one JSON codec each.

``to_json(detail, words)`` gives the JSON-ready dict (NaN -> None) with each coded note
(:mod:`.codes`) written by ``words``: None writes its code and numbers (what a project
stores), fairdesk.presentation.notices.notice_text its sentence (what ``--json`` shows, the
layout of every version before the notes were coded). ``from_json`` reads both, and a dict
stored by an older version (sentences where notes are: :func:`~.codes.decode_note`).
``to_dict`` is ``to_json``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fairdesk.core.jsonio import ResultJson

from ...core.jsonio import json_number as _num
from ..notices import Notice
from .codes import (
    EXPECTED_BELOW_1,
    EXPECTED_BELOW_5,
    PROBLEM_ADJUSTED,
    PROBLEM_CLUSTERED,
    PROBLEM_INTERACTION,
    PROBLEM_UNIVARIATE,
    Words,
    decode_note,
    decode_notes,
    write_note,
)
from .descriptive_results import Descriptive


def _nan(x: Any) -> float:
    """A stored number: null is NaN (not estimated), as the fit had it."""
    return math.nan if x is None else float(x)


@dataclass(frozen=True)
class LevelEffect:
    """Odds ratio of one level against the reference level; ``p_log10``: log10 of the Wald
    p, from the normal log survival function (finite where ``p_value`` underflowed to 0)."""

    level: str
    odds_ratio: float
    ci_low: float
    ci_high: float
    p_value: float
    p_log10: float = math.nan

    def to_json(self) -> ResultJson:
        return ResultJson(
            {
                "level": self.level,
                "odds_ratio": _num(self.odds_ratio),
                "ci_low": _num(self.ci_low),
                "ci_high": _num(self.ci_high),
                "p_value": _num(self.p_value),
                "p_log10": _num(self.p_log10),
            }
        )

    to_dict = to_json

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> LevelEffect:
        return cls(
            str(d["level"]),
            _nan(d.get("odds_ratio")),
            _nan(d.get("ci_low")),
            _nan(d.get("ci_high")),
            _nan(d.get("p_value")),
            _nan(d.get("p_log10")),
        )


def _levels(values: Any) -> tuple[LevelEffect, ...]:
    return tuple(LevelEffect.from_json(v) for v in values or ())


@dataclass(frozen=True)
class UnivariateResult:
    """``outcome ~ C(variable)``.

    ``llr_p_value`` is the LR test against the null model (plain) or the Wald test of all the
    variable's terms with the clustered covariance (clustered; see ``test``). ``problem`` is
    set (and the numbers are NaN) when the model could not be fitted, e.g. perfect separation.
    ``llr_p_log10`` is log10 of ``llr_p_value`` from the χ² log survival function.
    """

    variable: str
    reference: str
    llr_p_value: float
    pseudo_r2: float
    n: int
    levels: tuple[LevelEffect, ...]
    llr_stat: float = math.nan
    df: int = 0
    n_dropped: int = 0
    test: str = "lr"
    problem: Notice | None = None
    llr_p_log10: float = math.nan

    def to_json(self, detail: bool = False, words: Words = None) -> ResultJson:
        out = {
            "variable": self.variable,
            "reference": self.reference,
            "llr_p_value": _num(self.llr_p_value),
            "llr_p_log10": _num(self.llr_p_log10),
            "pseudo_r2": _num(self.pseudo_r2),
            "n": int(self.n),
            "levels": [lev.to_json() for lev in self.levels],
        }
        if detail:
            out.update(
                llr_stat=_num(self.llr_stat),
                df=int(self.df),
                n_dropped=int(self.n_dropped),
                test=self.test,
                problem=write_note(self.problem, words),
            )
        return ResultJson(out)

    to_dict = to_json

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> UnivariateResult:
        return cls(
            variable=str(d["variable"]),
            reference=str(d.get("reference")),
            llr_p_value=_nan(d.get("llr_p_value")),
            pseudo_r2=_nan(d.get("pseudo_r2")),
            n=int(d.get("n") or 0),
            levels=_levels(d.get("levels")),
            llr_stat=_nan(d.get("llr_stat")),
            df=int(d.get("df") or 0),
            n_dropped=int(d.get("n_dropped") or 0),
            test=str(d.get("test") or "lr"),
            problem=decode_note(d.get("problem")),
            llr_p_log10=_nan(d.get("llr_p_log10")),
        )


@dataclass(frozen=True)
class AdjustmentResult:
    """``variable`` (A) adjusted on ``adjusted_on`` (B).

    ``lr_stat``/``p_value``: LR test of ``C(A)+C(B)`` against ``C(A)`` (plain) or Wald test of
    the B terms with the clustered covariance (clustered). ``or_change_pct``: 100 * (adjusted
    OR / unadjusted OR - 1) per level of A. ``levels``: the adjusted odds ratios of A;
    ``changed_levels``: the levels of A whose Wald conclusion at alpha differs between the two
    models. Interaction fields are NaN unless interactions were asked for. ``p_log10`` and
    ``interaction_p_log10``: log10 of the two p-values (χ² log survival function).
    """

    variable: str
    adjusted_on: str
    lr_stat: float
    df: int
    p_value: float
    confounder: bool
    or_change_pct: Mapping[str, float]
    levels: tuple[LevelEffect, ...] = ()
    unadjusted_levels: tuple[LevelEffect, ...] = ()
    changed_levels: tuple[str, ...] = ()
    n: int = 0
    test: str = "lr"
    problem: Notice | None = None
    interaction_lr_stat: float = math.nan
    interaction_df: int = 0
    interaction_p_value: float = math.nan
    interaction_problem: Notice | None = None
    with_interaction: bool = False
    p_log10: float = math.nan
    interaction_p_log10: float = math.nan

    def to_json(self, detail: bool = False, words: Words = None) -> ResultJson:
        out: dict[str, Any] = {
            "variable": self.variable,
            "adjusted_on": self.adjusted_on,
            "lr_stat": _num(self.lr_stat),
            "df": int(self.df),
            "p_value": _num(self.p_value),
            "p_log10": _num(self.p_log10),
            "confounder": bool(self.confounder),
            "or_change_pct": {k: _num(v) for k, v in self.or_change_pct.items()},
            "levels": [lev.to_json() for lev in self.levels],
        }
        if self.with_interaction:
            out.update(
                interaction_lr_stat=_num(self.interaction_lr_stat),
                interaction_df=int(self.interaction_df),
                interaction_p_value=_num(self.interaction_p_value),
                interaction_p_log10=_num(self.interaction_p_log10),
            )
        if detail:
            out.update(
                unadjusted_levels=[lev.to_json() for lev in self.unadjusted_levels],
                changed_levels=list(self.changed_levels),
                n=int(self.n),
                test=self.test,
                problem=write_note(self.problem, words),
            )
            if self.with_interaction:
                out["interaction_problem"] = write_note(self.interaction_problem, words)
        return ResultJson(out)

    to_dict = to_json

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> AdjustmentResult:
        return cls(
            variable=str(d["variable"]),
            adjusted_on=str(d["adjusted_on"]),
            lr_stat=_nan(d.get("lr_stat")),
            df=int(d.get("df") or 0),
            p_value=_nan(d.get("p_value")),
            confounder=bool(d.get("confounder")),
            or_change_pct={str(k): _nan(v) for k, v in (d.get("or_change_pct") or {}).items()},
            levels=_levels(d.get("levels")),
            unadjusted_levels=_levels(d.get("unadjusted_levels")),
            changed_levels=tuple(str(lev) for lev in d.get("changed_levels") or ()),
            n=int(d.get("n") or 0),
            test=str(d.get("test") or "lr"),
            problem=decode_note(d.get("problem")),
            interaction_lr_stat=_nan(d.get("interaction_lr_stat")),
            interaction_df=int(d.get("interaction_df") or 0),
            interaction_p_value=_nan(d.get("interaction_p_value")),
            interaction_problem=decode_note(d.get("interaction_problem")),
            with_interaction="interaction_p_value" in d,
            p_log10=_nan(d.get("p_log10")),
            interaction_p_log10=_nan(d.get("interaction_p_log10")),
        )


@dataclass(frozen=True)
class IndependenceResult:
    """Pearson χ² test of independence of two demographic variables (utterance counts);
    ``p_log10``: log10 of its p; ``reason``: why the test is not valid (None when it is)."""

    variable_a: str
    variable_b: str
    chi2: float
    df: int
    p_value: float
    valid: bool
    reason: Notice | None
    table: Mapping[str, Mapping[str, int]]
    n: int = 0
    min_expected: float = math.nan
    share_expected_below_5: float = math.nan
    p_log10: float = math.nan

    def to_json(self, detail: bool = False, words: Words = None) -> ResultJson:
        reason = write_note(self.reason, words)
        out = {
            "variable_a": self.variable_a,
            "variable_b": self.variable_b,
            "chi2": _num(self.chi2),
            "df": int(self.df),
            "p_value": _num(self.p_value),
            "p_log10": _num(self.p_log10),
            "valid": bool(self.valid),
            "reason": "" if reason is None else reason,
            "table": {r: {c: int(v) for c, v in row.items()} for r, row in self.table.items()},
        }
        if detail:
            out.update(
                n=int(self.n),
                min_expected=_num(self.min_expected),
                share_expected_below_5=_num(self.share_expected_below_5),
            )
        return ResultJson(out)

    to_dict = to_json

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> IndependenceResult:
        low, share = _nan(d.get("min_expected")), _nan(d.get("share_expected_below_5"))
        reason = d.get("reason")
        if isinstance(reason, str) and math.isfinite(low):  # a sentence: its numbers are here
            if reason.startswith("an expected count is below 1"):
                reason = Notice(EXPECTED_BELOW_1, {"smallest": low})
            elif reason.endswith("of cells have an expected count below 5 (more than 20%)"):
                reason = Notice(EXPECTED_BELOW_5, {"share": share})
        return cls(
            variable_a=str(d["variable_a"]),
            variable_b=str(d["variable_b"]),
            chi2=_nan(d.get("chi2")),
            df=int(d.get("df") or 0),
            p_value=_nan(d.get("p_value")),
            valid=bool(d.get("valid")),
            reason=decode_note(reason),
            table={
                str(r): {str(c): int(v) for c, v in row.items()}
                for r, row in (d.get("table") or {}).items()
            },
            n=int(d.get("n") or 0),
            min_expected=low,
            share_expected_below_5=share,
            p_log10=_nan(d.get("p_log10")),
        )


@dataclass(frozen=True)
class ClusteredResult:
    """The univariate and adjustment models with speaker-clustered inference."""

    method: str
    cluster: str
    n_clusters: int
    univariate: tuple[UnivariateResult, ...]
    adjustments: tuple[AdjustmentResult, ...]

    def to_json(self, detail: bool = False, words: Words = None) -> ResultJson:
        out: dict[str, object] = {
            "method": self.method,
            "cluster": self.cluster,
            "univariate": [u.to_json(detail, words) for u in self.univariate],
            "adjustments": [a.to_json(detail, words) for a in self.adjustments],
        }
        if detail:
            out["n_clusters"] = int(self.n_clusters)
        return ResultJson(out)

    to_dict = to_json

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ClusteredResult:
        return cls(
            method=str(d.get("method")),
            cluster=str(d.get("cluster")),
            n_clusters=int(d.get("n_clusters") or 0),
            univariate=tuple(UnivariateResult.from_json(u) for u in d.get("univariate") or ()),
            adjustments=tuple(AdjustmentResult.from_json(a) for a in d.get("adjustments") or ()),
        )


def _empty_counts() -> dict[str, int]:
    return {}


@dataclass(frozen=True)
class RegressionResult:
    """Everything :func:`run_regression` computed.

    ``to_json()`` gives the keys ``univariate``, ``adjustments`` (with the adjusted odds
    ratios per level), ``clustered`` (None without a cluster column), ``independence``,
    ``conclusions`` (the cautions, then the notes), ``cautions`` and Sekkat et al.'s
    ``outcome_chi2``, ``anova``, ``cross_tables`` and ``speaker_spread``
    (:class:`~.descriptive_results.Descriptive`); ``to_json(detail=True)`` adds the run's
    settings, dropped-row counts, ``problems``, the outcome's name (``outcome_label``), the
    data ``notes`` and per-entry details. The sentences are written by
    fairdesk.presentation.regression_words.

    ``stored_conclusions``: a result stored before its notes were kept apart from its
    sentences (no ``notes`` key) keeps its stored ``conclusions`` here (``notes`` is then
    empty, and ``outcome_label`` is ``""`` where it was not stored); fairdesk.presentation
    reads the notes out of them.
    """

    outcome: str
    model: str  # "logit" or "binomial"
    alpha: float
    univariate: tuple[UnivariateResult, ...]
    adjustments: tuple[AdjustmentResult, ...]
    clustered: ClusteredResult | None
    independence: tuple[IndependenceResult, ...]
    dropped: Mapping[str, int] = field(default_factory=_empty_counts)
    descriptive: Descriptive = field(default_factory=Descriptive)
    #: What the data cannot support (single-speaker levels, an unclustered binomial model).
    cautions: tuple[Notice, ...] = ()
    #: How the sentences name the outcome (fairdesk.presentation.regression_words writes
    #: the χ² and ANOVA sentences with it).
    outcome_label: str = ""
    #: The rows the data preparation left out or changed.
    notes: tuple[Notice, ...] = ()
    stored_conclusions: tuple[Notice, ...] = ()

    @property
    def conclusions(self) -> tuple[Notice, ...]:
        """The notes of the fit itself: its cautions, then its data notes (the stored
        conclusions of a result from before they were kept apart)."""
        if self.stored_conclusions:
            return self.stored_conclusions
        return self.cautions + self.notes

    @property
    def problems(self) -> tuple[Notice, ...]:
        """The models that could not be fitted, each with its problem."""
        out = [
            Notice(PROBLEM_UNIVARIATE, {"variable": u.variable, "problem": u.problem.to_json()})
            for u in self.univariate
            if u.problem
        ]
        for a in self.adjustments:
            if a.problem:
                out.append(
                    Notice(
                        PROBLEM_ADJUSTED,
                        {
                            "variable": a.variable,
                            "other": a.adjusted_on,
                            "problem": a.problem.to_json(),
                        },
                    )
                )
        for a in self.adjustments:
            if a.with_interaction and a.interaction_problem and not a.problem:
                args = {"variable": a.variable, "other": a.adjusted_on}
                out.append(
                    Notice(
                        PROBLEM_INTERACTION, {**args, "problem": a.interaction_problem.to_json()}
                    )
                )
        if self.clustered is not None:
            out += [
                Notice(PROBLEM_CLUSTERED, {"variable": u.variable, "problem": u.problem.to_json()})
                for u in self.clustered.univariate
                if u.problem
            ]
        return tuple(out)

    def to_json(self, detail: bool = False, words: Words = None) -> ResultJson:
        """JSON-ready dict (NaN -> None); ``detail=True`` adds settings and diagnostics."""
        out: dict[str, Any] = {
            "univariate": [u.to_json(detail, words) for u in self.univariate],
            "adjustments": [a.to_json(detail, words) for a in self.adjustments],
            "clustered": (
                None if self.clustered is None else self.clustered.to_json(detail, words)
            ),
            "independence": [i.to_json(detail, words) for i in self.independence],
            "conclusions": [write_note(n, words) for n in self.conclusions],
            "cautions": [write_note(n, words) for n in self.cautions],
            **self.descriptive.to_json(words),
        }
        if detail:
            out.update(
                outcome=self.outcome,
                model=self.model,
                alpha=float(self.alpha),
                dropped={k: int(v) for k, v in self.dropped.items()},
                problems=[write_note(n, words) for n in self.problems],
                outcome_label=self.outcome_label,
            )
            if not self.stored_conclusions:  # an older result's notes are in its conclusions
                out["notes"] = [write_note(n, words) for n in self.notes]
        return ResultJson(out)

    to_dict = to_json

    @classmethod
    def from_json(
        cls, d: Mapping[str, Any], outcome: str = "", alpha: float = 0.05
    ) -> RegressionResult:
        """The result of ``to_json(detail=True)`` (either way of writing its notes), or of
        an older version (its sentences decoded, :func:`~.codes.decode_note`); ``outcome``
        and ``alpha``: the request's, for a result that does not name them."""
        cl = d.get("clustered")
        stored = decode_notes(d.get("conclusions"))
        if "cautions" in d:
            cautions = decode_notes(d["cautions"])
        else:  # the cautions were the stored conclusions' first sentences
            cautions = tuple(
                n for n in stored[: _n_cautions(d.get("conclusions"))] if n is not None
            )
        old = "notes" not in d
        return cls(
            outcome=str(d.get("outcome") or outcome),
            model=str(d.get("model") or "logit"),
            alpha=float(d.get("alpha", alpha)),
            univariate=tuple(UnivariateResult.from_json(u) for u in d.get("univariate") or ()),
            adjustments=tuple(AdjustmentResult.from_json(a) for a in d.get("adjustments") or ()),
            clustered=ClusteredResult.from_json(cl) if cl else None,
            independence=tuple(
                IndependenceResult.from_json(i) for i in d.get("independence") or ()
            ),
            dropped={str(k): int(v) for k, v in (d.get("dropped") or {}).items()},
            descriptive=Descriptive.from_json(d),
            cautions=cautions,
            outcome_label=str(d.get("outcome_label") or ""),
            notes=() if old else decode_notes(d["notes"]),
            stored_conclusions=stored if old else (),
        )


def _n_cautions(conclusions: Any) -> int:
    k = 0
    for s in conclusions or ():
        if not (isinstance(s, str) and s.startswith("Caution: ")):
            break
        k += 1
    return k
