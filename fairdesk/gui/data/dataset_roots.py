"""The Datasets view's audio folders: every folder a dataset reads its audio from (with the
files found missing), and relinking one to where the audio is now. Mixed into
:class:`~.dataset_panel.DatasetPanel` (it uses the panel's widgets and state)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

from ...presentation import count


class AudioRootsMixin:
    """The audio-folder part of :class:`~.dataset_panel.DatasetPanel`."""

    def _show_audio_root(self, ds) -> None:
        from ...core.relink import audio_roots
        from ..widgets.theme import esc

        roots = audio_roots(self.ctx.project, ds, sample=20)
        lines = []
        for where in roots:  # every folder the dataset reads audio from
            text = f"Audio from <code>{esc(where.root)}</code>"
            if len(roots) > 1:
                text += f" ({count(where.items, 'item')})"
            if not where.exists:
                text += " <span style='color:#c62828'>— folder not found: relink it</span>"
            elif where.missing:
                text += (
                    f" <span style='color:#c62828'>— {where.missing} of {where.checked} files "
                    "checked are missing</span>"
                )
            lines.append(text)
        self.audio_label.setText("<br>".join(lines))
        self.audio_label.setToolTip("\n".join(where.describe() for where in roots))
        self.relink_btn.setVisible(True)
        self.relink_btn.setEnabled(not self.ctx.read_only)

    def relink(self, folder=None) -> bool:
        """Read the shown dataset's audio from ``folder`` (asked for when None); refused,
        with the missing file named, unless every item's file is there. Returns whether
        the dataset was relinked."""
        from ...core.errors import FairdeskError

        name = self.current_dataset()
        if name is None or self.ctx.project is None:
            return False
        asked = folder is None
        if asked:
            start = self._root if self._root is not None and self._root.is_dir() else Path.home()
            folder = QFileDialog.getExistingDirectory(
                self, f"The folder that now holds the audio of {name}", str(start)
            )
            if not folder:
                return False
        try:
            self.ctx.relink_dataset(name, folder)
        except FairdeskError as exc:
            self.relink_error = str(exc)
            self.ctx.status.emit(f"not relinked: {exc}")
            if asked:
                QMessageBox.warning(self, "Relink audio folder", str(exc))
            return False
        self.relink_error = ""
        self._show(name)  # the items, their player and the label read the new root
        return True
