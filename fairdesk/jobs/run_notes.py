"""The coded notes and warnings of an audit run (area ``run``; words in
:mod:`fairdesk.presentation.run_notes`).

``AuditRun.notes`` and ``AuditRun.warnings`` hold :class:`~fairdesk.stats.notices.Notice`
values: a code below and its numbers and names. The stored payload keeps them coded
(``{"code": ..., "args": {...}}``); a payload stored before kept the sentence itself, which
:func:`old_sentence` reads back into its code where the old wording gives the numbers
(:data:`OLD_SENTENCES`), else as ``Notice("stored.sentence", {"text": ...})``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..stats.codec import OLD_SENTENCE_READERS
from ..stats.notices import STORED_SENTENCE as STORED
from ..stats.notices import Notice

if TYPE_CHECKING:
    from ..core.dataset_sets import DatasetSet

#: every item failed: ``n`` failures, no statistics.
ALL_FAILED = "run.all_failed"
#: ``--nlu auto``: the dataset's intents are not those of the embedded music NLU.
NLU_INTENTS_UNKNOWN = "run.nlu_intents_unknown"
#: the hypotheses were parsed by the NLU ``nlu``.
NLU_USED = "run.nlu_used"
#: ``n`` items without a reference to score were left out.
INPUT_PROBLEMS = "run.input_problems"
#: the acoustic covariates could not be measured: ``text`` (the acoustics block's
#: ``unavailable``, a missing-extra message).
ACOUSTICS_UNAVAILABLE = "run.acoustics_unavailable"
#: ``n`` items have no acoustic covariates.
ACOUSTICS_FAILURES = "run.acoustics_failures"
#: ``n`` sampled items were not grounded.
EXPLAIN_FAILURES = "run.explain_failures"
#: ``n`` rows of the predictions file were refused or flagged.
PREDICTION_PROBLEMS = "run.prediction_problems"
#: ``--device auto`` fell back to the CPU: ``library`` saw a GPU but cannot use it (``why``).
DEVICE_FALLBACK = "run.device_fallback"
#: several datasets audited together: ``datasets`` is ``[[name, n_items], ...]``.
DATASETS_TOGETHER = "run.datasets_together"
#: speaker ``ids`` found in more than one dataset.
SHARED_SPEAKERS = "run.shared_speakers"
#: ``n`` items have disagreeing versions without adjudication (``choice``: --reference-text).
REFERENCES_DISAGREE = "run.references_disagree"
#: ``n`` items left out by ``--reference-text choice``.
REFERENCES_LEFT_OUT = "run.references_left_out"
#: ``n`` items with disagreeing versions resampled by the bootstrap.
REFERENCES_RESAMPLED = "run.references_resampled"
#: ``n`` items have an empty hypothesis (``column``).
EMPTY_HYPOTHESES = "run.empty_hypotheses"
#: English text: the diacritic metrics are not computed.
DIACRITICS_OFF = "run.diacritics_off"
#: metrics that are the same number: ``dropped`` are tested once, as ``kept``.
SAME_NUMBER = "run.same_number"
#: the phone confusion could not be computed (``error``: the exception's message).
PHONE_CONFUSION_FAILED = "run.phone_confusion_failed"
#: the recording plan fell back to the closed form (``error``: the exception's message).
PLAN_CLOSED_FORM = "run.plan_closed_form"
#: no speaker ids (``table``: the run audited a table); ``Speakers.warnings`` keeps it as
#: the bare code :data:`fairdesk.jobs.result_parts.NO_SPEAKER_IDS`.
NO_SPEAKER_IDS = "run.no_speaker_ids"

#: what the no-diacritic items block is (``NoDiacriticItems.reading``).
NO_DIACRITIC_ITEMS = "run.no_diacritic_items"
#: accentedness is a function of the group (``AccentednessRegression.reason``; the code
#: is :data:`fairdesk.stats.phone_confusion.ACCENTEDNESS_COLLINEAR`).
ACCENTEDNESS_COLLINEAR = "run.accentedness_collinear"

#: the normaliser the run used (``Normaliser.reason``, ``AuditRun.normaliser_reason``):
#: set by the user (``name``); decided by the ``language`` (``english``); ``auto`` on
#: references without letters; ``auto`` by the ``share`` of plain-ASCII letters among
#: ``letters`` against ``threshold`` (``english``). The codes after "auto" are
#: ``NORMALISER_PREFIX`` + the ``basis`` of ``metrics.normalize.choose_normaliser``.
NORMALISER_SET = "run.normaliser_set"
NORMALISER_PREFIX = "run.normaliser_"
NORMALISER_LANGUAGE = NORMALISER_PREFIX + "language"
NORMALISER_NO_LETTERS = NORMALISER_PREFIX + "no_letters"
NORMALISER_ASCII_SHARE = NORMALISER_PREFIX + "ascii_share"


def _n(m: re.Match) -> dict[str, Any]:
    return {"n": int(m["n"])}


def _ids(m: re.Match) -> dict[str, Any] | None:
    ids = tuple(m["said"].split(", "))
    if len(ids) != int(m["n"]):  # the list was cut ("and 3 more"): not every id is there
        return None
    return {"ids": ids}


def _datasets(m: re.Match) -> dict[str, Any] | None:
    parts = re.findall(r"(.+?) \((\d+) items?\)(?:, |$)", m["list"])
    return {"datasets": tuple((name, int(k)) for name, k in parts)} if parts else None


def _disagree(m: re.Match) -> dict[str, Any]:
    used = m["used"]
    choice = (
        "latest"
        if used == "the newest version of each"
        else "imported"
        if used == "the imported text"
        else "annotator:" + used[: -len("'s")]
    )
    return {"n": int(m["n"]), "choice": choice}


def _language(m: re.Match) -> dict[str, Any] | None:
    import ast

    english = not m["not"]
    if english == bool(m.group(3)):  # "is English: basic ..." is no sentence it wrote
        return None
    return {"language": ast.literal_eval(m["lang"]), "english": english}


def _reference(m: re.Match) -> dict[str, Any] | None:
    import ast

    try:
        ref = ast.literal_eval(m["ref"])
    except (ValueError, SyntaxError):
        return None
    return {"reference": ref, "n": int(m["n"])}


_COUNT = r"(?P<n>\d+) "
#: code → (the old sentence as a pattern, its args from the match; None: not recoverable).
OLD_SENTENCES: tuple[tuple[str, str, Callable[[re.Match], dict[str, Any] | None]], ...] = (
    (ALL_FAILED, r"every item failed \((?P<n>\d+)\); no statistics were computed", _n),
    (
        NLU_INTENTS_UNKNOWN,
        r"EM not computed: the dataset's intents are not those of the embedded music NLU; "
        r"pass --nlu hf:<folder> or --nlu table:<file>",
        lambda m: {},
    ),
    (NLU_USED, r"intents and slots from the NLU (?P<nlu>.+)", lambda m: {"nlu": m["nlu"]}),
    (
        INPUT_PROBLEMS,
        _COUNT + r"item\(s\) without a reference to score \(empty, or empty after the "
        r"normaliser\) were left out \(see input_problems\)",
        _n,
    ),
    (
        ACOUSTICS_FAILURES,
        _COUNT + r"items? (has|have) no acoustic covariates \(see acoustics.failures\)",
        _n,
    ),
    (
        EXPLAIN_FAILURES,
        _COUNT + r"sampled items? (was|were) not grounded \(see explain.failures\)",
        _n,
    ),
    (
        PREDICTION_PROBLEMS,
        _COUNT + r"rows? of the predictions file (was|were) refused or flagged "
        r"\(see prediction_problems\)",
        _n,
    ),
    (
        ACOUSTICS_UNAVAILABLE,
        r"(?P<text>.+; the rest of the audit is complete)",
        lambda m: {"text": m["text"]},
    ),
    (
        DEVICE_FALLBACK,
        r"--device auto: a CUDA GPU is there but (?P<library>.+?) cannot use it \((?P<why>.*)\); "
        r"ran on the CPU instead \(slower\); fix the GPU driver, or pass --device cpu to say so",
        lambda m: {"library": m["library"], "why": m["why"]},
    ),
    (DATASETS_TOGETHER, r"audited together: (?P<list>.+)", _datasets),
    (
        SHARED_SPEAKERS,
        _COUNT + r"speaker ids? \((?P<said>.*)\) (is|are) found in more than one dataset and "
        r"each counted as one speaker; rename the speakers of one dataset if they are "
        r"different people",
        _ids,
    ),
    (
        REFERENCES_DISAGREE,
        _COUNT + r"items? (has|have) versions by several annotators that disagree, without "
        r"adjudication; this audit used (?P<used>.+) \(see `fairdesk agreement`; adjudicate "
        r"them, or audit with --reference-text adjudicated or resample\)",
        _disagree,
    ),
    (
        REFERENCES_LEFT_OUT,
        _COUNT + r"items? left out by --reference-text (?P<choice>\S+) \(see input_problems\)",
        lambda m: {"n": int(m["n"]), "choice": m["choice"]},
    ),
    (
        REFERENCES_RESAMPLED,
        _COUNT + r"items? with disagreeing versions: each bootstrap replicate draws one "
        r"version per item, so the intervals include the annotators' disagreement",
        _n,
    ),
    (
        EMPTY_HYPOTHESES,
        _COUNT + r"item\(s\) have an empty (?P<column>\S+) \(the model produced no words\): "
        r"each counts as all deletions",
        lambda m: {"n": int(m["n"]), "column": m["column"]},
    ),
    (
        DIACRITICS_OFF,
        r"the text is English \(normaliser whisper-english\), so the diacritic metrics \(DER, "
        r"RDD, net loss, TER\) are not computed; ask for one with --metric der \(or ter, rdd, "
        r"diacritic_net_loss\)",
        lambda m: {},
    ),
    (
        SAME_NUMBER,
        r"(?P<dropped>.+) equals (?P<kept>\S+) \(mean per-class recall\): tested once, as "
        r"(?P=kept)",
        lambda m: {"dropped": tuple(m["dropped"].split(", ")), "kept": m["kept"]},
    ),
    (
        PHONE_CONFUSION_FAILED,
        r"phone confusion not computed: (?P<error>.*)",
        lambda m: {"error": m["error"]},
    ),
    (
        PLAN_CLOSED_FORM,
        r"the recording plan could not resample the pilot's speakers \((?P<error>.*)\); the "
        r"plan shown is the closed-form estimate: run fairdesk plan for the resampling plan",
        lambda m: {"error": m["error"]},
    ),
    (NORMALISER_SET, r"set by the user: (?P<name>.+)", lambda m: {"name": m["name"]}),
    (
        NORMALISER_LANGUAGE,
        r"language (?P<lang>'.*') is (?P<not>not )?English(: basic normaliser, marks kept)?",
        lambda m: _language(m),
    ),
    (NORMALISER_NO_LETTERS, r"language auto: the references have no letters", lambda m: {}),
    (
        NORMALISER_ASCII_SHARE,
        r"language auto: (?P<only>only )?(?P<share>[\d.]+)% of the (?P<letters>[\d,]+) "
        r"reference letters are plain ASCII \((?:≥|<) (?P<t>\d+)%\), so Whisper's "
        r"(?:English normaliser|basic normaliser with diacritics and tone marks kept)",
        lambda m: {
            "share": float(m["share"]) / 100,
            "letters": int(m["letters"].replace(",", "")),
            "threshold": int(m["t"]) / 100,
            "english": not m["only"],
        },
    ),
    (
        NO_DIACRITIC_ITEMS,
        r"DER is undefined where the reference carries no diacritic; these items report the "
        r"diacritics the model added there \(every one was added\), in all and per 100 "
        r"reference letters",
        lambda m: {},
    ),
    (
        ACCENTEDNESS_COLLINEAR,
        r"accentedness is a function of the group here \(e.g. constant within each group\), "
        r"so their effects cannot be separated; annotate more items whose accentedness "
        r"varies within groups",
        lambda m: {},
    ),
    (
        NO_SPEAKER_IDS,
        r"no speaker ids: each utterance counts as independent, so if speakers recorded "
        r"several utterances the intervals are too narrow; (?P<fix>.+)",
        lambda m: {"table": m["fix"].startswith("name the speaker column")},
    ),
)
_PATTERNS = tuple((code, re.compile(p, re.S), args) for code, p, args in OLD_SENTENCES)


def read_old_sentence(text: str) -> Notice | None:
    """The coded note of a sentence a run stored before its notes were coded: its code with
    the numbers the old wording gives (None: no code of this module wrote it)."""
    for code, pattern, args in _PATTERNS:
        m = pattern.fullmatch(text)
        if m is not None:
            got = args(m)
            if got is not None:
                return Notice(code, got)
    return None


def old_sentence(text: str) -> Notice:
    """:func:`read_old_sentence`, else ``Notice("stored.sentence", {"text": text})``."""
    note = read_old_sentence(text)
    return note if note is not None else Notice(STORED, {"text": text})


OLD_SENTENCE_READERS.append(read_old_sentence)  # the codec reads a run's old sentences


def set_notes(frame, dset: DatasetSet | None) -> list[Notice]:
    """What a run's notes say of several datasets audited together: their items per
    dataset, and the speaker ids found in more than one of them (none for one dataset)."""
    from ..core.dataset_sets import shared_speakers

    if dset is None or not dset.several:
        return []
    n = frame["dataset"].value_counts()
    out = [
        Notice(DATASETS_TOGETHER, {"datasets": tuple((d, int(n.get(d, 0))) for d in dset.names)})
    ]
    shared = shared_speakers(frame)
    if shared:
        out.append(Notice(SHARED_SPEAKERS, {"ids": tuple(sorted(shared))}))
    return out


__all__ = ["OLD_SENTENCES", "old_sentence", "read_old_sentence", "set_notes"]
