"""The mixed-effects Poisson regression's result, typed: :class:`MixedPoissonResult`.

:func:`fairdesk.stats.regression.poisson_mixed_report.run_poisson_mixed` returns it: numbers
and coded notes only (:class:`~fairdesk.stats.notices.Notice`, area ``"poisson"``, worded
by :mod:`fairdesk.presentation.regression_poisson_words`). Its conclusions are derived from
the numbers (:meth:`MixedPoissonResult.conclusions`), never stored as words.

One JSON codec: :meth:`MixedPoissonResult.to_json` writes the layout
``run_poisson_mixed`` has always returned (``family, model, approximation, inference,
alpha, n_utterances, ... group_variables, covariates, content, overdispersion, tracing,
notes, conclusions``). Where that layout holds a sentence (``model``, ``approximation``,
``inference``, ``random_effects_note``, a covariate's ``per``, ``content.reason``,
``overdispersion.reading``, a tracing level's ``sentence``, ``notes``, ``conclusions``),
``to_json(words)`` writes the note in words (``words``: a function of a Notice, e.g.
:func:`fairdesk.presentation.notices.notice_text`), which gives exactly the dict of the
versions that stored sentences; ``to_json()`` writes the coded note itself
(``{"code", "args"}``). :meth:`MixedPoissonResult.from_json` reads both; from a payload
with sentences it derives every coded note again from the stored numbers (a stored
conclusion, reading, reason or tracing sentence is not read), except the data notes, the
integral approximation and the inference (kept as ``stored.sentence`` where the stored
text does not give their numbers).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fairdesk.core.jsonio import ResultJson

from ...core.jsonio import json_number, jsonable
from ..notices import Notice
from .poisson_mixed_parts import (
    MAX_FIXED_CONTENTS,
    MIN_SHARED_CONTENT,
    OVERDISPERSION_RATIO,
    Content,
    CovariateEffect,
    GroupVariable,
    LevelRow,
    Overdispersion,
    RateEffect,
    TraceLevel,
    TraceStep,
    Words,
    _f,
    _note,
    _stored_note,
)

__all__ = [
    "MAX_FIXED_CONTENTS",
    "MIN_SHARED_CONTENT",
    "OVERDISPERSION_RATIO",
    "Content",
    "CovariateEffect",
    "GroupVariable",
    "LevelRow",
    "MixedPoissonResult",
    "Overdispersion",
    "RateEffect",
    "TraceLevel",
    "TraceStep",
]


def _empty_counts() -> Mapping[str, int]:
    return {}


@dataclass(frozen=True)
class MixedPoissonResult:
    """The mixed-effects Poisson regression of word errors (see the module docstring).

    Attributes
    ----------
    terms : the fixed terms besides the intercept (group variables, ``content`` when it is
        a fixed effect, covariates).
    approximation : the integral's approximation, coded (``poisson.approximation``: kind
        ``aghq``, ``laplace`` or ``glm`` and ``n_quad``).
    inference : how the intervals and p-values are made (``poisson.inference``: the
        between-speaker standard-error factor ``se_factor``).
    alpha : level of the tests (intervals are 95%).
    n_utterances, n_speakers, n_words, n_errors : the data modelled.
    group_variables : each group variable's test and levels.
    covariates : each covariate's effect.
    speaker_sd, speaker_variance, speaker_sd_se, speaker_sd_at_boundary : the speaker
        random intercept; ``speaker_sd_lr_*``: its boundary LR test against 0.
    content : how content ids are handled.
    overdispersion : the Pearson check.
    tracing : the tracing steps (covariates added one at a time, then all).
    converged, loglik : the optimiser's outcome.
    dropped : utterances left out, by reason (a column name or a rule).
    notes : data notes, coded.
    """

    terms: tuple[str, ...]
    approximation: Notice
    inference: Notice
    alpha: float
    n_utterances: int
    n_speakers: int
    n_words: int
    n_errors: int
    group_variables: tuple[GroupVariable, ...]
    covariates: tuple[CovariateEffect, ...]
    speaker_sd: float
    speaker_variance: float
    speaker_sd_se: float
    speaker_sd_at_boundary: bool
    speaker_sd_lr_stat: float
    speaker_sd_lr_p_value: float
    speaker_sd_lr_p_log10: float
    content: Content
    overdispersion: Overdispersion
    tracing: tuple[TraceStep, ...] = ()
    converged: bool = True
    loglik: float = math.nan
    dropped: Mapping[str, int] = field(default_factory=_empty_counts)
    notes: tuple[Notice, ...] = ()

    family = "poisson-mixed"

    @property
    def model(self) -> Notice:
        """The model formula, coded (``poisson.model`` with its ``terms``)."""
        return Notice("poisson.model", {"terms": list(self.terms)})

    @property
    def adjusted_for(self) -> list[str]:
        """What the group effects are adjusted for (covariates, content when it is a fixed
        effect), sorted."""
        out = {c.covariate for c in self.covariates}
        if self.content.handling == "fixed_effect":
            out.add("content")
        return sorted(out)

    def references(self) -> dict[str, str]:
        """Group variable → its reference level."""
        return {g.variable: g.reference for g in self.group_variables}

    def trace_notes(self) -> list[Notice]:
        """The tracing in coded notes: per step, each level's shrinkage, then the
        confounding note when the step confounds."""
        refs = self.references()
        out: list[Notice] = []
        for step in self.tracing:
            out += [t.shrink(refs.get(t.variable, ""), step.added) for t in step.levels]
            conf = step.confounding(self.alpha)
            if conf is not None:
                out.append(conf)
        return out

    def conclusions(self) -> list[Notice]:
        """The conclusions, coded, in the order they are read: each level against its
        reference, the speaker variation, the overdispersion, the content handling, the
        tracing, convergence, then the data notes."""
        adjusted = self.adjusted_for
        out: list[Notice] = []
        for g in self.group_variables:
            for r in g.levels:
                e = r.effect
                if e is None:
                    continue
                args = {
                    "level": r.level,
                    "reference": g.reference,
                    "rate_ratio": e.rate_ratio,
                    "ci_low": e.ci_low,
                    "ci_high": e.ci_high,
                    "p_adjusted": r.p_adjusted,
                    "p_adjusted_log10": r.p_adjusted_log10,
                    "adjusted": adjusted,
                }
                if not math.isfinite(e.p_value):
                    out.append(Notice("poisson.level_no_test", args))
                elif math.isfinite(r.p_adjusted) and r.p_adjusted < self.alpha:
                    out.append(Notice("poisson.level_differs", args))
                else:
                    out.append(Notice("poisson.level_no_evidence", args))
        if self.speaker_sd_at_boundary:
            out.append(Notice("poisson.speaker_sd_zero"))
        else:
            out.append(
                Notice(
                    "poisson.speaker_sd",
                    {
                        "sd": self.speaker_sd,
                        "p_value": self.speaker_sd_lr_p_value,
                        "p_log10": self.speaker_sd_lr_p_log10,
                    },
                )
            )
        out.append(self.overdispersion.reading)
        if self.content.handling != "absent":
            out.append(Notice("poisson.content", {"reason": self.content.reason.to_json()}))
        out += self.trace_notes()
        if not self.converged:
            out.append(Notice("poisson.not_converged"))
        return out + list(self.notes)

    def to_json(self, words: Words | None = None) -> ResultJson:
        """The JSON layout (see the module docstring): notes coded, or in ``words``."""
        refs = self.references()
        out: dict[str, Any] = {
            "family": self.family,
            "model": _note(self.model, words),
            "approximation": _note(self.approximation, words),
            "inference": _note(self.inference, words),
            "alpha": json_number(self.alpha),
            "n_utterances": self.n_utterances,
            "n_speakers": self.n_speakers,
            "n_words": self.n_words,
            "n_errors": self.n_errors,
            "group_variables": [g.to_json() for g in self.group_variables],
            "covariates": [c.to_json(words) for c in self.covariates],
            "speaker_sd": json_number(self.speaker_sd),
            "speaker_variance": json_number(self.speaker_variance),
            "speaker_sd_se": json_number(self.speaker_sd_se),
            "speaker_sd_at_boundary": self.speaker_sd_at_boundary,
            "speaker_sd_lr_stat": json_number(self.speaker_sd_lr_stat),
            "speaker_sd_lr_p_value": json_number(self.speaker_sd_lr_p_value),
            "speaker_sd_lr_p_log10": json_number(self.speaker_sd_lr_p_log10),
            "content": self.content.to_json(words),
            "random_effects_note": _note(Notice("poisson.crossed_note"), words),
            "overdispersion": self.overdispersion.to_json(words),
            "tracing": [s.to_json(refs, words) for s in self.tracing],
            "converged": self.converged,
            "loglik": json_number(self.loglik),
            "dropped": dict(self.dropped),
            "notes": [_note(n, words) for n in self.notes],
            "conclusions": [_note(n, words) for n in self.conclusions()],
        }
        return ResultJson(jsonable(out))

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> MixedPoissonResult:
        """The result of a payload written by :meth:`to_json` (coded or in words), or stored
        by a version before the typed result (the same layout, in words)."""
        groups = tuple(GroupVariable.from_json(g) for g in d.get("group_variables") or ())
        covs = tuple(CovariateEffect.from_json(c) for c in d.get("covariates") or ())
        content = Content.from_json(d.get("content") or {}, groups[0].variable if groups else "")
        terms = [g.variable for g in groups]
        if content.handling == "fixed_effect":
            terms.append("content")
        terms += list(dict.fromkeys(c.covariate for c in covs))
        return cls(
            terms=tuple(terms),
            approximation=_approximation(d.get("approximation")),
            inference=_inference(d.get("inference")),
            alpha=float(d.get("alpha", 0.05)),
            n_utterances=int(d.get("n_utterances") or 0),
            n_speakers=int(d.get("n_speakers") or 0),
            n_words=int(d.get("n_words") or 0),
            n_errors=int(d.get("n_errors") or 0),
            group_variables=groups,
            covariates=covs,
            speaker_sd=_f(d.get("speaker_sd")),
            speaker_variance=_f(d.get("speaker_variance")),
            speaker_sd_se=_f(d.get("speaker_sd_se")),
            speaker_sd_at_boundary=bool(d.get("speaker_sd_at_boundary")),
            speaker_sd_lr_stat=_f(d.get("speaker_sd_lr_stat")),
            speaker_sd_lr_p_value=_f(d.get("speaker_sd_lr_p_value")),
            speaker_sd_lr_p_log10=_f(d.get("speaker_sd_lr_p_log10")),
            content=content,
            overdispersion=Overdispersion.from_json(d.get("overdispersion") or {}),
            tracing=tuple(TraceStep.from_json(s) for s in d.get("tracing") or ()),
            converged=bool(d.get("converged", True)),
            loglik=_f(d.get("loglik")),
            dropped={str(k): int(v) for k, v in (d.get("dropped") or {}).items()},
            notes=tuple(_stored_note(n) for n in d.get("notes") or ()),
        )


#: How the versions that stored words named the approximations (the start of the text).
_APPROXIMATIONS = (
    ("maximum likelihood, adaptive Gauss-Hermite quadrature", "aghq"),
    ("maximum likelihood, Laplace approximation", "laplace"),
    ("maximum likelihood, none (no random effect", "glm"),
)


def _approximation(x: Any) -> Notice:
    if not isinstance(x, str):
        return (
            _stored_note(x)
            if x is not None
            else Notice("poisson.approximation", {"kind": "aghq", "n_quad": 15})
        )
    m = re.search(r"nAGQ = (\d+)\)$", x)
    kind = next((k for start, k in _APPROXIMATIONS if x.startswith(start)), None)
    if m is None or kind is None:
        return _stored_note(x)
    return Notice("poisson.approximation", {"kind": kind, "n_quad": int(m.group(1))})


def _inference(x: Any) -> Notice:
    if not isinstance(x, str):
        return _stored_note(x) if x is not None else Notice("stored.sentence", {"text": ""})
    m = re.search(r"= × ([0-9]+\.[0-9]{3}), ", x)
    if m is None:
        return _stored_note(x)
    return Notice("poisson.inference", {"se_factor": float(m.group(1))})
