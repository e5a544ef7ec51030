"""Reference vs hypothesis: the word alignment of ``item_report`` rendered with colours
(substitutions, deletions, insertions), and the intent and slot differences."""

from __future__ import annotations

import html
import re
import unicodedata

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ..core.plurals import count
from ..reports.palette import LETTER_ERROR, WORD_OPS
from ..review.marks import describe, word_edits, word_pairs
from .theme import SLOT_STATUS

_TOKEN = re.compile(r"\S+")
#: Alignment operations: (background, foreground, label), the report's colours
#: (reports/palette.py): an insertion is blue, a tone-mark error violet.
OPS = WORD_OPS


def marked_word(word: str, edits, side: str) -> str:
    """HTML of ``word`` with the letters that carry an edit underlined in red.

    ``side`` is ``"ref"`` or ``"hyp"``; letters are matched by position in the reference
    (``ref``) or by the edited hypothesis letters (``hyp``).
    """
    from ..review.marks import letters

    ls = letters(word)
    if side == "ref":
        hot = {e.index for e in edits if e.kind != "inserted"}
    else:  # positions of the hypothesis letters named by the edits, in order
        wanted = [e.hyp_letter for e in edits if e.hyp_letter]
        hot = set()
        for i, (b, m) in enumerate(ls):
            nfc = unicodedata.normalize("NFC", b + "".join(m))
            if nfc in wanted:
                hot.add(i)
                wanted.remove(nfc)
    out = []
    for i, (b, m) in enumerate(ls):
        ch = html.escape(unicodedata.normalize("NFC", b + "".join(m)))
        out.append(f"<u style='color:{LETTER_ERROR};'>{ch}</u>" if i in hot else ch)
    return "".join(out)


def parse_alignment(text: str) -> list[tuple[str, str, str]]:
    """Columns of jiwer's ``REF:/HYP:/markers`` text as (ref word, hyp word, op).

    ``op`` is ``""`` (correct), ``S``, ``D`` or ``I``; the missing side of a deletion or an
    insertion is ``""``. Words are padded to a common width per column, so the columns are
    the tokens of the two lines taken pairwise; a column's marker lies within its span.
    """
    lines = (text or "").split("\n")
    out: list[tuple[str, str, str]] = []
    for i, ref in enumerate(lines):
        if not ref.startswith("REF:") or i + 1 >= len(lines) or not lines[i + 1].startswith("HYP:"):
            continue
        hyp = lines[i + 1]
        marks = (
            lines[i + 2]
            if i + 2 < len(lines) and not lines[i + 2].startswith(("REF:", "HYP:"))
            else ""
        )
        for a, b in zip(_TOKEN.finditer(ref, 4), _TOKEN.finditer(hyp, 4)):
            span = marks[min(a.start(), b.start()) : max(a.end(), b.end())].strip()
            op = span[:1] if span[:1] in ("S", "D", "I") else ""
            r, h = a.group(), b.group()
            if not op:  # the markers line is a convenience; the words decide too
                op = "I" if set(r) == {"*"} else "D" if set(h) == {"*"} else "S" if r != h else ""
            out.append(
                (
                    "" if op == "I" or set(r) == {"*"} else r,
                    "" if op == "D" or set(h) == {"*"} else h,
                    op,
                )
            )
    return out


def alignment_html(report: dict, per_line: int = 11) -> str:
    """HTML of the coloured alignment (tables of ``per_line`` columns) and a legend."""
    cols = parse_alignment(report.get("alignment") or "")
    if not cols:
        ref = html.escape(report.get("reference") or "")
        hyp = html.escape(report.get("hypothesis") or "")
        return (
            f"<p><b>REF</b> {ref or '<i>(empty)</i>'}<br><b>HYP</b> {hyp or '<i>(empty)</i>'}</p>"
        )
    parts = []
    for s in range(0, len(cols), per_line):
        chunk = cols[s : s + per_line]
        rows = {"REF": [], "HYP": []}
        for r, h, op in chunk:
            bg, fg, _ = OPS.get(op, ("#ffffff", "#1f2933", ""))
            style = f"background:{bg}; color:{fg};" if op else "color:#1f2933;"
            edits = word_edits(r, h) if op == "S" and r and h else []
            small = edits and sum(not e.is_mark for e in edits) <= max(1, len(r) // 3)
            for key, word in (("REF", r), ("HYP", h)):
                w = html.escape(word) if word else "<span style='color:#9aa1a9'>—</span>"
                if small and word:
                    w = marked_word(word, edits, "ref" if key == "REF" else "hyp")
                if op == "D" and key == "REF":
                    w = f"<s>{w}</s>"
                weight = "font-weight:bold;" if op else ""
                rows[key].append(f"<td style='{style}{weight} padding:3px 7px;'>{w}</td>")
        parts.append(
            "<table cellspacing='2' style='margin-bottom:6px; font-size:13px;'>"
            + "".join(
                f"<tr><td style='color:#5f6b7a; padding:3px 6px 3px 0;'><b>{k}</b></td>"
                + "".join(v)
                + "</tr>"
                for k, v in rows.items()
            )
            + "</table>"
        )
    legend = " ".join(
        f"<span style='background:{bg}; color:{fg}; padding:1px 6px;'>&nbsp;{label} "
        f"{report.get(label + 's', 0)}"
        f"&nbsp;</span>"
        for op, (bg, fg, label) in OPS.items()
    )
    head = (
        f"<p style='color:#5f6b7a'>{count(report.get('errors', 0), 'word error')} / "
        f"{count(report.get('n_words', 0), 'reference word')} &nbsp; {legend}</p>"
    )
    return head + "".join(parts) + inside_words_html(report)


def inside_words_html(report: dict) -> str:
    """A list of the errors inside substituted words (tone marks, dots, letters), from the
    raw transcripts with every mark kept."""
    try:
        pairs = word_pairs(report.get("reference") or "", report.get("hypothesis") or "")
    except Exception:  # noqa: BLE001 - a text the aligner refuses: no list, the diff stays
        return ""
    lines = []
    for r, h, edits in pairs:
        if not edits or sum(not e.is_mark for e in edits) > max(1, len(r) // 3):
            continue  # a different word, not an error inside one
        what = "; ".join(html.escape(describe(e)) for e in edits)
        lines.append(
            f"<li><b>{marked_word(r, edits, 'ref')}</b> → "
            f"<b>{marked_word(h, edits, 'hyp')}</b>: {what}</li>"
        )
    if not lines:
        return ""
    return (
        "<p style='color:#5f6b7a; margin-bottom:0'>Inside words (marks and letters):</p>"
        "<ul style='margin-top:2px'>" + "".join(lines) + "</ul>"
    )


def systems_html(columns, counts: dict, per_line: int = 10) -> str:
    """HTML of several systems' hypotheses aligned against the reference
    (:func:`fairdesk.review.systems_align.systems_alignment`): a REF row and a row per
    system, each word coloured by that system's operation, and each system's error counts."""
    if not columns:
        return ""
    names = list(counts)
    parts = []
    for s in range(0, len(columns), per_line):
        chunk = columns[s : s + per_line]
        rows = [("REF", [(c.ref, "") for c in chunk])]
        rows += [(n, [(c.words.get(n, ""), c.ops.get(n, "")) for c in chunk]) for n in names]
        body = ""
        for name, cells in rows:
            tds = []
            for word, op in cells:
                bg, fg, _ = OPS.get(op, ("#ffffff", "#1f2933", ""))
                style = f"background:{bg}; color:{fg}; font-weight:bold;" if op in OPS else ""
                w = html.escape(word) if word else "<span style='color:#9aa1a9'>—</span>"
                if op == "D":
                    w = "<span style='color:#b71c1c'>∅</span>"
                tds.append(f"<td style='{style} padding:3px 6px;'>{w}</td>")
            label = html.escape(name if len(name) <= 18 else name[:17] + "…")
            body += (
                f"<tr><td style='color:#5f6b7a; padding:3px 6px 3px 0;'><b>{label}</b></td>"
                + "".join(tds)
                + "</tr>"
            )
        parts.append(
            f"<table cellspacing='2' style='margin-bottom:6px; font-size:13px;'>{body}</table>"
        )
    tally = "; ".join(
        f"{html.escape(n)}: {sum(c.values())} errors (S {c['S']}, D {c['D']}, I {c['I']})"
        for n, c in counts.items()
    )
    return (
        "<p style='color:#5f6b7a'>Every system against the reference, as each run's WER "
        f"counted it (∅: a deleted word): {tally}</p>" + "".join(parts)
    )


class DiffView(QWidget):
    """The coloured alignment, the intent line and the slot table of one item."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.text = QTextBrowser()
        self.text.setOpenLinks(False)
        self.text.setMinimumHeight(110)
        self.intent = QLabel()
        self.intent.setTextFormat(Qt.RichText)
        self.slots = QTableWidget(0, 4)
        self.slots.setHorizontalHeaderLabels(["Slot", "Status", "Reference", "Hypothesis"])
        self.slots.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.slots.verticalHeader().setVisible(False)
        self.slots.setAlternatingRowColors(True)
        self.slots.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.slots.setMinimumHeight(90)
        self.systems = QTextBrowser()  # every system's hypothesis (a comparison's baseline run)
        self.systems.setOpenLinks(False)
        self.systems.setMinimumHeight(120)
        self.systems.setVisible(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.systems, 2)
        lay.addWidget(self.text, 2)
        lay.addWidget(self.intent)
        lay.addWidget(self.slots, 2)

    def set_systems(self, columns=None, counts=None) -> None:
        """Show the systems' hypotheses aligned side by side (None: hide the view)."""
        if not columns and self.systems.isHidden():
            return  # nothing shown, nothing to show (each item of a one-system run)
        self.systems.setVisible(bool(columns))
        self.systems.setHtml(systems_html(columns, counts or {}) if columns else "")

    def set_report(self, rep: dict | None) -> None:
        self.slots.setRowCount(0)
        if rep is None:
            self.text.setHtml("")
            self.intent.setText("")
            return
        self.text.setHtml(alignment_html(rep))
        if "intent" in rep:
            i = rep["intent"]
            ok = str(i.get("reference")) == str(i.get("hypothesis"))
            mark = (
                "<span style='color:#2e7d32'><b>correct</b></span>"
                if ok
                else "<span style='color:#c62828'><b>wrong</b></span>"
            )
            em = rep.get("em")
            em_txt = (
                ""
                if em is None
                else (" · exact match <b>yes</b>" if float(em) >= 1 else " · exact match <b>no</b>")
            )
            self.intent.setText(
                f"Intent <b>{html.escape(str(i.get('reference')))}</b> → "
                f"<b>{html.escape(str(i.get('hypothesis')))}</b> ({mark})"
                f"{em_txt}"
            )
            self.intent.show()
            self.slots.show()
        else:
            self.intent.hide()
            self.slots.hide()
        slots = rep.get("slots") or []
        self.slots.setRowCount(len(slots))
        for r, d in enumerate(slots):
            vals = [d.get("slot"), d.get("status"), d.get("reference"), d.get("hypothesis")]
            for c, v in enumerate(vals):
                it = QTableWidgetItem("" if v is None else str(v))
                if c == 1:
                    it.setForeground(QBrush(QColor(SLOT_STATUS.get(str(v), "#222222"))))
                    f = it.font()
                    f.setBold(True)
                    it.setFont(f)
                self.slots.setItem(r, c, it)
