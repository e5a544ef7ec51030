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
    QStyle,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ...core.plurals import count
from ...reports.palette import LETTER_ERROR, WORD_OPS
from ...review.marks import describe, word_edits, word_pairs
from ..widgets.theme import SLOT_STATUS

_TOKEN = re.compile(r"\S+")
#: Alignment operations: (background, foreground, label), the report's colours
#: (reports/palette.py): an insertion is blue, a tone-mark error violet.
OPS = WORD_OPS


def marked_word(word: str, edits, side: str) -> str:
    """HTML of ``word`` with the letters that carry an edit underlined in red.

    ``side`` is ``"ref"`` or ``"hyp"``; letters are matched by position in the reference
    (``ref``) or by the edited hypothesis letters (``hyp``).
    """
    from ...review.marks import letters

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


#: Pixel size of the alignment tables' text (the HTML's ``font-size``).
TABLE_PX = 13
#: What a column adds to its word: the cell's padding (2 × 7 px), the cell spacing and
#: the cell's border, with a little slack for the bold face's hinting.
CELL_EXTRA = 2 * 7 + 2 + 4
#: The row label's column ("REF", "HYP", a system's name): its padding and spacing.
LABEL_EXTRA = 6 + 2 + 4


def _measure(bold: bool = True):
    """The advance of a string in the tables' font (pixels), for :func:`line_breaks`."""
    from PySide6.QtGui import QFont, QFontMetrics

    f = QFont()
    f.setPixelSize(TABLE_PX)
    f.setBold(bold)
    fm = QFontMetrics(f)
    return fm.horizontalAdvance


def line_breaks(widths: list[int], label: int, avail: int | None, per_line: int) -> list[int]:
    """Where the aligned columns start a new line: the start index of each line.

    ``widths`` are the columns' widths (the wider of their words, padding included), ``label``
    the row labels' width and ``avail`` the width the tables may take (None: ``per_line``
    columns a line). A line takes as many whole columns as fit, at least one: a word is
    never broken (a word wider than the view scrolls sideways instead)."""
    if not widths:
        return []
    if avail is None:
        return list(range(0, len(widths), per_line))
    starts, used = [0], label
    for i, w in enumerate(widths):
        if used + w > avail and i > starts[-1]:
            starts.append(i)
            used = label
        used += w
    return starts


def _chunks(seq: list, starts: list[int]) -> list[list]:
    ends = starts[1:] + [len(seq)]
    return [seq[a:b] for a, b in zip(starts, ends)]


def alignment_html(report: dict, per_line: int = 11, width: int | None = None) -> str:
    """HTML of the coloured alignment and a legend.

    The columns are laid out in tables that fit ``width`` pixels (as many whole columns a
    line as fit; None: ``per_line`` columns a line); no cell wraps, so a word or a row label
    is never broken in the middle."""
    cols = parse_alignment(report.get("alignment") or "")
    if not cols:
        ref = html.escape(report.get("reference") or "")
        hyp = html.escape(report.get("hypothesis") or "")
        return (
            f"<p><b>REF</b> {ref or '<i>(empty)</i>'}<br><b>HYP</b> {hyp or '<i>(empty)</i>'}</p>"
        )
    adv = _measure()
    widths = [max(adv(r or "—"), adv(h or "—")) + CELL_EXTRA for r, h, _ in cols]
    starts = line_breaks(widths, adv("HYP") + LABEL_EXTRA, width, per_line)
    parts = []
    for chunk in _chunks(cols, starts):
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
                rows[key].append(f"<td nowrap style='{style}{weight} padding:3px 7px;'>{w}</td>")
        parts.append(
            f"<table cellspacing='2' style='margin-bottom:6px; font-size:{TABLE_PX}px;'>"
            + "".join(
                f"<tr><td nowrap style='color:#5f6b7a; padding:3px 6px 3px 0;'><b>{k}</b></td>"
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


def systems_html(columns, counts: dict, per_line: int = 10, width: int | None = None) -> str:
    """HTML of several systems' hypotheses aligned against the reference
    (:func:`fairdesk.review.systems_align.systems_alignment`): a REF row and a row per
    system, each word coloured by that system's operation, and each system's error counts.
    The tables fit ``width`` pixels as :func:`alignment_html`'s do; no word is broken."""
    if not columns:
        return ""
    names = list(counts)
    labels = [n if len(n) <= 18 else n[:17] + "…" for n in names]
    adv = _measure()
    widths = [
        max([adv(c.ref or "—")] + [adv(c.words.get(n, "") or "—") for n in names]) + CELL_EXTRA
        for c in columns
    ]
    label_w = max(adv(t) for t in ["REF", *labels]) + LABEL_EXTRA
    parts = []
    for chunk in _chunks(list(columns), line_breaks(widths, label_w, width, per_line)):
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
                tds.append(f"<td nowrap style='{style} padding:3px 6px;'>{w}</td>")
            label = html.escape(name if len(name) <= 18 else name[:17] + "…")
            body += (
                f"<tr><td nowrap style='color:#5f6b7a; padding:3px 6px 3px 0;'>"
                f"<b>{label}</b></td>" + "".join(tds) + "</tr>"
            )
        parts.append(
            f"<table cellspacing='2' style='margin-bottom:6px; font-size:{TABLE_PX}px;'>"
            f"{body}</table>"
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
        self._rep: dict | None = None
        self._systems: tuple | None = None

    @staticmethod
    def _room(browser: QTextBrowser) -> int:
        """The width the tables of ``browser`` may take: its viewport less the document's
        margins and room for a vertical scroll bar (so its arrival changes nothing)."""
        margin = int(browser.document().documentMargin())
        bar = browser.style().pixelMetric(QStyle.PM_ScrollBarExtent)
        return max(80, browser.viewport().width() - 2 * margin - bar)

    def _render(self) -> None:
        """(Re)write both views' HTML for their current widths; a view whose HTML is the
        same is left alone (its scroll position kept)."""
        if self._systems is not None:
            html_ = systems_html(*self._systems, width=self._room(self.systems))
            if html_ != self.systems.property("shown_html"):
                self.systems.setHtml(html_)
                self.systems.setProperty("shown_html", html_)
        if self._rep is not None:
            html_ = alignment_html(self._rep, width=self._room(self.text))
            if html_ != self.text.property("shown_html"):
                self.text.setHtml(html_)
                self.text.setProperty("shown_html", html_)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._render()  # the lines of words follow the width: wrapped between words

    def set_systems(self, columns=None, counts=None) -> None:
        """Show the systems' hypotheses aligned side by side (None: hide the view)."""
        if not columns and self.systems.isHidden():
            return  # nothing shown, nothing to show (each item of a one-system run)
        self.systems.setVisible(bool(columns))
        self._systems = (columns, counts or {}) if columns else None
        if not columns:
            self.systems.setHtml("")
            self.systems.setProperty("shown_html", "")
        self._render()

    def set_report(self, rep: dict | None) -> None:
        self.slots.setRowCount(0)
        self._rep = rep
        if rep is None:
            self.text.setHtml("")
            self.text.setProperty("shown_html", "")
            self.intent.setText("")
            return
        self._render()
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
