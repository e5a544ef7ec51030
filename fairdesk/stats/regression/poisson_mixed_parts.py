"""The parts of the mixed-effects Poisson regression's result
(:class:`~fairdesk.stats.regression.poisson_mixed_result.MixedPoissonResult`): one effect, a
group variable and its levels, a covariate, the content handling, the overdispersion check
and the tracing steps, each a frozen dataclass with its JSON codec (see that module for the
layout and the coded notes).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fairdesk.core.jsonio import ResultJson

from ...core.jsonio import json_number
from ..notices import Notice, stored_notice

__all__ = [
    "MAX_FIXED_CONTENTS",
    "MIN_SHARED_CONTENT",
    "OVERDISPERSION_RATIO",
    "Content",
    "CovariateEffect",
    "GroupVariable",
    "LevelRow",
    "Overdispersion",
    "RateEffect",
    "TraceLevel",
    "TraceStep",
]

#: Pearson χ²/df above this (and significant) reads as extra-Poisson variation.
OVERDISPERSION_RATIO = 1.2
#: Content ids up to this many (and shared across groups) enter as fixed effects.
MAX_FIXED_CONTENTS = 50
#: Fewest content ids shared between groups for content to be modelled (docs/METHODS.md, "Model-based comparison (mixed-effects Poisson)").
MIN_SHARED_CONTENT = 5

Words = Callable[[Notice], str]


def _f(x: Any) -> float:
    """A stored number as a float: null (an undefined number) is NaN."""
    return math.nan if x is None else float(x)


def _df(x: Any) -> float:
    """A stored degrees of freedom: null is infinite (the normal reference)."""
    return math.inf if x is None else float(x)


def _note(note: Notice, words: Words | None) -> Any:
    return note.to_json() if words is None else words(note)


def _stored_note(x: Any) -> Notice:
    """A note as stored: coded (``{"code", "args"}``), else a sentence."""
    return stored_notice(x)


@dataclass(frozen=True)
class RateEffect:
    """One fixed effect on the log scale and its Wald inference: ``log_rr`` (``se``, ``df``:
    infinite for the normal), ``rate_ratio`` = exp(log_rr) with its 95% CI, ``p_value`` and
    its base-10 logarithm (NaN where not estimable)."""

    log_rr: float
    se: float
    df: float
    rate_ratio: float
    ci_low: float
    ci_high: float
    p_value: float
    p_log10: float

    def to_json(self) -> ResultJson:
        return ResultJson(
            {
                "log_rr": json_number(self.log_rr),
                "se": json_number(self.se),
                "df": json_number(self.df),
                "rate_ratio": json_number(self.rate_ratio),
                "ci_low": json_number(self.ci_low),
                "ci_high": json_number(self.ci_high),
                "p_value": json_number(self.p_value),
                "p_log10": json_number(self.p_log10),
            }
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> RateEffect:
        from ...core.pvalues import p_log10

        p = _f(d.get("p_value"))
        lg = d["p_log10"] if "p_log10" in d else p_log10(d.get("p_value"))
        return cls(
            log_rr=_f(d.get("log_rr")),
            se=_f(d.get("se")),
            df=_df(d.get("df")),
            rate_ratio=_f(d.get("rate_ratio")),
            ci_low=_f(d.get("ci_low")),
            ci_high=_f(d.get("ci_high")),
            p_value=p,
            p_log10=_f(lg),
        )


@dataclass(frozen=True)
class LevelRow:
    """A level of a group variable: its counts and raw WER; a level other than the
    reference has its ``effect`` against the reference and the Holm-adjusted p."""

    level: str
    n_utterances: int
    n_speakers: int
    wer: float
    effect: RateEffect | None = None
    p_adjusted: float = math.nan
    p_adjusted_log10: float = math.nan

    @property
    def rate_ratio(self) -> float:
        """The effect's rate ratio (NaN for the reference level)."""
        return self.effect.rate_ratio if self.effect else math.nan

    @property
    def ci_low(self) -> float:
        """The lower 95% bound of the rate ratio (NaN where none)."""
        return self.effect.ci_low if self.effect else math.nan

    @property
    def ci_high(self) -> float:
        """The upper 95% bound of the rate ratio (NaN where none)."""
        return self.effect.ci_high if self.effect else math.nan

    @property
    def p_value(self) -> float:
        """The effect's p-value (NaN where none)."""
        return self.effect.p_value if self.effect else math.nan

    @property
    def p_log10(self) -> float:
        """The base-10 logarithm of :attr:`p_value` (NaN where none)."""
        return self.effect.p_log10 if self.effect else math.nan

    def to_json(self) -> ResultJson:
        out: dict[str, Any] = {
            "level": self.level,
            "n_utterances": self.n_utterances,
            "n_speakers": self.n_speakers,
            "wer": json_number(self.wer),
        }
        if self.effect is not None:
            out.update(self.effect.to_json())
            out["p_adjusted"] = json_number(self.p_adjusted)
            out["p_adjusted_log10"] = json_number(self.p_adjusted_log10)
        return ResultJson(out)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> LevelRow:
        from ...core.pvalues import p_log10

        has = "rate_ratio" in d
        adj = d.get("p_adjusted")
        adj_lg = d["p_adjusted_log10"] if "p_adjusted_log10" in d else p_log10(adj)
        return cls(
            level=str(d["level"]),
            n_utterances=int(d.get("n_utterances") or 0),
            n_speakers=int(d.get("n_speakers") or 0),
            wer=_f(d.get("wer")),
            effect=RateEffect.from_json(d) if has else None,
            p_adjusted=_f(adj) if has else math.nan,
            p_adjusted_log10=_f(adj_lg) if has else math.nan,
        )


@dataclass(frozen=True)
class GroupVariable:
    """A group variable: its reference level, the likelihood-ratio test of the variable
    and its levels against the reference."""

    variable: str
    reference: str
    lr_stat: float
    df: int
    lr_p_value: float
    lr_p_log10: float
    levels: tuple[LevelRow, ...]
    reference_row: LevelRow

    def to_json(self) -> ResultJson:
        return ResultJson(
            {
                "variable": self.variable,
                "reference": self.reference,
                "lr_stat": json_number(self.lr_stat),
                "df": self.df,
                "lr_p_value": json_number(self.lr_p_value),
                "lr_p_log10": json_number(self.lr_p_log10),
                "levels": [r.to_json() for r in self.levels],
                "reference_row": self.reference_row.to_json(),
            }
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> GroupVariable:
        from ...core.pvalues import p_log10

        ref = d.get("reference_row") or {"level": d["reference"]}
        lg = d["lr_p_log10"] if "lr_p_log10" in d else p_log10(d.get("lr_p_value"))
        return cls(
            variable=str(d["variable"]),
            reference=str(d["reference"]),
            lr_stat=_f(d.get("lr_stat")),
            df=int(d.get("df") or 0),
            lr_p_value=_f(d.get("lr_p_value")),
            lr_p_log10=_f(lg),
            levels=tuple(LevelRow.from_json(r) for r in d.get("levels") or ()),
            reference_row=LevelRow.from_json(ref),
        )


@dataclass(frozen=True)
class CovariateEffect:
    """A covariate's effect: a numeric one per SD (``sd``), a categorical one per level
    against its ``reference``."""

    covariate: str
    kind: str
    effect: RateEffect
    sd: float | None = None
    level: str | None = None
    reference: str | None = None

    @property
    def per(self) -> Notice | None:
        """What the effect is per (a numeric covariate: one SD)."""
        return None if self.sd is None else Notice("poisson.per_sd", {"sd": self.sd})

    def to_json(self, words: Words | None = None) -> ResultJson:
        out: dict[str, Any] = {"covariate": self.covariate, "kind": self.kind}
        out.update(self.effect.to_json())
        if self.kind == "numeric":
            per = self.per
            out["per"] = None if per is None else _note(per, words)
            out["sd"] = json_number(self.sd)
        else:
            out["level"] = self.level
            out["reference"] = self.reference
        return ResultJson(out)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> CovariateEffect:
        numeric = d.get("kind") == "numeric"
        return cls(
            covariate=str(d["covariate"]),
            kind=str(d.get("kind") or ""),
            effect=RateEffect.from_json(d),
            sd=_f(d.get("sd")) if numeric else None,
            level=None if numeric or d.get("level") is None else str(d["level"]),
            reference=None if numeric or d.get("reference") is None else str(d["reference"]),
        )


@dataclass(frozen=True)
class Content:
    """How content ids are handled: ``absent``, ``not_shared`` (fewer than
    ``MIN_SHARED_CONTENT`` shared between the levels of ``variable``), ``not_modelled``
    (more than ``max_fixed``) or ``fixed_effect`` (with the error-free contents left out)."""

    handling: str
    n_contents: int = 0
    n_shared: int = 0
    variable: str = ""
    max_fixed: int = MAX_FIXED_CONTENTS
    dropped_error_free_contents: int | None = None
    dropped_utterances: int | None = None

    @property
    def reason(self) -> Notice:
        """Why content is handled so, coded."""
        if self.handling == "absent":
            return Notice("poisson.content_absent")
        if self.handling == "not_shared":
            return Notice(
                "poisson.content_not_shared",
                {
                    "variable": self.variable,
                    "n_shared": self.n_shared,
                    "min_shared": MIN_SHARED_CONTENT,
                },
            )
        if self.handling == "not_modelled":
            return Notice(
                "poisson.content_not_modelled",
                {
                    "n_contents": self.n_contents,
                    "n_shared": self.n_shared,
                    "max_fixed": self.max_fixed,
                },
            )
        return Notice(
            "poisson.content_fixed",
            {
                "n_contents": self.n_contents,
                "n_shared": self.n_shared,
                "variable": self.variable,
                "dropped_contents": self.dropped_error_free_contents,
                "dropped_utterances": self.dropped_utterances,
            },
        )

    def to_json(self, words: Words | None = None) -> ResultJson:
        out: dict[str, Any] = {
            "handling": self.handling,
            "n_contents": self.n_contents,
            "n_shared": self.n_shared,
        }
        if self.dropped_error_free_contents is not None:
            out["dropped_error_free_contents"] = self.dropped_error_free_contents
            out["dropped_utterances"] = self.dropped_utterances
        out["reason"] = _note(self.reason, words)
        return ResultJson(out)

    @classmethod
    def from_json(cls, d: Mapping[str, Any], variable: str) -> Content:
        max_fixed = MAX_FIXED_CONTENTS
        reason = d.get("reason")
        if isinstance(reason, Mapping):
            max_fixed = int((reason.get("args") or {}).get("max_fixed") or max_fixed)
        elif isinstance(reason, str):  # stored in words: "(at most 50)"
            m = re.search(r"\(at most (\d+)\)", reason)
            max_fixed = int(m.group(1)) if m else max_fixed
        dropped = d.get("dropped_error_free_contents")
        return cls(
            handling=str(d.get("handling") or "absent"),
            n_contents=int(d.get("n_contents") or 0),
            n_shared=int(d.get("n_shared") or 0),
            variable=variable,
            max_fixed=max_fixed,
            dropped_error_free_contents=None if dropped is None else int(dropped),
            dropped_utterances=None if dropped is None else int(d.get("dropped_utterances") or 0),
        )


@dataclass(frozen=True)
class Overdispersion:
    """Pearson χ² of the fit (and its ratio to df) against the Poisson variance, with the
    ratio the plain GLM (no speaker term) would have."""

    pearson_chi2: float
    df: int
    ratio: float
    p_value: float
    p_log10: float
    ratio_without_speaker: float
    overdispersed: bool

    @property
    def reading(self) -> Notice:
        """What the ratio says, coded: ``poisson.overdispersed``, ``poisson.underdispersed``
        or ``poisson.dispersion_poisson``; ``speaker_absorbs`` when the speaker term takes
        the extra variation the GLM would show."""
        if self.overdispersed:
            code = "poisson.overdispersed"
        elif self.ratio < 1 / OVERDISPERSION_RATIO:
            code = "poisson.underdispersed"
        else:
            code = "poisson.dispersion_poisson"
        r0 = self.ratio_without_speaker
        absorbs = r0 > OVERDISPERSION_RATIO and r0 > self.ratio + 0.1
        return Notice(
            code,
            {
                "ratio": self.ratio,
                "p_value": self.p_value,
                "p_log10": self.p_log10,
                "ratio_without_speaker": r0,
                "speaker_absorbs": bool(absorbs),
            },
        )

    def to_json(self, words: Words | None = None) -> ResultJson:
        return ResultJson(
            {
                "pearson_chi2": json_number(self.pearson_chi2),
                "df": self.df,
                "ratio": json_number(self.ratio),
                "p_value": json_number(self.p_value),
                "p_log10": json_number(self.p_log10),
                "ratio_without_speaker": json_number(self.ratio_without_speaker),
                "overdispersed": self.overdispersed,
                "reading": _note(self.reading, words),
            }
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Overdispersion:
        from ...core.pvalues import p_log10

        lg = d["p_log10"] if "p_log10" in d else p_log10(d.get("p_value"))
        return cls(
            pearson_chi2=_f(d.get("pearson_chi2")),
            df=int(d.get("df") or 0),
            ratio=_f(d.get("ratio", d.get("dispersion"))),
            p_value=_f(d.get("p_value")),
            p_log10=_f(lg),
            ratio_without_speaker=_f(d.get("ratio_without_speaker")),
            overdispersed=bool(d.get("overdispersed")),
        )


@dataclass(frozen=True)
class TraceLevel:
    """A level's gap before and after a tracing step adds its covariates:
    ``shrink_pct`` = 100 (1 − log RR after / log RR before) (NaN where the rate ratio
    before is about 1), and whether the conclusion at ``alpha`` changed."""

    variable: str
    level: str
    rate_ratio_before: float
    rate_ratio_after: float
    p_before: float
    p_after: float
    p_before_log10: float
    p_after_log10: float
    shrink_pct: float
    conclusion_changed: bool

    def shrink(self, reference: str, added: Sequence[str]) -> Notice:
        """How the gap moves, coded (``poisson.shrink_*``)."""
        s = self.shrink_pct
        if not math.isfinite(s):
            code = "poisson.shrink_about_one"
        elif abs(s) < 5.0:
            code = "poisson.shrink_hardly"
        elif s > 100.0:
            code = "poisson.shrink_reverses"
        elif s > 0.0:
            code = "poisson.shrink_shrinks"
        else:
            code = "poisson.shrink_grows"
        return Notice(
            code,
            {
                "variable": self.variable,
                "level": self.level,
                "reference": reference,
                "added": list(added),
                "rr_before": self.rate_ratio_before,
                "rr_after": self.rate_ratio_after,
                "shrink": s,
            },
        )

    def to_json(self, reference: str, added: Sequence[str], words: Words | None) -> ResultJson:
        return ResultJson(
            {
                "variable": self.variable,
                "level": self.level,
                "rate_ratio_before": json_number(self.rate_ratio_before),
                "rate_ratio_after": json_number(self.rate_ratio_after),
                "p_before": json_number(self.p_before),
                "p_after": json_number(self.p_after),
                "p_before_log10": json_number(self.p_before_log10),
                "p_after_log10": json_number(self.p_after_log10),
                "shrink_pct": json_number(self.shrink_pct),
                "conclusion_changed": self.conclusion_changed,
                "sentence": _note(self.shrink(reference, added), words),
            }
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> TraceLevel:
        from ...core.pvalues import p_log10

        def lg(key: str) -> float:
            k = key + "_log10"
            return _f(d[k] if k in d else p_log10(d.get(key)))

        return cls(
            variable=str(d["variable"]),
            level=str(d["level"]),
            rate_ratio_before=_f(d.get("rate_ratio_before")),
            rate_ratio_after=_f(d.get("rate_ratio_after")),
            p_before=_f(d.get("p_before")),
            p_after=_f(d.get("p_after")),
            p_before_log10=lg("p_before"),
            p_after_log10=lg("p_after"),
            shrink_pct=_f(d.get("shrink_pct")),
            conclusion_changed=bool(d.get("conclusion_changed")),
        )


@dataclass(frozen=True)
class TraceStep:
    """One tracing step: the covariates ``added`` to the unadjusted model, their LR test,
    and each level's gap before and after; ``confounder`` when the test is significant
    and a level's conclusion changed."""

    added: tuple[str, ...]
    lr_stat: float
    df: int
    lr_p_value: float
    lr_p_log10: float
    confounder: bool
    levels: tuple[TraceLevel, ...]

    def confounding(self, alpha: float) -> Notice | None:
        """The confounding note (None when the step is no confounder)."""
        if not self.confounder:
            return None
        changed = [
            {
                "level": t.level,
                "p": t.p_after,
                "p_log10": t.p_after_log10,
                "significant": bool(t.p_after < alpha),
            }
            for t in self.levels
            if t.conclusion_changed
        ]
        return Notice(
            "poisson.confounder",
            {
                "added": list(self.added),
                "lr_p_value": self.lr_p_value,
                "lr_p_log10": self.lr_p_log10,
                "changed": changed,
            },
        )

    def to_json(self, references: Mapping[str, str], words: Words | None) -> ResultJson:
        return ResultJson(
            {
                "added": list(self.added),
                "lr_stat": json_number(self.lr_stat),
                "df": self.df,
                "lr_p_value": json_number(self.lr_p_value),
                "lr_p_log10": json_number(self.lr_p_log10),
                "confounder": self.confounder,
                "levels": [
                    t.to_json(references.get(t.variable, ""), self.added, words)
                    for t in self.levels
                ],
            }
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> TraceStep:
        from ...core.pvalues import p_log10

        lg = d["lr_p_log10"] if "lr_p_log10" in d else p_log10(d.get("lr_p_value"))
        return cls(
            added=tuple(str(a) for a in d.get("added") or ()),
            lr_stat=_f(d.get("lr_stat")),
            df=int(d.get("df") or 0),
            lr_p_value=_f(d.get("lr_p_value")),
            lr_p_log10=_f(lg),
            confounder=bool(d.get("confounder")),
            levels=tuple(TraceLevel.from_json(t) for t in d.get("levels") or ()),
        )
