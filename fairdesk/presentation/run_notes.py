"""The notes and warnings of an audit run in words (area ``run``; codes in
:mod:`fairdesk.jobs.run_notes`).

Every view (console, GUI log and run header, HTML/PDF report, ``--json``, the Python API)
words ``AuditRun.notes`` and ``AuditRun.warnings`` through
:func:`fairdesk.presentation.notices.notice_text`, which finds these words by the code's
area.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..core.plurals import count

__all__ = ["TEXTS", "no_speaker_ids", "words_json"]

#: The keys of a run's JSON that hold its coded notes (a list each).
NOTE_KEYS = ("notes", "warnings")
#: (key of a run's JSON, the key of that block holding one coded note).
NOTE_FIELDS = (
    ("no_diacritic_items", "reading"),
    ("accentedness_regression", "reason"),
    ("normaliser", "reason"),
    ("normaliser_sensitivity", "note"),
)


def _was(n: int) -> str:
    return "was" if n == 1 else "were"


def _has(n: int) -> str:
    return "has" if n == 1 else "have"


def _all_failed(n: int) -> str:
    return f"every item failed ({n}); no statistics were computed"


def _nlu_intents_unknown() -> str:
    return (
        "EM not computed: the dataset's intents are not those of the embedded "
        "music NLU; pass --nlu hf:<folder> or --nlu table:<file>"
    )


def _nlu_used(nlu: str) -> str:
    return f"intents and slots from the NLU {nlu}"


def _input_problems(n: int) -> str:
    return (
        f"{n} item(s) without a reference to score (empty, or "
        "empty after the normaliser) were left out (see input_problems)"
    )


def _acoustics_unavailable(text: str) -> str:
    return text


def _acoustics_failures(n: int) -> str:
    return f"{count(n, 'item')} {_has(n)} no acoustic covariates (see acoustics.failures)"


def _explain_failures(n: int) -> str:
    return f"{count(n, 'sampled item')} {_was(n)} not grounded (see explain.failures)"


def _prediction_problems(n: int) -> str:
    return (
        f"{count(n, 'row')} of the predictions file {_was(n)} refused or flagged "
        "(see prediction_problems)"
    )


def _device_fallback(library: str, why: str) -> str:
    return (
        f"--device auto: a CUDA GPU is there but {library} cannot use it ({why}); "
        "ran on the CPU instead (slower); fix the GPU driver, or pass --device cpu to say so"
    )


def _datasets_together(datasets: Sequence[Sequence]) -> str:
    return "audited together: " + ", ".join(
        f"{name} ({count(int(n), 'item')})" for name, n in datasets
    )


def _shared_speakers(ids: Sequence[str]) -> str:
    ids = list(ids)
    said = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
    return (
        f"{count(len(ids), 'speaker id')} ({said}) {'is' if len(ids) == 1 else 'are'} "
        "found in more than one dataset and each counted as one speaker; rename the "
        "speakers of one dataset if they are different people"
    )


def _references_disagree(n: int, choice: str) -> str:
    from ..jobs.reference_text import annotator_of

    used = (
        "the newest version of each"
        if choice == "latest"
        else "the imported text"
        if choice == "imported"
        else f"{annotator_of(choice)}'s"
    )
    return (
        f"{count(n, 'item')} {_has(n)} versions by several annotators that disagree, without "
        f"adjudication; this audit used {used} (see `fairdesk agreement`; adjudicate them, or "
        "audit with --reference-text adjudicated or resample)"
    )


def _references_left_out(n: int, choice: str) -> str:
    return f"{count(n, 'item')} left out by --reference-text {choice} (see input_problems)"


def _references_resampled(n: int) -> str:
    return (
        f"{count(n, 'item')} with disagreeing versions: each bootstrap replicate "
        "draws one version per item, so the intervals include the annotators' disagreement"
    )


def _empty_hypotheses(n: int, column: str) -> str:
    return (
        f"{n} item(s) have an empty {column} (the model produced no words): "
        "each counts as all deletions"
    )


def _diacritics_off() -> str:
    return (
        "the text is English (normaliser whisper-english), so the diacritic metrics (DER, "
        "RDD, net loss, TER) are not computed; ask for one with --metric der (or ter, rdd, "
        "diacritic_net_loss)"
    )


def _same_number(dropped: Sequence[str], kept: str) -> str:
    return f"{', '.join(dropped)} equals {kept} (mean per-class recall): tested once, as {kept}"


def _phone_confusion_failed(error: str) -> str:
    return f"phone confusion not computed: {error}"


def _plan_closed_form(error: str) -> str:
    return (
        f"the recording plan could not resample the pilot's speakers ({error}); the plan "
        "shown is the closed-form estimate: run fairdesk plan for the resampling plan"
    )


def _no_diacritic_items() -> str:
    return (
        "DER is undefined where the reference carries no diacritic; these "
        "items report the diacritics the model added there (every one was "
        "added), in all and per 100 reference letters"
    )


def _accentedness_collinear() -> str:
    return (
        "accentedness is a function of the group here (e.g. constant within "
        "each group), so their effects cannot be separated; annotate more "
        "items whose accentedness varies within groups"
    )


def _normaliser_set(name: str) -> str:
    return f"set by the user: {name}"


def _normaliser_language(language: str, english: bool) -> str:
    if english:
        return f"language {language!r} is English"
    return f"language {language!r} is not English: basic normaliser, marks kept"


def _normaliser_no_letters() -> str:
    return "language auto: the references have no letters"


def _normaliser_ascii_share(share: float, letters: int, threshold: float, english: bool) -> str:
    if english:
        return (
            f"language auto: {share:.1%} of the {letters:,} reference letters are plain ASCII "
            f"(≥ {threshold:.0%}), so Whisper's English normaliser"
        )
    return (
        f"language auto: only {share:.1%} of the {letters:,} reference letters are plain ASCII "
        f"(< {threshold:.0%}), so Whisper's basic normaliser with diacritics and tone "
        "marks kept"
    )


def no_speaker_ids(table: bool = True) -> str:
    """The warning of a run without speaker ids (``table``: it audited a ``--table``;
    else a project dataset, whose speaker ids come from its import)."""
    fix = (
        "name the speaker column with --speaker-col (speaker_col= in Python)"
        if table
        else "import the dataset again naming its speaker column with --speaker-col"
    )
    return (
        "no speaker ids: each utterance counts as independent, so if speakers recorded "
        f"several utterances the intervals are too narrow; {fix}"
    )


#: code → words (see fairdesk.presentation.notices).
TEXTS: dict[str, Callable[..., str]] = {
    "run.all_failed": _all_failed,
    "run.nlu_intents_unknown": _nlu_intents_unknown,
    "run.nlu_used": _nlu_used,
    "run.input_problems": _input_problems,
    "run.acoustics_unavailable": _acoustics_unavailable,
    "run.acoustics_failures": _acoustics_failures,
    "run.explain_failures": _explain_failures,
    "run.prediction_problems": _prediction_problems,
    "run.device_fallback": _device_fallback,
    "run.datasets_together": _datasets_together,
    "run.shared_speakers": _shared_speakers,
    "run.references_disagree": _references_disagree,
    "run.references_left_out": _references_left_out,
    "run.references_resampled": _references_resampled,
    "run.empty_hypotheses": _empty_hypotheses,
    "run.diacritics_off": _diacritics_off,
    "run.same_number": _same_number,
    "run.phone_confusion_failed": _phone_confusion_failed,
    "run.plan_closed_form": _plan_closed_form,
    "run.no_speaker_ids": no_speaker_ids,
    "run.no_diacritic_items": _no_diacritic_items,
    "run.accentedness_collinear": _accentedness_collinear,
    "run.normaliser_set": _normaliser_set,
    "run.normaliser_language": _normaliser_language,
    "run.normaliser_no_letters": _normaliser_no_letters,
    "run.normaliser_ascii_share": _normaliser_ascii_share,
}


def words_json(payload: Mapping[str, Any], run: Any) -> dict[str, Any]:
    """A run's JSON (``AuditRun.to_json``) with its coded notes written as today's
    sentences, under the keys that held them (what ``--json`` prints)."""
    from .notices import notice_text, notice_texts

    out = dict(payload)
    for key in NOTE_KEYS:
        notes = getattr(run, key, None)
        if key in out and notes is not None:
            out[key] = notice_texts(notes)
    for key, attr in NOTE_FIELDS:  # a block's one note
        block, note = out.get(key), getattr(getattr(run, key, None), attr, None)
        if isinstance(block, Mapping) and attr in block and note is not None:
            out[key] = {**block, attr: notice_text(note)}
    settings, reason = out.get("settings"), getattr(run, "normaliser_reason", None)
    if isinstance(settings, Mapping) and "normaliser_reason" in settings and reason is not None:
        out["settings"] = {**settings, "normaliser_reason": notice_text(reason)}
    return out
