"""The item view's saliency overlay (explain stage): the table's saliency column, the stored
curve of the shown item drawn on the waveform, and computing one in a background job.
Mixed into :class:`~.item_panel.ItemPanel` (it uses the panel's widgets and state)."""

from __future__ import annotations

import html

import numpy as np

from ..core.caches import saliency_hashes

#: How to read the overlay (the scale itself is the waveform's right axis).
_SCALE = "orange: saliency, scale on the right axis (hover it); green: reference words"


class SaliencyMixin:
    """The saliency part of :class:`~.item_panel.ItemPanel`."""

    def _saliency_flags(self, df) -> list[str]:
        model_key = self.run.model_key
        if self._items is None or not model_key:
            return [""] * len(df)
        have = saliency_hashes(self.ctx.project, model_key)
        hashes = self._items["audio_hash"].reindex(df["id"].astype(str)).to_numpy()
        return ["●" if h in have else "" for h in hashes]

    def _show_saliency(self, row: dict) -> None:
        """Overlay the stored saliency of the item for the run's model, or offer to compute it."""
        from ..jobs.explain_stage import saliency_for_item

        model_key = self.run.model_key
        ah = self._audio_hash(row)
        hit = None
        if ah and model_key:
            hit = saliency_for_item(
                self.ctx.project, ah, model_key, row.get("reference") or row.get("text")
            )
        if hit is not None:
            method = hit.key.method.split(":")[0]
            self.player.set_saliency(
                hit.curve, hit.frame_s, hit.meta.get("words") or (), method=method
            )
            self.saliency_info.setText(
                f"saliency: {method} ({hit.curve.size} frames of {hit.frame_s * 1000:.0f} ms)"
                f"; {_SCALE}"
            )
            self.saliency_btn.setVisible(False)
            return
        self.saliency_info.setText("no saliency for this item and model")
        model = str(self.run.model or "")
        can = bool(ah) and self.audio_file(row) is not None and not model.startswith("predictions:")
        self.saliency_btn.setVisible(True)
        self.saliency_btn.setEnabled(can)
        if not can:
            self.saliency_btn.setToolTip(
                "Saliency needs the run's model and the audio: "
                "imported predictions have no model to ask"
            )

    def compute_saliency(self):
        """Run occlusion for the shown item in a background job; draws it when done."""
        from ..jobs import tasks
        from .jobs import Job

        row = self._row
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
        job.signals.progress.connect(self._saliency_progress)
        job.signals.result.connect(lambda out, it=item: self._saliency_done(it, out))
        job.signals.error.connect(lambda msg: self._saliency_failed(msg))
        self.saliency_btn.setEnabled(False)
        self.saliency_info.setText("computing saliency…")
        self._saliency_job = self.ctx.jobs.submit(job, channel="saliency")
        return self._saliency_job

    def _saliency_progress(self, fraction: float, message: str) -> None:
        """Percent done and the step (loading the model, ``occlusion k/n`` scorings done)."""
        step = f" ({html.escape(message)})" if message else ""
        self.saliency_info.setText(f"computing saliency… {100 * fraction:.0f}%{step}")

    def _saliency_done(self, item: str, out: dict) -> None:
        self._flag_saliency(item)
        if self._row is None or str(self._row.get("id", self._row.get("item_id"))) != item:
            return  # another item is shown now; the curve is stored for later
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
        self.saliency_btn.setEnabled(True)
        self.saliency_info.setText(
            f"<span style='color:#c62828'>saliency failed: {html.escape(message)}</span>"
        )
