"""The verdict colours, shared by the GUI (``gui/theme.py``) and the reports, so a chart
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
