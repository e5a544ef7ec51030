"""The item view's saliency overlay (explain stage): the table's saliency column, the stored
curve of the shown item drawn on the waveform, and computing one in a background job.
Mixed into :class:`~.item_panel.ItemPanel` (it uses the panel's widgets and state).

The view never waits on a curve (docs/METHODS.md, "Coarse curve first"): a computation
first draws the coarse curve (0.5 s occlusion windows, a few encoder passes), labelled
coarse, and refines it in place to the exact curve with its progress. While no requested
job runs, the worst items' curves are precomputed in the background, one at a time, at the
pool's lowest priority; any request (an audit, an export, another saliency) cancels that
precomputation, and what it stored (the coarse curve) is kept.
"""

from __future__ import annotations

import html

import numpy as np
from PySide6.QtCore import QTimer

from ...core.caches import saliency_hashes

#: How to read the overlay (the scale itself is the waveform's right axis).
_SCALE = "orange: saliency, scale on the right axis (hover it); green: reference words"
#: The label of the coarse curve (docs/METHODS.md, "Coarse curve first").
_COARSE = "coarse saliency (0.5 s windows)"
#: How many of the worst-ranked items get their curves precomputed.
BACKGROUND_ITEMS = 12
#: Milliseconds between two looks for idle time to precompute a curve.
BACKGROUND_POLL_MS = 1500
#: Whether the item view precomputes curves at all (off for screenshots and for the test
#: suite, whose timings a model running beside them would disturb; its own test turns it on).
PRECOMPUTE = True
#: Model ids that can score a transcript, which a saliency curve needs.
_SCORING = ("whisper-tiny.en", "ct2:", "hf:")


class SaliencyMixin:
    """The saliency part of :class:`~.item_panel.ItemPanel`."""

    def _saliency_flags(self, df) -> list[str]:
        model_key = self.run.model_key
        if self._items is None or not model_key:
            return [""] * len(df)
        have = saliency_hashes(self.ctx.project, model_key)
        hashes = self._items["audio_hash"].reindex(df["id"].astype(str)).to_numpy()
        return ["●" if h in have else "" for h in hashes]

    def _saliency_model_ok(self) -> bool:
        """Whether the shown run's model can be asked for a saliency curve."""
        model = str(self.run.model or "")
        return bool(model) and not model.startswith("predictions:")

    def _show_saliency(self, row: dict) -> None:
        """Overlay the stored saliency of the item for the run's model, or offer to compute it."""
        from ...jobs.explain_stage import is_coarse_key, saliency_for_item

        model_key = self.run.model_key
        ah = self._audio_hash(row)
        hit = None
        if ah and model_key:
            hit = saliency_for_item(
                self.ctx.project, ah, model_key, row.get("reference") or row.get("text")
            )
        can = bool(ah) and self.audio_file(row) is not None and self._saliency_model_ok()
        if hit is not None:
            method = hit.key.method.split(":")[0]
            coarse = is_coarse_key(hit.key.method)
            self.player.set_saliency(
                hit.curve, hit.frame_s, hit.meta.get("words") or (), method=method
            )
            if coarse:
                self.saliency_info.setText(f"{_COARSE}: the exact curve is not computed; {_SCALE}")
                self.saliency_btn.setText("Refine saliency")
                self.saliency_btn.setVisible(True)
                self.saliency_btn.setEnabled(can)
                return
            self.saliency_info.setText(
                f"saliency: {method} ({hit.curve.size} frames of {hit.frame_s * 1000:.0f} ms)"
                f"; {_SCALE}"
            )
            self.saliency_btn.setVisible(False)
            return
        self.saliency_info.setText("no saliency for this item and model")
        self.saliency_btn.setText("Compute saliency")
        self.saliency_btn.setVisible(True)
        self.saliency_btn.setEnabled(can)
        if not can:
            self.saliency_btn.setToolTip(
                "Saliency needs the run's model and the audio: "
                "imported predictions have no model to ask"
            )

    def _saliency_job_for(self, row: dict, *, background: bool = False):
        """A saliency job of ``row`` (not started), or None without audio."""
        from ...jobs import tasks
        from ..jobs import Job

        path = self.audio_file(row) if row is not None else None
        if path is None:
            return None
        ah = self._audio_hash(row)
        text = row.get("reference") or row.get("text") or ""
        item = str(row.get("id", row.get("item_id")))
        job = Job(
            tasks.saliency,
            self.ctx.folder,
            self.run.model,
            str(path),
            ah,
            text,
            device=self.run.device or "auto",
            name="saliency",
            request=item,
        )
        job.background = background
        job.kwargs["partial"] = job.emit_partial
        job.signals.partial.connect(lambda out, it=item: self._saliency_partial(it, out))
        job.signals.result.connect(lambda out, it=item: self._saliency_done(it, out))
        return job

    def compute_saliency(self):
        """Compute the shown item's curve in a background job: the coarse curve is drawn
        first, then refined in place to the exact one."""
        job = self._saliency_job_for(self._row)
        if job is None:
            return None
        job.signals.progress.connect(self._saliency_progress)
        job.signals.error.connect(lambda msg: self._saliency_failed(msg))
        self.saliency_btn.setEnabled(False)
        self.saliency_info.setText("computing saliency…")
        self._saliency_coarse_shown = False
        self._saliency_job = self.ctx.jobs.submit(job, channel="saliency")
        return self._saliency_job

    def _saliency_progress(self, fraction: float, message: str) -> None:
        """Percent done and the step (loading the model, ``occlusion k/n`` scorings done)."""
        step = f" ({html.escape(message)})" if message else ""
        if getattr(self, "_saliency_coarse_shown", False):
            self.saliency_info.setText(
                f"{_COARSE}; refining to the exact curve… {100 * fraction:.0f}%{step}"
            )
            return
        self.saliency_info.setText(f"computing saliency… {100 * fraction:.0f}%{step}")

    def _is_shown(self, item: str) -> bool:
        return self._row is not None and str(self._row.get("id", self._row.get("item_id"))) == item

    def _saliency_partial(self, item: str, out: dict) -> None:
        """The coarse curve of ``item``: drawn at once when the item is shown."""
        if not self._is_shown(item):
            return
        job = self._saliency_job
        if job is not None and job.request == item and job.running:
            self._saliency_coarse_shown = True
        self.player.set_saliency(out["curve"], out["frame_s"], out["words"], method="occlusion")
        if not (job is not None and job.request == item and job.running):
            self.saliency_info.setText(f"{_COARSE}; the exact curve is being computed; {_SCALE}")
            self.saliency_btn.setVisible(False)
        else:
            self.saliency_info.setText(f"{_COARSE}; refining to the exact curve…")

    def _saliency_done(self, item: str, out: dict) -> None:
        self._flag_saliency(item)
        if not self._is_shown(item):
            return  # another item is shown now; the curve is stored for later
        self._saliency_coarse_shown = False
        self.player.set_saliency(out["curve"], out["frame_s"], out["words"], method="occlusion")
        self.saliency_btn.setVisible(False)
        self.saliency_info.setText(f"saliency: occlusion ({len(out['curve'])} frames); {_SCALE}")

    def _flag_saliency(self, item: str) -> None:
        """Mark ``item`` in the table's saliency column."""
        if self.frame is None or "Sal." not in self.model.columns:
            return
        hit = np.flatnonzero(self.frame["id"].astype(str).to_numpy() == item)
        if not hit.size:
            return
        self.frame.loc[hit, "saliency"] = "●"
        for r in hit:
            self.model.set_value(int(r), "Sal.", "●")

    def _saliency_failed(self, message: str) -> None:
        self._saliency_coarse_shown = False
        self.saliency_btn.setEnabled(True)
        self.saliency_info.setText(
            f"<span style='color:#c62828'>saliency failed: {html.escape(message)}</span>"
        )

    # -- precomputing the worst items' curves ----------------------------------------------
    def _start_background_saliency(self) -> None:
        """Look for idle time to precompute curves of the run's worst items."""
        self._bg_tried: set[str] = set()
        self._bg_job = None
        timer = getattr(self, "_bg_timer", None)
        if timer is None:
            timer = self._bg_timer = QTimer(self)
            timer.setInterval(BACKGROUND_POLL_MS)
            timer.timeout.connect(self._background_tick)
        if PRECOMPUTE and str(self.run.model or "").startswith(_SCORING):
            self._preload_saliency_model()
            timer.start()
        else:
            timer.stop()

    def _preload_saliency_model(self) -> None:
        """Load the run's model in the background (once per model), so that the first
        "Compute saliency" finds it loaded (:func:`fairdesk.jobs.tasks.saliency_backend`)."""
        from ...jobs import tasks
        from ..jobs import Job

        key = (str(self.run.model), self.run.device or "auto")
        if getattr(self, "_preloaded_model", None) == key:
            return
        self._preloaded_model = key
        job = Job(tasks.warm_saliency_model, key[0], device=key[1], name="saliency model")
        job.background = True
        self.ctx.jobs.submit(job, channel=None)

    def stop_background_saliency(self) -> None:
        """Stop precomputing (the window closes, another run is shown)."""
        timer = getattr(self, "_bg_timer", None)
        if timer is not None:
            timer.stop()
        job = getattr(self, "_bg_job", None)
        if job is not None and job.running:
            job.cancel()

    def _background_tick(self) -> None:
        job = self._bg_job
        if job is not None and job.running:
            return
        if self.ctx.project is None or self.frame is None or self.ctx.jobs.requests_running():
            return
        row = self._next_background_row()
        if row is None:
            self._bg_timer.stop()  # every one of the worst items has its curve
            return
        job = self._saliency_job_for(row, background=True)
        if job is None:
            return
        job.signals.error.connect(
            lambda msg: self._bg_timer.stop()
        )  # e.g. a model that cannot score
        self._bg_job = self.ctx.jobs.submit(job, channel=None)

    def _next_background_row(self) -> dict | None:
        """The worst-ranked item with errors, audio and no stored curve not tried yet."""
        df = self.frame
        n = 0
        for r in range(len(df)):
            if n >= BACKGROUND_ITEMS:
                return None
            if not bool(self._bad[r]):
                continue
            n += 1
            key = str(df["id"].iat[r])
            if key in self._bg_tried or df["saliency"].iat[r] == "●":
                continue
            row = self._record(r)
            self._bg_tried.add(key)
            if self._audio_hash(row) and self.audio_file(row) is not None:
                return row
        return None
