"""The typed model-based block of an audit (``AuditRun.model_based``: grouping column →
:class:`ModelBasedFit`), with its own JSON codec.

The stored layout (``payload["model_based"][column]``) is the one
:func:`fairdesk.jobs.model_based.model_based_block` has written since the typed mixed
Poisson result: ``agreement`` (one row per level, its ``note`` coded), for an audit by
several columns ``agreement_note`` (coded), the block's ``notes`` (the fit's data notes,
then the audit's caveat ``poisson.groups_excluded``), then the fit's keys as
:meth:`MixedPoissonResult.to_json` writes them, flattened into the block, less its
``conclusions`` (derived from the numbers when shown). A column the model could not be
fitted for is ``{"error": reason}``.

Older layouts read too: the fit in words with its ``conclusions``, its ``notes`` and
``agreement_note`` as sentences and each agreement row with its ``sentence`` (the first
``--model-based`` release), and the notes coded but ``agreement_note`` a sentence (the
release between). A stored sentence reads as ``Notice("stored.sentence", {"text": ...})``
(worded as it was stored) and is written back as the sentence; a fit stored in words is
written back in the words it was stored with; stored ``conclusions`` are kept as such
notes and written back (a view derives the conclusions from
the fit where there is one, and shows the stored ones only for a block without numbers).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from ..core.jsonio import ResultJson
from ..stats.notices import STORED_SENTENCE, Notice, note_json, stored_notice

if TYPE_CHECKING:  # imported when a fit is read: the regression package loads scipy
    from ..stats.regression.poisson_mixed_result import MixedPoissonResult

__all__ = ["STORED_SENTENCE", "Agreement", "ModelBasedFit"]

#: The code of a sentence a run stored before its note was coded.

#: The block's own keys (the typed fields), beside the fit's.
_BLOCK_KEYS = ("error", "conclusions", "agreement", "agreement_note", "notes")

#: How a run stored before the notes were coded said the audit's caveat.
_EXCLUDED = "groups excluded by the audit's minimums were left out: "


_read_note = stored_notice  # a stored note: coded, else a sentence as stored
_write_note = note_json  # a note as stored: a stored sentence as the sentence, else coded


def _is_audit_caveat(n: Notice) -> bool:
    """Whether a block note is the audit's caveat (added after the fit: not the fit's)."""
    if n.code == STORED_SENTENCE:
        return str(n.args.get("text", "")).startswith(_EXCLUDED)
    return n.code == "poisson.groups_excluded"


@dataclass(frozen=True)
class Agreement:
    """The model beside the bootstrap for one level
    (``stats.regression.agreement_with_bootstrap``): whether they ``agree``, whether each
    finds a significant gap, and the coded ``note`` that says so with its numbers (worded by
    :mod:`fairdesk.presentation.regression_poisson_words`; a run stored before the note was
    coded kept its sentence: ``stored.sentence``)."""

    JSON_CODEC: ClassVar[bool] = True

    level: str | None = None
    agree: bool = False
    model_significant: bool = False
    bootstrap_significant: bool = False
    note: Notice | None = None

    def to_json(self) -> ResultJson:
        """``level, agree, model_significant, bootstrap_significant`` and the ``note``
        coded (a stored sentence as ``sentence``, as it was stored)."""
        out: dict[str, Any] = {
            "level": self.level,
            "agree": self.agree,
            "model_significant": self.model_significant,
            "bootstrap_significant": self.bootstrap_significant,
        }
        if self.note is not None:
            if self.note.code == STORED_SENTENCE:
                out["sentence"] = _write_note(self.note)
            else:
                out["note"] = self.note.to_json()
        return ResultJson(out)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Agreement:
        """A row as stored (its ``note`` coded, or its ``sentence`` from before)."""
        note = d.get("note")
        if note is None and d.get("sentence") is not None:
            note = str(d["sentence"])
        return cls(
            level=None if d.get("level") is None else str(d["level"]),
            agree=bool(d.get("agree", False)),
            model_significant=bool(d.get("model_significant", False)),
            bootstrap_significant=bool(d.get("bootstrap_significant", False)),
            note=None if note is None else _read_note(note),
        )


def _notes(x: Any) -> tuple[Notice, ...] | None:
    return None if x is None else tuple(_read_note(n) for n in x)


@dataclass(frozen=True)
class ModelBasedFit:
    """The mixed-effects Poisson model of one grouping column (``jobs.model_based``; the
    stored layout: see the module docstring).

    Attributes
    ----------
    error : why the model was not fitted, the exception's message (the other fields are
        then None).
    fit : the fitted model (numbers and coded notes); None where it was not fitted, or in
        a block stored without numbers.
    agreement : each level beside the bootstrap (:class:`Agreement`).
    agreement_note : why nothing is set beside the bootstrap (two grouping columns), coded.
    notes : the fit's data notes, then the audit's caveat (``poisson.groups_excluded``),
        coded.
    conclusions : the conclusions a run stored before they were derived from the numbers
        (``stored.sentence`` notes; None since). A view shows them only where ``fit`` is
        None; otherwise it derives them from the fit.
    stored_words : the fit's keys as a block stored in words has them (a run stored before
        the typed result, or a ``--json`` output read back), written back as stored by
        :meth:`to_json`; None for a coded block. No view reads it (``fit`` is the fit).
    """

    JSON_CODEC: ClassVar[bool] = True

    error: str | None = None
    fit: MixedPoissonResult | None = None
    agreement: tuple[Agreement, ...] | None = None
    agreement_note: Notice | None = None
    notes: tuple[Notice, ...] | None = None
    conclusions: tuple[Notice, ...] | None = None
    stored_words: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> ResultJson:
        """The block as stored (see the module docstring): ``error``, ``conclusions``,
        ``agreement``, ``agreement_note`` and ``notes`` where present, in that order, then
        the fit's keys (less its notes and conclusions)."""
        out: dict[str, Any] = {}
        if self.error is not None:
            out["error"] = self.error
        if self.conclusions is not None:
            out["conclusions"] = [_write_note(n) for n in self.conclusions]
        if self.agreement is not None:
            out["agreement"] = [a.to_json() for a in self.agreement]
        if self.agreement_note is not None:
            out["agreement_note"] = _write_note(self.agreement_note)
        if self.notes is not None:
            out["notes"] = [_write_note(n) for n in self.notes]
        if self.stored_words is not None:  # as stored, in words
            out.update(self.stored_words)
        elif self.fit is not None:
            fit = self.fit.to_json()
            del fit["conclusions"]  # derived from the numbers when shown
            if self.notes is not None:
                del fit["notes"]  # the block's notes hold them, with the audit's caveat
            out.update(fit)
        return ResultJson(out)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ModelBasedFit:
        """A block as stored today or by an older release (see the module docstring)."""
        notes = _notes(d.get("notes"))
        fit = None
        if "group_variables" in d:
            from ..stats.regression.poisson_mixed_result import MixedPoissonResult

            own = [n for n in d.get("notes") or () if not _is_audit_caveat(_read_note(n))]
            fit = MixedPoissonResult.from_json({**d, "notes": own})
        words = None
        if fit is not None and isinstance(d.get("model"), str):  # stored in words
            words = {k: copy.deepcopy(v) for k, v in d.items() if k not in _BLOCK_KEYS}
        agreement = d.get("agreement")
        note = d.get("agreement_note")
        return cls(
            error=None if d.get("error") is None else str(d["error"]),
            fit=fit,
            agreement=None
            if agreement is None
            else tuple(Agreement.from_json(a) for a in agreement),
            agreement_note=None if note is None else _read_note(note),
            notes=notes,
            conclusions=_notes(d.get("conclusions")),
            stored_words=words,
        )
