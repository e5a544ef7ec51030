"""The report's words and colours as the GUI's: the text source in words, counts with their
plural, insertions one colour (not the tone-mark error's violet), CI bounds with their sign."""

from __future__ import annotations

import re

from fairdesk.reports.data import load_run
from fairdesk.reports.html import render, report_context
from fairdesk.reports.palette import OPS, WORD_OPS, ops_css


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text))


def test_text_source_in_words_and_counts_with_their_plural(speech_runs):
    d = load_run(speech_runs.project, speech_runs.run)
    text = render(report_context(d))
    plain = _plain(text)
    assert "{'annotation'" not in text and "'import'" not in text
    # 50 items imported, none annotated: the zero count is left out
    assert "Text source 50 items with the imported reference" in plain
    assert "annotated in fairdesk" not in plain
    assert "This run analysed 50 items (0 predictions from the cache" in plain
    assert "; 0 items failed." in plain and "0 items flagged as hallucinated" in plain
    assert not re.search(r"\b1 (items|words|speakers)\b", plain)


def test_insertions_have_one_colour_in_the_report_and_the_gui(speech_runs):
    from fairdesk.gui.items import diff_view

    d = load_run(speech_runs.project, speech_runs.run)
    text = render(report_context(d))
    bg, fg, _ = OPS["I"]
    assert f".op-I {{ background: {bg}; color: {fg}; }}" in text
    assert ops_css() in text
    assert diff_view.OPS == WORD_OPS and diff_view.OPS["I"] == OPS["I"]
    # distinct from the tone-mark error and from green ("correct")
    assert OPS["I"][0] != OPS["T"][0] and OPS["I"][1] != OPS["T"][1]
    assert len({v[0] for v in OPS.values()}) == len(OPS)
    assert OPS["I"][0] not in ("#c8e6c9", "#e1d5f5")


def test_a_ci_bound_near_zero_keeps_its_sign(speech_runs):
    # the report writes an odds ratio's or a coefficient's CI through the one helper
    from fairdesk.presentation.numbers import fmt_estimate_ci

    assert fmt_estimate_ci(-0.00037, 0.05) == "[-0.0004, 0.05]"
    assert fmt_estimate_ci(0.0, 0.05) == "[0.00, 0.05]"
    assert "-0.0" not in fmt_estimate_ci(-1e-12, 0.05)


def test_the_report_says_worse_only_where_the_verdict_found_a_gap(speech_runs):
    from fairdesk.presentation import SIGNIFICANT
    from fairdesk.reports.sections import card as _card

    d = load_run(speech_runs.project, speech_runs.run)
    comps = d.audit.comparisons
    assert comps
    for c in comps:
        arrow = _card(c, d.audit)["arrow"]
        if c.verdict in SIGNIFICANT:
            assert arrow in ("▼ worse", "▲ better")
        else:
            assert "worse" not in arrow and "better" not in arrow
    # a not-significant gap of the same run reads "higher"
    from dataclasses import replace

    c = replace(comps[0], verdict="inconclusive_underpowered", direction="worse", gap=0.044)
    assert _card(c, d.audit)["arrow"] == "▲ higher"
