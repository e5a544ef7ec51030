"""The one small interface every inference backend implements.

A backend turns audio (float32 mono arrays at :data:`fairdesk.constants.SAMPLE_RATE`) into
plain data: :class:`Transcription`, embeddings, log-probabilities and :class:`Classification`.
Nothing here imports torch, transformers or ctranslate2.
"""

from __future__ import annotations

import hashlib
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import numpy as np

from fairdesk.constants import SAMPLE_RATE

_T = TypeVar("_T")

#: Every capability a backend may declare.
CAPABILITIES = frozenset({"transcribe", "embed", "score", "classify"})

#: Bytes hashed from the start and from the end of each weights file (see :func:`weights_digest`).
HASH_EDGE_BYTES = 1 << 20


@dataclass(frozen=True)
class Word:
    """One recognised word.

    Attributes
    ----------
    text : str
        The word as the model wrote it (punctuation attached, no surrounding spaces).
    start, end : float or None
        Times in seconds from the start of the clip; None when the model gives no timing.
    probability : float or None
        The model's probability for the word (in [0, 1]), or None when not available.
    """

    text: str
    start: float | None
    end: float | None
    probability: float | None


@dataclass(frozen=True)
class Transcription:
    """The result of transcribing one clip.

    Attributes
    ----------
    text : str
        The full hypothesis, stripped.
    words : tuple of Word
        Word-level detail (may be empty when the backend gives none).
    confidence : float or None
        Utterance confidence in [0, 1]; each backend documents how it is computed.
    language : str or None
        Language code of the hypothesis when known.
    """

    text: str
    words: tuple[Word, ...] = ()
    confidence: float | None = None
    language: str | None = None


@dataclass(frozen=True)
class Classification:
    """The result of classifying one clip.

    Attributes
    ----------
    label : str
        The winning label.
    confidence : float
        Probability of the winning label.
    scores : dict
        Probability of every label (sums to 1).
    """

    label: str
    confidence: float
    scores: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ModelInfo:
    """One entry of :func:`fairdesk.models.list_models`.

    Attributes
    ----------
    id : str
        The id to pass to :func:`fairdesk.models.get_backend` (a template such as
        ``hf:<folder>`` for parametrised backends).
    kind : str
        ``"asr"``, ``"asr/classifier"``, ``"predictions"`` ...
    description : str
        One line for people.
    available : bool
        Whether it can be loaded on this machine now.
    reason : str
        Why it is not available (empty when it is).
    """

    id: str
    kind: str
    description: str
    available: bool
    reason: str = ""


class Backend(ABC):
    """An inference backend: one loaded model plus its decoding settings.

    Subclasses set :attr:`capabilities` and override the methods they support; the others
    raise :class:`NotImplementedError` naming the model. Backends are context managers
    (``with get_backend(...) as b:``) and release their model on :meth:`close`.
    """

    #: Capabilities this backend supports (subset of :data:`CAPABILITIES`).
    capabilities: frozenset[str] = frozenset()

    #: How many threads a caller should use to feed this backend. 1 for every built-in
    #: backend: each already uses all the cores it is given (or holds one decoder).
    preferred_workers: int = 1

    #: Set by subclasses in ``__init__``: the model id and where it runs.
    _id: str = ""
    _device: str = "cpu"
    #: Set when ``--device auto`` fell back to the CPU from a GPU that does not work
    #: (:func:`fairdesk.models.device.fallback`: the library and why).
    _device_fallback: tuple[str, str] | None = None

    @property
    def id(self) -> str:
        """The model id, as given to :func:`fairdesk.models.get_backend`."""
        return self._id

    @property
    @abstractmethod
    def fingerprint(self) -> str:
        """Hex digest identifying the weights and the decoding settings (stable across runs)."""

    @property
    def device(self) -> str:
        """Where the model runs: ``"cpu"`` or ``"cuda"`` (``"none"`` for imported results)."""
        return self._device

    @property
    def device_fallback(self) -> tuple[str, str] | None:
        """(library, why) when the model runs on the CPU although ``auto`` was asked for
        and a GPU is there (it does not work), else None; the audit says it in the run's
        notes."""
        return self._device_fallback

    @property
    def settings(self) -> dict:
        """The decoding settings that enter :attr:`fingerprint` (JSON-ready)."""
        return {}

    def supports(self, capability: str) -> bool:
        """Return whether ``capability`` is one of :attr:`capabilities`."""
        return capability in self.capabilities

    def _unsupported(self, capability: str, why: str = "") -> NotImplementedError:
        have = ", ".join(sorted(self.capabilities)) or "none"
        msg = f"model {self.id!r} does not support {capability!r} (it supports: {have})"
        if why:
            msg += f"; {why}"
        return NotImplementedError(msg)

    def transcribe(self, audios: Sequence[np.ndarray]) -> list[Transcription]:
        """Transcribe a batch of clips.

        Parameters
        ----------
        audios : sequence of numpy.ndarray
            float32 mono clips at 16 kHz.

        Returns
        -------
        list of Transcription
            One per clip, in order.
        """
        raise self._unsupported("transcribe")

    def embed(self, audios: Sequence[np.ndarray]) -> np.ndarray:
        """Embed a batch of clips: encoder states mean-pooled over the frames of the audio.

        Padding frames beyond each clip's length are excluded, so a clip's embedding does not
        depend on the other clips in its batch.

        Returns
        -------
        numpy.ndarray
            float32 array of shape ``(len(audios), d)``.
        """
        raise self._unsupported("embed")

    def score(self, audio: np.ndarray, text: str) -> float:
        """Log-probability (natural log) of ``text`` given ``audio`` under the model."""
        raise self._unsupported("score")

    def score_many(self, audios: Sequence[np.ndarray], texts: Sequence[str]) -> list[float]:
        """:meth:`score` for many (audio, text) pairs (backends may batch it)."""
        if "score" not in self.capabilities:
            raise self._unsupported("score")
        if len(audios) != len(texts):
            raise ValueError(f"{len(audios)} clips but {len(texts)} texts")
        return [self.score(a, t) for a, t in zip(audios, texts, strict=True)]

    def classify(self, audios: Sequence[np.ndarray]) -> list[Classification]:
        """Classify a batch of clips (one :class:`Classification` per clip)."""
        raise self._unsupported("classify")

    def close(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release the model (idempotent)."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id!r} on {self.device}>"


# ---------------------------------------------------------------------------------------------
# helpers shared by the backends


def as_audio_batch(audios: Sequence[np.ndarray] | np.ndarray) -> list[np.ndarray]:
    """Validate a batch and return contiguous float32 1-D arrays.

    Integer arrays are scaled to [-1, 1). A single 1-D array is refused (wrap it in a list)
    so that a clip is never mistaken for a batch of scalars.

    Raises
    ------
    TypeError, ValueError
        Naming the offending item.
    """
    if isinstance(audios, np.ndarray) and audios.ndim == 1:
        raise TypeError("expected a list of clips, got one 1-D array: pass [audio]")
    out = []
    for i, a in enumerate(audios):
        a = np.asarray(a)
        if a.ndim != 1:
            raise ValueError(
                f"audio item {i} has shape {a.shape}: expected mono 1-D samples at "
                f"{SAMPLE_RATE} Hz (mix down and resample first)"
            )
        if np.issubdtype(a.dtype, np.integer):
            a = a.astype(np.float32) / float(np.iinfo(a.dtype).max + 1)
        a = np.ascontiguousarray(a, dtype=np.float32)
        if a.size and not np.all(np.isfinite(a)):
            raise ValueError(f"audio item {i} contains NaN or infinite samples")
        out.append(a)
    return out


def all_filled(out: Sequence[_T | None], model_id: str) -> list[_T]:
    """The per-clip results of a batched call, every clip's slot filled (a backend's
    batches cover every clip): RuntimeError naming the first clip without one otherwise."""
    done = [x for x in out if x is not None]
    if len(done) != len(out):
        i = next(i for i, x in enumerate(out) if x is None)
        raise RuntimeError(f"{model_id}: no result for audio item {i}")
    return done


def require_nonempty(audios: list[np.ndarray], model_id: str, what: str) -> None:
    """Raise ValueError naming the first empty clip (embedding/scoring need samples)."""
    for i, a in enumerate(audios):
        if a.size == 0:
            raise ValueError(f"{model_id}: cannot {what} audio item {i}: it has no samples")


def weights_digest(paths: Iterable[str | os.PathLike], edge: int = HASH_EDGE_BYTES) -> str:
    """Cheap, content-based digest of model files.

    Each file contributes its name and size; files up to ``2 * edge`` bytes are hashed in
    full (configs, tokenizers), larger ones by their first and last ``edge`` bytes. This reads
    at most 2 MiB per weights file, does not change when a file is copied or its mtime is
    touched, and changes when the weights are replaced (a different size or different bytes
    at either end; a same-size edit confined to the middle of a file would go unnoticed).

    Parameters
    ----------
    paths : iterable of path-like
        Files to include (order does not matter; missing files are skipped).

    Returns
    -------
    str
        sha256 hex digest.
    """
    h = hashlib.sha256()
    for p in sorted(Path(p) for p in paths):
        if not p.is_file():
            continue
        size = p.stat().st_size
        h.update(f"{p.name}\0{size}\0".encode())
        with open(p, "rb") as f:
            if size <= 2 * edge:
                h.update(f.read())
            else:
                h.update(f.read(edge))
                f.seek(size - edge)
                h.update(f.read(edge))
    return h.hexdigest()


def file_digest(path: str | os.PathLike) -> str:
    """sha256 of a file's whole content."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def make_fingerprint(model_id: str, weights: str, settings: dict, versions: dict) -> str:
    """Combine model id, weights digest, decoding settings and library versions into one hash."""
    blob = json.dumps(
        {"model": model_id, "weights": weights, "settings": settings, "versions": versions},
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def package_version(name: str) -> str:
    """Installed version of a distribution, or ``"?"``."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "?"
