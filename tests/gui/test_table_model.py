"""The vectorised table model: sorting, text and column filters, masks, kept selection, and
20,000 rows sorted and filtered without calling back per row."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt


def _frame(n=20000, seed=0):
    rng = np.random.default_rng(seed)
    wer = rng.random(n).round(3)
    wer[::97] = np.nan
    return pd.DataFrame(
        {
            "id": [f"item_{i:05d}" for i in range(n)],
            "wer": wer,
            "errors": rng.integers(0, 6, n),
            "group": rng.choice(["en-gb", "en-us", "en-029"], n),
            "reference": [f"play song number {i % 500}" for i in range(n)],
        }
    )


def test_sort_filter_and_masks_match_pandas(qtbot):
    from fairdesk.gui.widgets.table_model import FrameModel

    df = _frame(2000)
    m = FrameModel(df)
    m.sort(1, Qt.DescendingOrder)
    got = [m.row(r)["id"] for r in range(m.rowCount())]
    want = df.sort_values("wer", ascending=False, kind="stable", na_position="last")["id"]
    assert got == list(want)
    m.sort(3, Qt.AscendingOrder)
    groups = [m.row(r)["group"] for r in range(m.rowCount())]
    assert groups == sorted(groups)
    m.set_text("NUMBER 42")  # case-insensitive, any column
    keep = df["reference"].str.contains("number 42", regex=False)
    assert m.rowCount() == int(keep.sum())
    m.set_column_filter(3, "en-gb")
    assert m.rowCount() == int((keep & (df["group"] == "en-gb")).sum())
    m.set_mask("failing", (df["errors"] > 0).to_numpy())
    assert m.rowCount() == int((keep & (df["group"] == "en-gb") & (df["errors"] > 0)).sum())
    m.set_text("")
    m.set_column_filter(3, None)
    m.set_mask("failing", None)
    assert m.rowCount() == len(df)
    assert m.data(m.index(0, 1)) in ("–", f"{m.row(0)['wer']:.3f}")  # NaN: the missing marker


def test_selection_follows_its_row_through_a_sort(qtbot):
    from PySide6.QtWidgets import QTableView

    from fairdesk.gui.widgets.table_model import FrameModel

    df = _frame(500)
    m = FrameModel(df)
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(m)
    view.selectRow(10)
    chosen = m.row(10)["id"]
    m.sort(1, Qt.AscendingOrder)
    assert m.row(view.currentIndex().row())["id"] == chosen


def test_twenty_thousand_rows_sort_and_filter_quickly(qtbot):
    """The budget is 100 ms on an idle machine (bench/gui_responsiveness.py measures it);
    this test, on a shared CI machine, only checks it is nowhere near per-row Python."""
    from PySide6.QtWidgets import QTableView

    from fairdesk.gui.widgets.table_model import FrameModel, fit_columns

    df = _frame()
    m = FrameModel(df)
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(m)
    view.setSortingEnabled(True)
    t = time.perf_counter()
    fit_columns(view)
    view.sortByColumn(1, Qt.DescendingOrder)
    m.set_text("number 7")
    m.set_mask("failing", (df["errors"] > 0).to_numpy())
    assert time.perf_counter() - t < 2.0
    assert m.rowCount() == int(
        (df["reference"].str.contains("number 7") & (df["errors"] > 0)).sum()
    )


def test_set_masks_relays_once_and_equals_the_masks_one_by_one(qtbot):
    from fairdesk.gui.widgets.table_model import FrameModel

    df = _frame(500)
    group = (df["group"] == "en-gb").to_numpy()
    failing = (df["errors"] > 0).to_numpy()
    one = FrameModel(df)
    one.set_mask("group", group)
    one.set_mask("failing", failing)
    both = FrameModel(df)
    layouts = []
    both.layoutChanged.connect(lambda *a: layouts.append(1))
    both.set_masks({"group": group, "failing": failing, "flagged": None})
    assert len(layouts) == 1
    want = list(df["id"][group & failing])
    assert [both.row(r)["id"] for r in range(both.rowCount())] == want
    assert [one.row(r)["id"] for r in range(one.rowCount())] == want
    both.set_masks({"group": None})  # removed: the other mask stays
    assert both.rowCount() == int(failing.sum())


def test_a_column_format_shows_its_text_and_sorts_by_value(qtbot):
    """A column shown through its own formatter (a metric in percent): the cells and the
    filters read the text, the sort follows the numbers (``100.0%`` after ``20.0%``)."""
    from fairdesk.gui.widgets.table_model import FrameModel

    df = pd.DataFrame({"id": ["a", "b", "c", "d"], "WER": [1.0, 0.2, np.nan, 0.05]})
    m = FrameModel()
    m.set_formats({"WER": lambda v: "–" if np.isnan(v) else f"{100 * v:.1f}%"})
    m.set_frame(df)
    assert [m.data(m.index(r, 1)) for r in range(4)] == ["100.0%", "20.0%", "–", "5.0%"]
    assert m.data(m.index(0, 1), Qt.UserRole) == 1.0  # the value stays a number
    m.sort(1, Qt.AscendingOrder)
    assert [m.row(r)["id"] for r in range(4)] == ["d", "b", "a", "c"]  # by value, missing last
    m.set_text("100.0%")  # the text filter reads what is shown
    assert [m.row(r)["id"] for r in range(m.rowCount())] == ["a"]
    m.set_text("")
    m.set_column_filter(1, "5.0%")
    assert [m.row(r)["id"] for r in range(m.rowCount())] == ["d"]
