"""The Results tab's header: a run's one-paragraph summary as rich text (its name, the
filters and non-default settings that stand out, the design, the speaker column, failures,
exclusions, the run's typed warnings and notes)."""

from __future__ import annotations

from dataclasses import replace

from ...jobs.result import AuditRun
from ...presentation import (
    SEPARATOR,
    RunSpec,
    corpus_note,
    count,
    fmt_number,
    run_conditions,
    run_name,
)
from ...presentation.warnings import coded_warnings, run_notes, speakers_line
from ...stats.settings import AuditSettings
from ..widgets.theme import esc

__all__ = ["CONDITION_COLOUR", "run_header"]

#: The colour of a run's filters and non-default settings in the header.
CONDITION_COLOUR = "#8a4b00"


def run_header(r: AuditRun) -> str:
    """The run's one-paragraph summary as rich text; every value from the data is
    escaped (a group named ``<img src=…>`` shows as that text)."""
    spec = RunSpec.from_run(r)
    # the run's name (fairdesk show and runs print the same); its filters and
    # non-default settings stand out, so a filtered run never reads as the whole corpus
    conditions = run_conditions(spec)
    bits = [esc(run_name(replace(spec, filters=(), sample=None, settings=None)))]
    bits += [f"<b style='color:{CONDITION_COLOUR}'>{esc(c)}</b>" for c in conditions]
    bits.append(f"design {esc(r.design if r.result is not None else '?')}")
    spk = speakers_line(r.speakers)  # the speaker column used, always named
    if spk:
        bits.append(esc(spk))
    if r.settings is None or r.settings.n_bootstrap == AuditSettings().n_bootstrap:
        bits.append(  # a non-default B is one of the conditions
            f"{esc(r.settings.n_bootstrap if r.settings is not None else '?')} resamples"
        )
    if r.failures:
        bits.append(f"<span style='color:#c62828'>{count(len(r.failures), 'failed item')}</span>")
    if r.excluded:
        bits.append(
            f"<span style='color:#ef6c00'>{count(len(r.excluded), 'group')} excluded</span>"
        )
    notes = [*coded_warnings(r), *run_notes(r)]  # no speaker ids ...
    n_missing = sum(g.n_items or 0 for g in r.groups if g.missing)
    if n_missing:
        notes.append(corpus_note(n_missing))
    rep = r.representation
    if rep is not None and rep.leakage is not None:
        leak = rep.leakage  # stats.representation.Leakage
        cases = ", ".join(f"{m}: {c.replace('_', ' ')}" for m, c in (rep.cases or {}).items())

        def num(v):
            return fmt_number(v, 3)

        notes.append(
            f"representation: silhouette {num(rep.silhouette)}, leakage "
            f"{num(leak.leakage)} (probe balanced accuracy "
            f"{num(leak.balanced_accuracy)} vs chance {num(leak.chance)}, "
            f"folds by {_or_unknown(leak.split)}); structure "
            f"{'yes' if rep.structure else 'no'}" + (f" — {cases}" if cases else "")
        )
    elif rep is not None and rep.error:
        notes.append(f"representation: {rep.error}")
    ex = r.explain
    if ex is not None:
        done = sum(ex.items_explained.values())
        notes.append(
            f"explain: {_or_unknown(ex.method)} saliency on {done} of "
            f"{count(ex.n_sampled, 'sampled item')} "
            f"({_or_unknown(ex.per_group)} per group); grounding lift compared on "
            "the explained items alone"
        )
    text = SEPARATOR.join(bits)
    if notes:
        text += "<br><span style='color:#5f6b7a'>" + esc("; ".join(notes)) + "</span>"
    return text


def _or_unknown(v) -> str:
    """``v`` as text, ``?`` when the run did not record it."""
    return "?" if v is None else str(v)
