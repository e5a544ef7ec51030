"""One shard of model work: decode a few items' audio and run the model on them (transcripts
or embeddings). Shared by the local engine (:mod:`.audit`, :mod:`.representation`) and the Ray
engine (:mod:`.engines`), so it lives below both."""

from __future__ import annotations

from ..core import spans
from ..core.audio_paths import audio_file
from ..core.errors import AudioError
from ..core.run_items import prediction_to_dict


def _predict_shard(backend, root, rows) -> list[tuple[int, dict | None, str | None]]:
    """Run one shard; returns (row index, prediction dict, failure reason) per item."""
    out: list[tuple[int, dict | None, str | None]] = []
    lookup = getattr(backend, "lookup", None)
    if lookup is not None:  # imported predictions: no audio needed
        for idx, key, rel, *_ in rows:
            p = lookup(key, rel)
            if p is None:
                why = getattr(backend, "missing_reason", None)
                out.append(
                    (
                        idx,
                        None,
                        why(key, rel)
                        if why
                        else "no prediction for this item in the imported file",
                    )
                )
            else:
                out.append((idx, prediction_to_dict(p), None))
        return out
    return out + predict_audio(backend, load_shard_audio(root, rows))


def load_shard_audio(root, rows) -> list[tuple[int, object, str | None]]:
    """Decode a shard's audio: ``(row index, samples or None, failure reason)`` per item.

    ``rows`` are ``(row index, key, relative path[, span])``: ``span`` is the item's
    ``(start_s, end_s)`` in its file (:func:`fairdesk.core.spans.span_of`) or None for the
    whole file; only the span is decoded.
    """
    loaded: list[tuple[int, object, str | None]] = []
    for idx, _key, rel, *rest in rows:
        span = rest[0] if rest and isinstance(rest[0], tuple) else None
        start, end = span if span is not None else (None, None)
        try:
            loaded.append(
                (idx, spans.load(audio_file(root, rel), start_s=start, end_s=end).samples, None)
            )
        except AudioError as exc:
            loaded.append((idx, None, exc.reason))
    return loaded


def predict_audio(backend, loaded) -> list[tuple[int, dict | None, str | None]]:
    """Run the backend on decoded audio (:func:`load_shard_audio`), one batch per shard."""
    out: list[tuple[int, dict | None, str | None]] = [
        (idx, None, why) for idx, a, why in loaded if a is None
    ]
    ok = [idx for idx, a, _ in loaded if a is not None]
    audios = [a for _, a, _ in loaded if a is not None]
    if not ok:
        return out
    caps = getattr(backend, "capabilities", {"transcribe"})
    method = backend.transcribe if "transcribe" in caps else backend.classify
    try:
        preds = method(audios)
        out += [(i, prediction_to_dict(p), None) for i, p in zip(ok, preds)]
    except Exception:  # isolate the item that breaks the batch
        for i, a in zip(ok, audios):
            try:
                out.append((i, prediction_to_dict(method([a])[0]), None))
            except Exception as exc:  # noqa: BLE001 - a model error is a per-item failure
                out.append((i, None, f"model error: {type(exc).__name__}: {exc}"))
    return out


def embed_audio(backend, loaded) -> list[tuple[int, object]]:
    """Embed decoded audio (:func:`load_shard_audio`) in one ``backend.embed`` call:
    ``(row index, float32 vector, or None for an unreadable item)`` per item."""
    import numpy as np

    ok = [(idx, a) for idx, a, _ in loaded if a is not None]
    got: dict[int, object] = {}
    if ok:
        vecs = np.asarray(backend.embed([a for _, a in ok]), dtype=np.float32)
        got = {idx: v for (idx, _), v in zip(ok, vecs)}
    return [(idx, got.get(idx)) for idx, _, _ in loaded]
