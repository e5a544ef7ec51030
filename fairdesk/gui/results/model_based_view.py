"""The model-based result of an audit (docs/METHODS.md, "Model-based comparison (mixed-effects Poisson)"; ``fairdesk audit --model-based``): the
mixed-effects Poisson regression of word errors with a speaker random intercept, shown in
the Regression tab beside the logistic regressions.

The run carries ``AuditRun.model_based``: grouping column ->
:class:`~fairdesk.jobs.result_parts.ModelBasedFit` (the fit of
:func:`fairdesk.stats.regression.run_poisson_mixed`, decoded by
:func:`fairdesk.presentation.regression_poisson_words.model_based_result`, and the per-level
``agreement`` with the bootstrap). This view only renders it: a table of rate ratios with their 95% CIs, p and Holm-adjusted p, and the
agreement with the bootstrap, the speaker SD, the overdispersion check and the conclusions
in words.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...jobs.result_parts import ModelBasedFit
from ...presentation import count, finite, fmt_estimate_ci, fmt_number, fmt_p, fmt_ratio, fmt_value
from ...presentation.regression_poisson_words import (
    agreement_note_text,
    agreement_text,
    model_based_conclusions,
    model_based_result,
    poisson_approximation_text,
)

HEADS = [
    "Variable",
    "Level (vs reference)",
    "Rate ratio",
    "95% CI",
    "p",
    "p (Holm)",
    "Speakers",
    "WER",
]


def _problem(res: ModelBasedFit) -> str | None:
    """Why a variable's model was not fitted (the audit stores the error instead)."""
    if res.error:
        return str(res.error)
    if model_based_result(res) is None:
        return "no fit stored"
    return None


def _fits(model_based: Mapping[str, ModelBasedFit] | None):
    """(column, fit) of the typed block, skipping anything that is not a fit."""
    return [(v, r) for v, r in (model_based or {}).items() if isinstance(r, ModelBasedFit)]


def rate_rows(model_based: Mapping[str, ModelBasedFit] | None) -> list[list[str]]:
    """Table rows: each level of each group variable with its rate ratio against the
    reference level (``model_based``: ``AuditRun.model_based``)."""
    rows = []
    for var, res in _fits(model_based):
        fit = model_based_result(res)
        if fit is None:
            rows.append([str(var), f"(not fitted: {_problem(res)})", "", "", "", "", "", ""])
            continue
        for gv in fit.group_variables:
            for lev in gv.levels:
                rows.append(
                    [
                        gv.variable,
                        f"{lev.level} vs {gv.reference}",
                        fmt_ratio(lev.rate_ratio),
                        fmt_estimate_ci(lev.ci_low, lev.ci_high),
                        fmt_p(lev.p_value, log10=lev.p_log10),
                        fmt_p(lev.p_adjusted, log10=lev.p_adjusted_log10),
                        str(lev.n_speakers),
                        fmt_value("wer", lev.wer),
                    ]
                )
    return rows


def agreement_lines(res: ModelBasedFit) -> list[str]:
    """The agreement of the model with the bootstrap, one sentence per level."""
    out = []
    for a in res.agreement or ():
        text = agreement_text(a)
        if text:
            out.append(("✓ " if a.agree else "✗ ") + text)
    return out


def model_based_text(model_based: Mapping[str, ModelBasedFit] | None) -> str:
    """Plain text: per variable, the agreement with the bootstrap first, then the speaker
    SD, the overdispersion reading and the model's conclusions."""
    parts = []
    for var, res in _fits(model_based):
        fit = model_based_result(res)
        lines = [f"{var}:"]
        if fit is None:
            lines.append(f"  not fitted: {_problem(res)}")
            parts.append("\n".join(lines))
            continue
        agree = agreement_lines(res)
        note = agreement_note_text(res)
        if note:
            lines.append(f"Not set beside the bootstrap: {note}.")
        if agree:
            lines.append("Against the bootstrap comparison of the same groups:")
            lines += [f"  {t}" for t in agree]
        lines.append("The model says:")
        lines += [f"  • {t}" for t in model_based_conclusions(res)]
        lines.append(
            f"  ({poisson_approximation_text(fit)}; {fit.n_utterances} "
            f"utterances, {count(fit.n_speakers, 'speaker')})"
        )
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def summary_line(model_based: Mapping[str, ModelBasedFit] | None) -> str:
    """One line over the table: the model, the speaker SD and the overdispersion ratio."""
    bits = []
    for var, res in _fits(model_based):
        fit = model_based_result(res)
        if fit is None:
            continue
        sd = finite(fit.speaker_sd)
        ratio = finite(fit.overdispersion.ratio)
        agree = list(res.agreement or ())
        n_ok = sum(bool(a.agree) for a in agree)
        bit = f"{var}: speaker SD {fmt_number(sd, 2)}" if sd is not None else f"{var}"
        if ratio is not None:
            bit += f", dispersion {fmt_number(ratio, 2)}"
        if agree:
            bit += f", agrees with the bootstrap on {n_ok} of {count(len(agree), 'level')}"
        bits.append(bit)
    return (
        (
            "Mixed-effects Poisson regression of word errors (speaker random intercept; "
            "rate ratio ≈ WER ratio) — " + "; ".join(bits)
        )
        if bits
        else ""
    )


class ModelBasedView(QWidget):
    """Rate ratios with CIs (left) and the agreement and conclusions in words (right)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.model_based: Mapping[str, ModelBasedFit] | None = None
        self.title = QLabel("")
        self.title.setObjectName("muted")
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.PlainText)
        self.table = QTableWidget(0, len(HEADS))
        self.table.setHorizontalHeaderLabels(HEADS)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.WidgetWidth)
        self.split = QSplitter(Qt.Horizontal)
        self.split.addWidget(self.table)
        self.split.addWidget(self.text)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 4, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.title)
        lay.addWidget(self.split, 1)
        self.set_model_based(None)

    def set_model_based(self, model_based: Mapping[str, ModelBasedFit] | None) -> None:
        """Show a run's ``AuditRun.model_based`` (None or empty: hide)."""
        self.model_based = model_based or None
        rows = rate_rows(model_based or {})
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for j, v in enumerate(row):
                it = QTableWidgetItem(v)  # plain item text: user levels never render
                if j >= 2:
                    it.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.table.setItem(i, j, it)
        self.text.setPlainText(model_based_text(model_based or {}))
        self.title.setText(summary_line(model_based or {}))
        self.setVisible(bool(model_based))
