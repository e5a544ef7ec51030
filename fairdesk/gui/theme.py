"""Colours, labels and number formats shared by the panels."""

from __future__ import annotations

import html
import math

from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication

from ..reports.palette import VERDICTS  # noqa: E402 - one palette for the GUI and reports

#: Short verdict labels for the cards (the full label is in the legend and the tooltip).
VERDICT_SHORT = {
    "disparity_detected": "Disparity",
    "speaker_confounded": "Speaker-confounded",
    "significant_but_small": "Significant, small",
    "inconclusive_underpowered": "Inconclusive",
    "no_disparity_detected": "No disparity",
    "not_estimable": "Not estimable",
    "no_variation": "No variation",
    "not_computable": "Not computable",
}

#: Metrics that are ratios (shown as 1.23×, their gaps as differences of ratios), not rates.
RATIO_METRICS = frozenset({"grounding_lift"})

#: Alignment operations in the difference view: (background, foreground, label).
OPS = {
    "S": ("#ffe0a3", "#6d4c00", "substitution"),
    "D": ("#ffcdd2", "#b71c1c", "deletion"),
    "I": ("#c8e6c9", "#1b5e20", "insertion"),
}

#: Slot status colours.
SLOT_STATUS = {"ok": "#2e7d32", "missed": "#c62828", "wrong": "#ef6c00", "extra": "#1565c0"}

#: Series colours (colour-blind safe, Okabe-Ito).
SERIES = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]

STYLE = """
QMainWindow, QDialog { background: #f6f7f9; }
QTabWidget::pane { border: 1px solid #d0d4da; background: #ffffff; border-radius: 4px; }
QTabBar::tab { padding: 7px 16px; margin-right: 2px; background: #e9ecf0;
               border: 1px solid #d0d4da; border-bottom: none;
               border-top-left-radius: 4px; border-top-right-radius: 4px; }
QTabBar::tab:selected { background: #ffffff; font-weight: bold; }
QGroupBox { font-weight: bold; border: 1px solid #d0d4da; border-radius: 4px;
            margin-top: 12px; padding-top: 8px; background: #ffffff; }
QGroupBox::title { subcontrol-origin: margin; left: 8px; padding: 0 4px; }
QTableView, QTreeWidget, QListWidget { background: #ffffff; alternate-background-color: #f3f5f8;
            gridline-color: #e3e6ea; selection-background-color: #cfe3ff;
            selection-color: #111111; }
QHeaderView::section { background: #eef1f4; padding: 4px 6px; border: none;
            border-right: 1px solid #d9dde2; border-bottom: 1px solid #d0d4da;
            font-weight: bold; }
QPushButton { padding: 5px 14px; border: 1px solid #b8bfc8; border-radius: 4px;
              background: #ffffff; }
QPushButton:hover { background: #eef4ff; }
QPushButton:disabled { color: #9aa1a9; background: #f2f3f5; }
QPushButton#primary { background: #1565c0; color: white; border-color: #0d47a1;
                      font-weight: bold; }
QPushButton#primary:disabled { background: #90a4c0; }
QProgressBar { border: 1px solid #b8bfc8; border-radius: 4px; text-align: center;
               background: #ffffff; height: 18px; }
QProgressBar::chunk { background: #1e88e5; border-radius: 3px; }
QLabel#heading { font-size: 15px; font-weight: bold; color: #1f2933; }
QLabel#muted { color: #5f6b7a; }
QStatusBar { background: #eef1f4; }
"""


def apply_style(app) -> None:
    """Application font (DejaVu Sans when installed: offscreen Qt has no default) and style."""
    families = set(QFontDatabase.families())
    for name in ("Inter", "Noto Sans", "DejaVu Sans", "Liberation Sans"):
        if name in families:
            f = QFont(name, 10)
            QGuiApplication.setFont(f)
            break
    app.setStyle("Fusion")
    app.setStyleSheet(STYLE)
    import pyqtgraph as pg

    # white plots in every panel, whichever module is imported first
    pg.setConfigOptions(antialias=True, background="w", foreground="#222222")


def mono_font(size: int = 10) -> QFont:
    f = QFontDatabase.systemFont(QFontDatabase.FixedFont)
    for name in ("DejaVu Sans Mono", "Noto Sans Mono", "Liberation Mono"):
        if name in QFontDatabase.families():
            f = QFont(name)
            break
    f.setPointSize(size)
    return f


def verdict_style(verdict: str) -> tuple[str, QColor, QColor]:
    label, bg, fg = VERDICTS.get(verdict, (verdict.replace("_", " "), "#e0e0e0", "#1a1a1a"))
    return label, QColor(bg), QColor(fg)


def pct(value, digits: int = 1, signed: bool = False) -> str:
    """A rate or proportion as a percentage ('' for missing)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return ""
    if math.isnan(v):
        return ""
    return f"{v * 100:+.{digits}f}%" if signed else f"{v * 100:.{digits}f}%"


def is_ratio(metric: str) -> bool:
    """Whether ``metric`` is a ratio (grounding lift), shown with × instead of %."""
    if metric in RATIO_METRICS:
        return True
    from ..metrics.registry import METRICS

    spec = METRICS.get(metric)
    return bool(spec is not None and getattr(spec, "family", None) == "grounding")


def fmt_value(metric: str, value, digits: int = 1) -> str:
    """A metric's value: a percentage for rates, ``1.11×`` for ratios ('' when missing)."""
    if not is_ratio(metric):
        return pct(value, digits)
    v = _float(value)
    return "" if v is None else f"{v:.2f}×"


def fmt_gap(metric: str, value, digits: int = 1) -> str:
    """A difference to the reference: ``+3.1 pp`` for rates, ``−0.12×`` for ratios."""
    if not is_ratio(metric):
        return pct(value, digits, signed=True).replace("%", " pp")
    v = _float(value)
    return "" if v is None else f"{v:+.2f}×"


def fmt_ci(metric: str, low, high, digits: int = 1) -> str:
    """``[−1.2, +4.0]`` (pp for rates, × for ratios); '' when either end is missing."""
    lo, hi = _float(low), _float(high)
    if lo is None or hi is None:
        return ""
    if is_ratio(metric):
        return f"[{lo:+.2f}, {hi:+.2f}]"
    return f"[{lo * 100:+.{digits}f}, {hi * 100:+.{digits}f}]"


def _float(value) -> float | None:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def esc(value) -> str:
    """A user-supplied value for rich text: HTML-escaped (``<h1>`` shows as ``<h1>``)."""
    return html.escape(str(value), quote=True)


def plain_tip(text) -> str:
    """A tooltip that shows ``text`` literally: Qt renders a tooltip that looks like HTML as
    rich text, so the text is escaped inside a paragraph (always rich, never interpreted)."""
    return "" if text is None or text == "" else f"<p>{esc(text)}</p>"


def pvalue(value) -> str:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return "–"
    if math.isnan(v):
        return "–"
    return "< 0.001" if v < 0.001 else f"{v:.3f}"


def metric_label(metric: str) -> str:
    """The metric's label from the registry (its id when unknown)."""
    from ..metrics.registry import METRICS

    spec = METRICS.get(metric)
    if spec is not None:
        return spec.label
    return metric.replace("_", " ")


def metric_short(metric: str) -> str:
    return {
        "wer": "WER",
        "cer": "CER",
        "em": "EM",
        "intent_accuracy": "Intent acc.",
        "sub_rate": "Sub. rate",
        "del_rate": "Del. rate",
        "ins_rate": "Ins. rate",
        "insertion_ratio": "Ins. ratio",
        "der": "DER",
        "ter": "TER",
        "accuracy": "Accuracy",
        "balanced_accuracy": "Bal. acc.",
        "macro_recall": "Macro recall",
        "mean_confidence": "Confidence",
        "hallucination_rate": "Halluc.",
        "wer_unflagged": "WER unflagged",
    }.get(metric, metric.replace("_", " "))


def higher_is_better(metric: str) -> bool:
    from ..metrics.registry import CLASS_METRIC_IDS, METRICS

    if metric in CLASS_METRIC_IDS:
        return True
    spec = METRICS.get(metric)
    return bool(spec and spec.higher_is_better)
