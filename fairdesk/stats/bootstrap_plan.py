"""The number of bootstrap resamples a run used and why, as a typed result
(:func:`fairdesk.stats.formulas.planned_bootstrap`;
docs/METHODS.md, "Multiple comparisons (Holm)").

:class:`BootstrapPlan` is the ``bootstrap`` block of an audit
(``AuditResult.bootstrap``) and of a comparison of systems
(``SystemComparisonResult.bootstrap``). Its ``rule`` is the coded note
:data:`BOOTSTRAP_RULE`, worded by :mod:`fairdesk.presentation.bootstrap_words`; a result
stored before the rule was coded kept the sentence, which it keeps (``stored.sentence``:
written back and shown as stored).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..core.jsonio import ResultJson
from .notices import STORED_SENTENCE, Notice, notice, stored_notice

__all__ = ["BOOTSTRAP_RULE", "BootstrapPlan", "bootstrap_rule"]

#: B ≥ ⌈5·m/α⌉, at most MAX_BOOTSTRAP (the rule :func:`planned_bootstrap` applies).
BOOTSTRAP_RULE = "bootstrap.rule"
#: The keys before the rule, in their stored order (each written where present).
_HEAD = ("requested", "used", "comparisons", "required", "raised", "capped")


def bootstrap_rule() -> Notice:
    """The coded rule of :func:`~fairdesk.stats.formulas.planned_bootstrap`."""
    return notice(BOOTSTRAP_RULE)


def _read_rule(x: Any) -> Notice:
    """The stored rule: coded, else the sentence of an older result, kept as stored (its
    JSON writes it back word for word)."""
    return stored_notice(x)


def _int(x: Any) -> int | None:
    return None if x is None else int(x)


def _bool(x: Any) -> bool | None:
    return None if x is None else bool(x)


@dataclass(frozen=True)
class BootstrapPlan:
    """The B a run used and why.

    Attributes
    ----------
    Every field is None where the stored block lacks it.

    requested : the B asked for (``AuditSettings.n_bootstrap``).
    used : the B used (at least ``required``, at most MAX_BOOTSTRAP, never below
        ``requested``).
    comparisons : the tests of the Holm family the B was planned for (m).
    required : ⌈5·m/α⌉.
    raised : whether ``used`` is above ``requested``.
    capped : whether ``required`` is above MAX_BOOTSTRAP.
    rule : the rule applied, coded (:data:`BOOTSTRAP_RULE`).
    group_ci_replicates : the resamples of a group's own interval (an audit's:
        ``min(used, requested)``); None elsewhere.
    family : the tests of a comparison of systems' Holm family; None elsewhere.
    """

    JSON_CODEC: ClassVar[bool] = True

    requested: int | None = None
    used: int | None = None
    comparisons: int | None = None
    required: int | None = None
    raised: bool | None = None
    capped: bool | None = None
    rule: Notice | None = None
    group_ci_replicates: int | None = None
    family: int | None = None

    def to_json(self) -> ResultJson:
        """``requested, used, comparisons, required, raised, capped, rule`` (coded; an
        older result's sentence as stored), then ``group_ci_replicates`` and ``family``,
        each where present (an older result may lack some)."""
        out: dict[str, Any] = {}
        for k in _HEAD:
            if getattr(self, k) is not None:
                out[k] = getattr(self, k)
        if self.rule is not None:
            stored = self.rule.code == STORED_SENTENCE
            out["rule"] = str(self.rule.args.get("text", "")) if stored else self.rule.to_json()
        for k in ("group_ci_replicates", "family"):
            if getattr(self, k) is not None:
                out[k] = getattr(self, k)
        return ResultJson(out)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> BootstrapPlan:
        """A block as stored (its rule coded, or the sentence of an older result)."""
        rule = d.get("rule")
        return cls(
            requested=_int(d.get("requested")),
            used=_int(d.get("used")),
            comparisons=_int(d.get("comparisons")),
            required=_int(d.get("required")),
            raised=_bool(d.get("raised")),
            capped=_bool(d.get("capped")),
            rule=None if rule is None else _read_rule(rule),
            group_ci_replicates=_int(d.get("group_ci_replicates")),
            family=_int(d.get("family")),
        )
