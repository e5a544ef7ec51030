"""What the panels share: the open project (read on the GUI thread), the job registry and
the selected run. Every panel takes a :class:`Context`, so each can be opened on its own."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from PySide6.QtCore import QObject, Signal

from ..core.runs import INCREMENTAL, list_runs, run_kind
from ..core.store import Project
from ..jobs.result import AuditRun
from ..presentation import SEPARATOR, RunSpec, run_name
from .jobs import JobRegistry

#: How long closing waits for cancelled jobs (ms) before it lets the window go.
CLOSE_WAIT_MS = 800


@dataclass(frozen=True)
class RunInfo:
    """One row of the ``runs`` table; ``spec`` is its stored request, which names it
    (:func:`fairdesk.presentation.run_name`, as ``fairdesk runs`` does)."""

    id: int
    model_id: str
    dataset: str | None
    status: str
    created_at: float
    spec: RunSpec

    @property
    def by(self) -> tuple[str, ...]:
        return self.spec.by

    def when(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.created_at))

    def label(self) -> str:
        """``run 3 · model on dataset · by accent · only age_group = adult · date``."""
        return f"run {self.id}{SEPARATOR}{run_name(self.spec, short=True)}{SEPARATOR}{self.when()}"

    def how(self) -> str:
        """The grouping, filters and non-default settings: ``by gender · only age_group =
        adult · min. 10 items per group`` (the runs table's column)."""
        return run_name(replace(self.spec, model=None, dataset=None))


class Context(QObject):
    """The open project and the background jobs of one window.

    Signals
    -------
    project_changed : a project was opened (or a dataset added to it).
    runs_changed : a run finished (the run lists reload).
    run_selected(int) : the run shown by the results pane and the item view.
    status(str) : a message for the status bar.
    recording_planned(object) : a recording plan was stored
        (:class:`fairdesk.core.recording_plans.RecordingPlan`); the Record tab shows it.
    """

    project_changed = Signal()
    recording_planned = Signal(object)
    runs_changed = Signal()
    run_selected = Signal(int)
    status = Signal(str)
    #: a dataset's audio is read from another folder now: (dataset name, new root)
    dataset_relinked = Signal(str, str)
    #: the annotator is about to change: editors save their pending edit (still the
    #: previous annotator's) before ``annotator_changed``
    annotator_changing = Signal()
    #: the annotator's name changed (NFC, trimmed; "" while none is given)
    annotator_changed = Signal(str)

    def __init__(self, folder=None, parent=None):
        super().__init__(parent)
        self.jobs = JobRegistry(self)
        #: Who annotates: stored with every transcript edit, from the Items view's
        #: annotation panel and the Record tab alike (the panel's field sets it; asked, not
        #: taken from the login name: each annotator keeps their own version of an item).
        self.annotator = ""
        self.project: Project | None = None
        self.run_id: int | None = None
        #: the run to show first when the project's runs are listed (the one shown when the
        #: window last closed; the window sets it from its settings), else the newest
        self.remembered_run: int | None = None
        # (run id, its AuditRun): decoded once per run selection
        self._run_cache: tuple[int, AuditRun] | None = None
        self.runs_changed.connect(self.forget_runs)
        self.project_changed.connect(self.forget_runs)
        if folder is not None:
            self.open_project(folder)

    def set_annotator(self, name) -> None:
        """Name who annotates (NFC, trimmed): the annotator fields and editors follow."""
        from ..core.versions import annotator_name

        name = annotator_name(name)
        if name == self.annotator:
            return
        self.annotator_changing.emit()
        self.annotator = name
        self.annotator_changed.emit(name)

    @property
    def folder(self):
        return self.project.folder if self.project is not None else None

    @property
    def read_only(self) -> str | None:
        """Why the open project cannot be written (None: it can be, or none is open):
        browsing, listening and exporting work; the writing actions are disabled."""
        return self.project.read_only if self.project is not None else None

    def read_only_tip(self) -> str:
        return (
            f"the project is read-only ({self.read_only}); copy the folder somewhere "
            "writable to change it"
        )

    def open_project(self, folder) -> Project:
        if self.project is not None:
            self.project.close()
        self.project = Project(folder)
        self.run_id = None
        self.project_changed.emit()
        self.runs_changed.emit()
        if self.project.read_only:
            self.status.emit(
                f"project {self.project.folder} opened read-only ({self.project.read_only}): "
                "browsing, listening and exports work; importing, auditing, recording and "
                "saving transcripts do not"
            )
        else:
            self.status.emit(f"project {self.project.folder}")
        self._say_missing_audio()
        return self.project

    def _say_missing_audio(self) -> None:
        """Say so when a dataset's audio folder is not where the project names it (a copied
        or moved project): the status bar names it and the way to relink it."""
        from ..core.relink import audio_root

        for ds in self.project.datasets():
            where = audio_root(self.project, ds, sample=5)
            if where.items and (not where.exists or where.missing):
                self.status.emit(
                    f"{where.describe()}; relink it: Datasets ▸ Relink audio folder… "
                    "(or `fairdesk relink`)"
                )
                return

    def relink_dataset(self, name: str, root):
        """Read dataset ``name``'s audio from ``root`` (:func:`fairdesk.core.relink.
        relink_dataset`: refused, with a message naming a missing file, unless every file
        is there); the views that play or export it read the new root from now on."""
        from ..core.relink import relink_dataset

        rep = relink_dataset(self.project, name, root)
        self.dataset_relinked.emit(name, str(rep.new_root))
        self.status.emit(
            f"audio of {name!r} is read from {rep.new_root} now (was {rep.old_root}); "
            + (
                f"{rep.changed} files hold other audio than before (transcribed again)"
                if rep.changed
                else "every file holds the same audio as before"
            )
        )
        return rep

    def refresh(self) -> None:
        self.project_changed.emit()

    def runs(self, done_only: bool = True) -> list[RunInfo]:
        """Audit runs of the project, newest first (incremental runs are left out)."""
        if self.project is None:
            return []
        out = []
        for r in list_runs(self.project, done_only):
            if run_kind(r["settings"]) == INCREMENTAL:
                continue  # incremental runs have their own tab
            spec = RunSpec.from_stored(r["settings"], r["model_id"], r["dataset"])
            out.append(
                RunInfo(r["id"], r["model_id"], r["dataset"], r["status"], r["created_at"], spec)
            )
        return out

    def forget_runs(self) -> None:
        """Drop the decoded run (a run finished, or the project changed)."""
        self._run_cache = None

    def _stored(self, run_id: int) -> tuple[int, AuditRun]:
        from ..core.runs import run_payload

        run_id = int(run_id)
        if self._run_cache is None or self._run_cache[0] != run_id:
            from ..jobs.plan_run import with_stored_plan

            run = AuditRun.from_json(run_payload(self.project, run_id))
            # the resampling plan made since replaces a stored closed-form estimate
            self._run_cache = (run_id, with_stored_plan(self.project, run_id, run))
        return self._run_cache

    def audit_run(self, run_id: int) -> AuditRun:
        """The typed result of stored run ``run_id``, decoded once while it stays selected
        (the results pane and the item view share it).

        Raises
        ------
        ValueError
            When the run has no stored audit result.
        """
        return self._stored(run_id)[1]

    def select_default_run(self) -> None:
        """A project just opened and no run shown yet: show the run shown when it was last
        closed (:attr:`remembered_run`), else the newest finished one."""
        if self.project is None or self.run_id is not None:
            return
        runs = self.runs()
        if runs:
            want = self.remembered_run
            self.select_run(want if want in {r.id for r in runs} else runs[0].id)

    def select_run(self, run_id: int | None) -> None:
        if run_id is None or run_id == self.run_id:
            return
        self.run_id = int(run_id)
        self.run_selected.emit(self.run_id)

    def run_finished(self, run_id: int) -> None:
        self.forget_runs()
        self.runs_changed.emit()
        self.run_id = None
        self.select_run(run_id)

    def close(self, timeout_ms: int = CLOSE_WAIT_MS) -> None:
        """Cancel the jobs, wait for them briefly, then close the GUI thread's connection.

        A job still inside one shard of inference when the wait ends finishes that shard on
        its own connection and stops (it sees the cancel); what it committed stays. The
        window does not wait for it (closing used to freeze the window for up to 30 s).
        """
        self.jobs.shutdown(timeout_ms)
        if self.project is not None:
            self.project.close()
