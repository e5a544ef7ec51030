"""A screenshot of the annotation editor in the Items view (``fairdesk gui --screenshot``)."""

from __future__ import annotations

import time
from pathlib import Path

from ..context import Context
from ..qapp import save_grab


def screenshot(out_path, project, run_id: int | None = None, size: tuple[int, int] = (1440, 900)):
    """Save a PNG of the Items view with the annotation editor on a real item of ``project``
    (the first item of the run's ranked list, or of the first dataset); a tone mark is put
    on with the palette and undone/redone, so the history is real. Nothing is written to the
    user's project: the project is copied to a temporary folder first.

    Parameters
    ----------
    out_path : the PNG to write.
    project : a project folder.
    run_id : the run whose items are shown (default: the newest finished run).
    size : the panel's size (``fairdesk gui --size``: a laptop's screen).

    Returns
    -------
    Path
        ``out_path``.
    """
    import tempfile

    from PySide6.QtWidgets import QApplication

    from ...core.store import copy_database
    from .item_panel import ItemPanel

    app = QApplication.instance()
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        dst = Path(tmp) / "project"
        dst.mkdir()
        copy_database(project, dst)
        ctx = Context(dst)
        try:
            w = ItemPanel(ctx)
            w.resize(*size)
            w.show()
            runs = ctx.runs()
            if runs:
                ctx.select_run(run_id or runs[0].id)
            _settle(ctx)
            ann = w.annotation
            if ann.item_db_id is not None:
                ed = ann.editor
                ed.edit.setFocus()
                text = ed.edit.text()
                pos = next((i + 1 for i, ch in enumerate(text) if ch in "aeiouAEIOU"), 0)
                ed.edit.setCursorPosition(pos)
                ed.insert_mark("\u0300")
                ed.flush()
                ed.undo_stack.undo()
                ed.undo_stack.redo()
                ann.save_now()
                ann.history_btn.setChecked(True)
            _settle(ctx)
            app.processEvents()
            save_grab(w, out)
            w.close()
        finally:
            ctx.close(5000)
            app.processEvents()
    return out


def _settle(ctx, timeout: float = 30.0) -> None:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        app.processEvents()
        if not ctx.jobs.live():
            break
        ctx.jobs.wait(20)
    for _ in range(3):
        app.processEvents()
