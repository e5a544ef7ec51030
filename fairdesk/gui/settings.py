"""Remembered state: one place that reads and writes QSettings (the GUI thread only).

Panels expose ``save_state() -> dict`` / ``restore_state(dict)`` with plain values; the window
stores each panel's dict as JSON text under ``panels/<name>`` (JSON keeps types the same in
every QSettings backend). Workers never read settings: the GUI passes plain values in.
"""

from __future__ import annotations

import json

from PySide6.QtCore import QEvent, QObject, QSettings, QTimer

ORGANISATION = "fairdesk"
APPLICATION = "fairdesk"
MAX_RECENT = 8


def app_settings() -> QSettings:
    """fairdesk's settings (tests redirect them with ``QSettings.setPath`` or pass their own
    ``QSettings(file, QSettings.IniFormat)`` to the window)."""
    return QSettings(QSettings.IniFormat, QSettings.UserScope, ORGANISATION, APPLICATION)


def get_json(s: QSettings, key: str, default=None):
    """A value stored with :func:`put_json` (``default`` when absent or unreadable)."""
    raw = s.value(key)
    if raw is None:
        return default
    try:
        return json.loads(str(raw))
    except ValueError:
        return default


def put_json(s: QSettings, key: str, value) -> None:
    s.setValue(key, json.dumps(value, ensure_ascii=False))


def recent_projects(s: QSettings) -> list[str]:
    return [str(x) for x in get_json(s, "recent_projects", []) or [] if isinstance(x, str)]


def remember_project(s: QSettings, folder) -> None:
    """Make ``folder`` the last project (and first of the recent ones)."""
    f = str(folder)
    s.setValue("last_project", f)
    put_json(
        s, "recent_projects", [f] + [x for x in recent_projects(s) if x != f][: MAX_RECENT - 1]
    )


def last_run(s: QSettings, folder) -> int | None:
    """The run last shown in the project ``folder`` (None: none remembered)."""
    runs = get_json(s, "last_runs", {})
    v = runs.get(str(folder)) if isinstance(runs, dict) else None
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def remember_run(s: QSettings, folder, run_id: int) -> None:
    """Remember ``run_id`` as the run shown in project ``folder`` (the window reopens it);
    the projects shown most recently are kept."""
    runs = get_json(s, "last_runs", {})
    runs = {k: v for k, v in (runs.items() if isinstance(runs, dict) else ()) if k != str(folder)}
    runs[str(folder)] = int(run_id)
    put_json(s, "last_runs", dict(list(runs.items())[-4 * MAX_RECENT :]))


class _SplitterSizes(QObject):
    """Applies remembered sizes to a splitter when it is first shown (a hidden splitter has
    no real size yet, and would scale them)."""

    def __init__(self, splitter, sizes):
        super().__init__(splitter)
        self.sizes = sizes
        splitter.installEventFilter(self)

    def eventFilter(self, obj, event):  # noqa: N802 - Qt API
        if event.type() == QEvent.Show:
            obj.removeEventFilter(self)
            QTimer.singleShot(0, lambda: obj.setSizes(self.sizes))
        return False


def restore_splitter(splitter, sizes) -> None:
    """Set ``splitter``'s sizes (a list of ints from ``save_state``) now and again once it
    is shown; anything else is ignored."""
    if not (
        isinstance(sizes, list)
        and len(sizes) == splitter.count()
        and all(isinstance(x, int) and x >= 0 for x in sizes)
    ):
        return
    splitter.setSizes(sizes)
    if not splitter.isVisible():
        _SplitterSizes(splitter, sizes)
