"""The item shown last in each project, remembered by the Items panel and selected again when
the window reopens (a mixin of :class:`fairdesk.gui.items.item_panel.ItemPanel`)."""

from __future__ import annotations

import numpy as np


class RememberedItem:
    """``self._remembered``: project folder → ``{"run": id, "item": key}`` of the item shown
    last there; ``self._pending``: the open project's, selected once its run is shown."""

    #: The projects whose shown item is remembered (the most recent ones).
    MAX_PROJECTS = 32

    def current_item(self) -> str | None:
        """The key of the item shown (None: none)."""
        idx = self.table.currentIndex()
        if self.frame is None or not idx.isValid() or "id" not in self.frame.columns:
            return None
        return str(self.frame["id"].iloc[self.model.source_row(idx.row())])

    def _selected_items(self) -> dict:
        states = dict(self._remembered)
        key = self.current_item()
        if self.ctx.folder is not None and self.run_id is not None and key is not None:
            states.pop(str(self.ctx.folder), None)
            states[str(self.ctx.folder)] = {"run": int(self.run_id), "item": key}
        return dict(list(states.items())[-self.MAX_PROJECTS :])

    def _select_pending(self) -> None:
        """Select the remembered item once its run is the one shown."""
        if self._pending is None or self.frame is None or self.run_id != self._pending[0]:
            return
        _run, key = self._pending
        self._pending = None
        if "id" not in self.frame.columns:
            return
        hits = np.flatnonzero(self.frame["id"].astype(str).to_numpy() == key)
        view = self.model.view_row(int(hits[0])) if hits.size else -1
        if view >= 0:
            self.table.selectRow(view)

    def _restore_selected(self, selected) -> None:
        """Read the remembered items (``save_state``'s ``selected``) and select the open
        project's once its run is shown."""
        if not isinstance(selected, dict):
            return
        self._remembered = dict(selected)
        mine = self._remembered.get(str(self.ctx.folder)) if self.ctx.folder else None
        if isinstance(mine, dict) and isinstance(mine.get("run"), int):
            self._pending = (int(mine["run"]), str(mine.get("item")))
            self._select_pending()
