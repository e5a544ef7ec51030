"""The item view as the listening tests open it: every item listed, a NullSink as the
output, a run selected and its first item shown and decoded."""

from __future__ import annotations


def open_item_view(qtbot, ctx, run_id: int, timeout: int = 10000):
    """(the shown ItemPanel, its NullSink) with ``run_id``'s first item on screen."""
    from fairdesk.gui.audio.audio_worker import NullSink
    from fairdesk.gui.items.item_panel import ItemPanel

    w = ItemPanel(ctx)
    qtbot.addWidget(w)
    sink = NullSink()
    w.player.set_sink(sink)
    w.only_failing.setChecked(False)
    w.show()
    w.activateWindow()
    qtbot.waitExposed(w)
    with qtbot.waitSignals([w.item_shown, w.player.ready], timeout=timeout):
        ctx.select_run(run_id)
    return w, sink
