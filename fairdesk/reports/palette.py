"""The verdict colours, shared by the GUI (``gui/widgets/theme.py``) and the reports, so a chart
exported from either encodes verdicts the same way. Plain data: no Qt, no matplotlib."""

#: Verdict → (label, background, foreground). Red: a disparity; orange: significant but
#: confounded by speakers; amber: significant but small; grey: underpowered; green: none.
VERDICTS = {
    "disparity_detected": ("Disparity detected", "#c62828", "#ffffff"),
    "speaker_confounded": ("Speaker-confounded", "#ef6c00", "#ffffff"),
    "significant_but_small": ("Significant but small", "#f9a825", "#1a1a1a"),
    "inconclusive_underpowered": ("Inconclusive (underpowered)", "#90a4ae", "#1a1a1a"),
    "no_disparity_detected": ("No disparity detected", "#2e7d32", "#ffffff"),
    # neutral: nothing was tested (never green: "no disparity" is not what they mean)
    "not_estimable": ("Not estimable", "#cfd8dc", "#1a1a1a"),
    # a diacritic metric on fewer than 10 expected marks: values shown, no test
    "descriptive": ("Descriptive (E < 10)", "#eceff1", "#1a1a1a"),
    "no_variation": ("No variation", "#eceff1", "#1a1a1a"),
    "not_computable": ("Not computable", "#e0e0e0", "#1a1a1a"),
}

#: Verdicts of a comparison of systems (docs/METHODS.md, "Comparing systems") → (background,
#: foreground): green where the system is better or fairer, red where worse or less fair,
#: orange where the gap reversed, amber where significant but small, grey where
#: underpowered, pale blue where no difference was detected, pale grey where nothing was
#: tested.
SYSTEM_VERDICT_COLOURS = {
    "better": ("#2e7d32", "#ffffff"),
    "fairer": ("#2e7d32", "#ffffff"),
    "worse": ("#c62828", "#ffffff"),
    "less_fair": ("#c62828", "#ffffff"),
    "reversed": ("#ef6c00", "#ffffff"),
    "difference_small": ("#f9a825", "#1a1a1a"),
    "inconclusive_underpowered": ("#90a4ae", "#1a1a1a"),
    "no_difference_detected": ("#d6e6f5", "#1a1a1a"),
    "not_estimable": ("#cfd8dc", "#1a1a1a"),
    "descriptive": ("#eceff1", "#1a1a1a"),
    "no_variation": ("#eceff1", "#1a1a1a"),
    "not_computable": ("#e0e0e0", "#1a1a1a"),
}

#: Alignment operations → (background, foreground, label), in the GUI's difference view and
#: the report's item diffs alike. An insertion is blue (an added word, as an extra slot is
#: blue): not green, which reads as "correct", and not violet, which marks a tone-mark error
#: (a substitution that differs only in its tone marks, ``T``).
OPS = {
    "S": ("#ffe0a3", "#6d4c00", "substitution"),
    "D": ("#ffcdd2", "#b71c1c", "deletion"),
    "I": ("#cfe8fc", "#0d47a1", "insertion"),
    "T": ("#e1d5f5", "#4527a0", "tone-mark error"),
}
#: The word-level operations (S, D, I) the difference view counts.
WORD_OPS = {k: OPS[k] for k in ("S", "D", "I")}
#: Colour of the letters with an error inside a substituted word.
LETTER_ERROR = "#c62828"


def ops_css() -> str:
    """The report's ``.op-X`` rules from :data:`OPS` (a deletion is also struck through)."""
    rules = []
    for op, (bg, fg, _) in OPS.items():
        extra = " text-decoration: line-through;" if op == "D" else ""
        rules.append(f".op-{op} {{ background: {bg}; color: {fg};{extra} }}")
    return "\n".join(rules)
