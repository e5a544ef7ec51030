"""Saliency: a per-frame importance curve of one clip for one target (docs/METHODS.md, "Saliency").

The target is the log-probability of a text (the reference transcript) given the audio,
``backend.score(audio, text)``. Every method returns a :class:`Saliency` whose ``curve`` has
one value per *frame* of the clip.

Definitions
-----------
frame
    ``frame_s`` seconds (default 10 ms = 160 samples, Whisper's mel hop; wav2vec2's 20 ms
    frames are two of them). A clip of ``n`` samples has ``ceil(n / frame_samples)`` frames;
    frame ``f`` covers samples ``[f·fs, (f+1)·fs)`` (the last one may be shorter).
occlusion (any backend with ``score``)
    Windows of ``window_s`` seconds (default 0.1 s) start every ``stride_s`` seconds (default
    = the window; the stride may not exceed the window, so every sample is covered) from 0
    to the end of the clip; the last window is cut at the clip's end. Each window is masked
    in a copy of the clip and the copy scored. The *drop* of a window is
    ``score(clip) − score(masked copy)`` (positive: the window supports the transcript).
    The importance of a frame is the mean drop of the windows that cover the frame's centre
    (exactly one window when the stride equals the window). Masks: ``"zero"`` (default;
    the samples are set to 0, i.e. digital silence) or ``"noise"`` (the samples are replaced
    by white Gaussian noise of RMS ``NOISE_RMS`` = 1e-3, i.e. −60 dBFS, drawn from a
    generator seeded by ``(seed, window start)``, so the same call gives the same curve;
    it avoids a hard digital-silence edge that some models treat as a cue). The masked copies
    are scored through ``backend.score_many`` in batches of ``batch_size``, ``workers``
    batches at once (from as many threads, for a backend that serves concurrent calls; each
    score lands at its copy's index, so the curve does not depend on the order they finish
    in); ``cancelled()`` is checked before each batch and raises
    :class:`fairdesk.core.errors.Cancelled`.
short context (``context_s``, an opt-in approximation; backends with ``score_context``)
    Every copy, the unmasked clip included, is scored with the model's input padded to
    ``context_s`` seconds instead of its own window (Whisper: 30 s of log-mel frames), so
    each encoder pass is about ``30 / context_s`` times cheaper. The scores differ from the
    30 s ones, so the curve is not today's exact curve: measured with
    ``bench/explain_occlusion.py`` against it (:data:`CONTEXT_MEASURED`). It is recorded in
    ``params["context_s"]`` and so in the cache's method key; ``None`` (default) is the
    exact curve, whose key has no ``context_s``.
gradient × input (differentiable backends: ``model_input`` + ``score_with_grad``)
    In the model's own input space (Whisper: the normalised log-mel features, 10 ms per
    step; CTC models: the normalised waveform, one step per sample), attribution
    ``a = x · ∂score/∂x`` per input element.
integrated gradients
    Baseline ``x' = 0`` in that input space (for Whisper features that is a constant low
    log-mel level, not digital silence; for normalised waveforms it is silence);
    ``a = (x − x') · mean_k ∂score/∂x (x' + α_k (x − x'))`` with the midpoint rule
    ``α_k = (k + 0.5) / steps``, ``k = 0 … steps−1`` (default 32 steps). Completeness:
    ``Σ a ≈ score(x) − score(x')``; the gap is reported in ``meta["completeness_gap"]``.
    The scaled inputs go through ``score_with_grad`` in batches, with ``cancelled()``
    checked between batches. Caveat: a model whose output does not change with the input's
    scale (wav2vec2-style CTC models whose convolutional feature encoder starts with a
    bias-free convolution and a layer norm) has ``score(α·x)`` constant for α > 0 and a jump
    at α = 0, so from a zero baseline the path integral misses the difference and
    completeness fails (measured on a tiny random wav2vec2: Σ a = 0.11 vs
    score(x) − score(0) = −0.95); the gap is in ``meta["completeness_gap"]``, and occlusion or
    gradient × input are the better choice for such models.
gradient curves
    A frame's value is ``Σ |a|`` over the input elements whose time step's centre falls in
    the frame (absolute values: evidence for and against the transcript both count as
    importance). Input steps that cover padding (Whisper's zero padding to 30 s) are not
    part of the curve, but they are part of the completeness sum.

All methods are deterministic (no sampling beyond the seeded noise mask).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

import numpy as np

from ..constants import SAMPLE_RATE
from ..core.errors import Cancelled

DEFAULT_WINDOW_S = 0.1
DEFAULT_FRAME_S = 0.01
DEFAULT_STEPS = 32
DEFAULT_BATCH = 16
MASKS = ("zero", "noise")
#: RMS of the replacement noise of the ``"noise"`` mask (−60 dBFS).
NOISE_RMS = 1e-3
#: Every method id (``explain_method`` of an audit).
METHODS = ("occlusion", "gradxinput", "integrated_gradients")
#: Spearman correlation of short-context occlusion with the exact (30 s) occlusion, per clip,
#: on 20 demo clips of 2.0-2.9 s (whisper-tiny.en int8; mean, median, minimum): at 15 s the
#: frame curves (bench/explain_occlusion.py), at 10 s and 5 s the window drops (a one-off
#: probe of the same clips). All below the 0.9 the explain stage would need, so the exact
#: curve stays the default.
CONTEXT_MEASURED = {
    5.0: (0.725, 0.733, 0.452),
    10.0: (0.858, 0.876, 0.681),
    15.0: (0.887, 0.906, 0.724),
}
GRADIENT_METHODS = ("gradxinput", "integrated_gradients")


@dataclass(frozen=True)
class Saliency:
    """One saliency curve.

    Attributes
    ----------
    curve : float32 array, one importance per frame.
    frame_s : frame length in seconds.
    method : ``"occlusion"``, ``"gradxinput"`` or ``"integrated_gradients"``.
    params : the method's settings (window_s, stride_s, mask / steps ...).
    score : the target log-probability of the unmasked clip.
    meta : extra numbers (windows, drops, completeness ...), JSON-ready.
    """

    curve: np.ndarray
    frame_s: float
    method: str
    params: dict
    score: float
    meta: dict = field(default_factory=dict)

    @property
    def key(self) -> str:
        """The method with its settings, as stored in the cache (see :func:`method_key`)."""
        return method_key(self.method, frame_s=self.frame_s, **self.params)

    @property
    def times(self) -> np.ndarray:
        """Centre time of every frame (seconds)."""
        return (np.arange(self.curve.size) + 0.5) * self.frame_s


def method_key(method: str, **params) -> str:
    """``method:k=v,...`` with the settings sorted: the ``method`` column of the cache."""
    if method not in METHODS:
        raise ValueError(f"unknown saliency method {method!r}; use one of {', '.join(METHODS)}")
    body = ",".join(f"{k}={_fmt(v)}" for k, v in sorted(params.items()) if v is not None)
    return f"{method}:{body}"


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def frame_samples(frame_s: float) -> int:
    fs = int(round(float(frame_s) * SAMPLE_RATE))
    if fs < 1:
        raise ValueError(f"frame_s must be at least one sample (1/{SAMPLE_RATE} s), not {frame_s}")
    return fs


def n_frames(n_samples: int, frame_s: float = DEFAULT_FRAME_S) -> int:
    """Frames of a clip of ``n_samples`` samples (the last frame may be partial)."""
    return int(math.ceil(int(n_samples) / frame_samples(frame_s)))


def _frame_centres(n_samples: int, frame_s: float) -> np.ndarray:
    fs = frame_samples(frame_s)
    c = (np.arange(n_frames(n_samples, frame_s)) + 0.5) * fs
    return np.minimum(c, n_samples - 0.5)


def occlusion_windows(
    n_samples: int, window_s: float = DEFAULT_WINDOW_S, stride_s: float | None = None
) -> list[tuple[int, int]]:
    """``(start, end)`` sample ranges of the occlusion windows of a clip."""
    w = int(round(float(window_s) * SAMPLE_RATE))
    s = w if stride_s is None else int(round(float(stride_s) * SAMPLE_RATE))
    if w < 1 or s < 1:
        raise ValueError(f"window_s and stride_s must be positive (got {window_s}, {stride_s})")
    if s > w:
        raise ValueError(
            f"stride_s ({stride_s}) may not exceed window_s ({window_s}): frames "
            "between windows would get no importance"
        )
    out = []
    start = 0
    while start < n_samples:
        out.append((start, min(start + w, n_samples)))
        if start + w >= n_samples:
            break
        start += s
    return out


def _check(cancelled: Callable[[], bool] | None) -> None:
    if cancelled is not None and cancelled():
        raise Cancelled("cancelled by the user")


def _mask(audio: np.ndarray, start: int, end: int, mask: str, seed: int) -> np.ndarray:
    x = audio.copy()
    if mask == "zero":
        x[start:end] = 0.0
    else:
        rng = np.random.default_rng([int(seed), int(start)])
        x[start:end] = (NOISE_RMS * rng.standard_normal(end - start)).astype(np.float32)
    return x


def _as_clip(audio) -> np.ndarray:
    a = np.ascontiguousarray(np.asarray(audio, dtype=np.float32))
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"saliency needs one non-empty mono clip, got shape {a.shape}")
    return a


def occlusion(
    backend,
    audio: np.ndarray,
    text: str,
    *,
    window_s: float = DEFAULT_WINDOW_S,
    stride_s: float | None = None,
    frame_s: float = DEFAULT_FRAME_S,
    mask: str = "zero",
    batch_size: int = DEFAULT_BATCH,
    seed: int = 0,
    context_s: float | None = None,
    workers: int = 1,
    cancelled: Callable[[], bool] | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> Saliency:
    """Occlusion saliency of ``audio`` for ``score(audio, text)`` (see the module docstring).

    Parameters
    ----------
    backend : anything with ``score_many(audios, texts)`` (or ``score``).
    audio : float32 mono clip at 16 kHz.
    text : the target transcript.
    window_s, stride_s : window length and hop (stride defaults to the window).
    frame_s : frame of the curve.
    mask : ``"zero"`` or ``"noise"``.
    batch_size : masked copies per ``score_many`` call.
    seed : seed of the noise mask.
    context_s : score with the model input padded to this many seconds (a faster
        approximation, see the module docstring); None: the model's own window (exact).
    workers : batches scored at once, each from its own thread (the backend must serve
        concurrent calls, e.g. CTranslate2 with as many workers); the same scores as one
        at a time.
    cancelled : ``() -> bool``; when it returns True, :class:`Cancelled` is raised.
    progress : ``(fraction, message)``, after every batch, the message
        ``"occlusion k/n"`` (scorings done of all).
    """
    if mask not in MASKS:
        raise ValueError(f"mask must be one of {MASKS}, not {mask!r}")
    kw = {}
    if context_s is not None:
        if not getattr(backend, "score_context", False):
            raise ValueError(
                f"context_s needs a model that can score on a shorter input window "
                f"(whisper-tiny.en, ct2:<folder>); {getattr(backend, 'id', backend)!r} cannot: "
                "leave context_s unset"
            )
        if not float(context_s) > 0:
            raise ValueError(f"context_s must be positive, not {context_s}")
        kw["context_s"] = float(context_s)
    audio = _as_clip(audio)
    stride_s = window_s if stride_s is None else stride_s
    windows = occlusion_windows(audio.size, window_s, stride_s)
    batch_size = max(1, int(batch_size))
    # index 0 is the unmasked clip, index i the clip with window i - 1 masked
    n = len(windows) + 1
    scores = np.empty(n)
    batches = [list(range(b0, min(n, b0 + batch_size))) for b0 in range(0, n, batch_size)]

    def score(idx: list[int]) -> list[int]:
        clips = [audio if i == 0 else _mask(audio, *windows[i - 1], mask, seed) for i in idx]
        scores[idx] = np.asarray(scores_of(backend, clips, [text] * len(clips), **kw), float)
        return idx

    done = 0

    def report(idx: list[int]) -> None:
        nonlocal done
        done += len(idx)
        if progress is not None:
            progress(min(1.0, done / n), f"occlusion {done}/{n}")

    if int(workers) <= 1:
        for idx in batches:
            _check(cancelled)
            report(score(idx))
    else:
        with ThreadPoolExecutor(int(workers), thread_name_prefix="occlusion") as pool:
            queue, running = iter(batches), set()
            while True:
                for idx in queue:
                    _check(cancelled)  # on a cancel, the running batches finish first
                    running.add(pool.submit(score, idx))
                    if len(running) >= int(workers):
                        break
                if not running:
                    break
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for f in finished:
                    report(f.result())
    base = float(scores[0])
    drops = base - scores[1:]
    centres = _frame_centres(audio.size, frame_s)
    total = np.zeros(centres.size)
    count = np.zeros(centres.size)
    for (s, e), d in zip(windows, drops, strict=True):
        m = (centres >= s) & (centres < e)
        total[m] += d
        count[m] += 1
    curve = np.where(count > 0, total / np.maximum(count, 1), 0.0)
    if not np.all(np.isfinite(curve)):
        raise ValueError("occlusion gave non-finite scores (the model scored the text -inf?)")
    params = {"window_s": float(window_s), "stride_s": float(stride_s), "mask": mask, **kw}
    meta = {
        "windows_s": [[s / SAMPLE_RATE, e / SAMPLE_RATE] for s, e in windows],
        "drops": [float(d) for d in drops],
        "n_scored": len(windows) + 1,
        "duration_s": audio.size / SAMPLE_RATE,
    }
    return Saliency(curve.astype(np.float32), float(frame_s), "occlusion", params, base, meta)


# -- gradient methods ---------------------------------------------------------------------------
def is_differentiable(backend) -> bool:
    """Whether the backend offers ``model_input`` and ``score_with_grad`` (hf torch models)."""
    return (
        bool(getattr(backend, "differentiable", False))
        and callable(getattr(backend, "score_with_grad", None))
        and callable(getattr(backend, "model_input", None))
    )


def _require_grad(backend, method: str) -> None:
    from ..core.optional import require_torch

    require_torch(f"saliency by {method}")
    if not is_differentiable(backend):
        raise ValueError(
            f"{method} needs a differentiable (torch) model such as hf:<folder> (CTC or "
            f"seq2seq); model {getattr(backend, 'id', backend)!r} is not: use occlusion"
        )


def _reduce(
    attr: np.ndarray, step_s: float, n_valid: int, n_samples: int, frame_s: float
) -> np.ndarray:
    """Σ|a| per frame over the input steps (time-major) whose centre falls in the frame."""
    nf = n_frames(n_samples, frame_s)
    per_step = np.abs(np.asarray(attr, dtype=np.float64)).reshape(attr.shape[0], -1).sum(axis=1)
    per_step = per_step[:n_valid]
    frame_of = np.floor((np.arange(per_step.size) + 0.5) * step_s / frame_s).astype(np.int64)
    keep = frame_of < nf
    return np.bincount(frame_of[keep], weights=per_step[keep], minlength=nf)[:nf]


def gradient_x_input(
    backend,
    audio: np.ndarray,
    text: str,
    *,
    frame_s: float = DEFAULT_FRAME_S,
    cancelled: Callable[[], bool] | None = None,
) -> Saliency:
    """Gradient × input saliency (see the module docstring)."""
    _require_grad(backend, "gradient × input")
    audio = _as_clip(audio)
    _check(cancelled)
    x, step_s, n_valid = backend.model_input(audio)
    x = np.asarray(x, dtype=np.float32)
    scores, grads = backend.score_with_grad(x[None], text)
    attr = x * np.asarray(grads[0], dtype=np.float32)
    curve = _reduce(attr, step_s, n_valid, audio.size, frame_s)
    meta = {
        "attribution_sum": float(attr.sum(dtype=np.float64)),
        "input_step_s": step_s,
        "duration_s": audio.size / SAMPLE_RATE,
    }
    return Saliency(
        curve.astype(np.float32), float(frame_s), "gradxinput", {}, float(scores[0]), meta
    )


def integrated_gradients(
    backend,
    audio: np.ndarray,
    text: str,
    *,
    steps: int = DEFAULT_STEPS,
    batch_size: int = 8,
    frame_s: float = DEFAULT_FRAME_S,
    cancelled: Callable[[], bool] | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> Saliency:
    """Integrated gradients from a zero baseline (see the module docstring)."""
    _require_grad(backend, "integrated gradients")
    steps = int(steps)
    if steps < 1:
        raise ValueError(f"steps must be >= 1, not {steps}")
    audio = _as_clip(audio)
    x, step_s, n_valid = backend.model_input(audio)
    x = np.asarray(x, dtype=np.float32)
    baseline = np.zeros_like(x)
    alphas = (np.arange(steps) + 0.5) / steps
    grad_sum = np.zeros(x.shape, dtype=np.float64)
    batch_size = max(1, int(batch_size))
    for b0 in range(0, steps, batch_size):
        _check(cancelled)
        a = alphas[b0 : b0 + batch_size].astype(np.float32)
        batch = baseline[None] + a.reshape(-1, *([1] * x.ndim)) * (x - baseline)[None]
        _, grads = backend.score_with_grad(batch, text)
        grad_sum += np.asarray(grads, dtype=np.float64).sum(axis=0)
        if progress is not None:
            progress(min(1.0, (b0 + len(a)) / steps), "integrated gradients")
    _check(cancelled)
    ends, _ = backend.score_with_grad(np.stack([x, baseline]), text)
    attr = (x - baseline) * (grad_sum / steps)
    curve = _reduce(attr, step_s, n_valid, audio.size, frame_s)
    f_x, f_b = float(ends[0]), float(ends[1])
    total = float(attr.sum(dtype=np.float64))
    meta = {
        "attribution_sum": total,
        "score_baseline": f_b,
        "completeness_gap": total - (f_x - f_b),
        "input_step_s": step_s,
        "baseline": "zeros (model input space)",
        "duration_s": audio.size / SAMPLE_RATE,
    }
    return Saliency(
        curve.astype(np.float32),
        float(frame_s),
        "integrated_gradients",
        {"steps": steps},
        f_x,
        meta,
    )


def compute_saliency(
    backend,
    audio: np.ndarray,
    text: str,
    method: str = "occlusion",
    *,
    window_s: float = DEFAULT_WINDOW_S,
    stride_s: float | None = None,
    frame_s: float = DEFAULT_FRAME_S,
    mask: str = "zero",
    steps: int = DEFAULT_STEPS,
    batch_size: int | None = None,
    context_s: float | None = None,
    workers: int = 1,
    cancelled: Callable[[], bool] | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> Saliency:
    """Dispatch on ``method`` (one of :data:`METHODS`); ``context_s`` and ``workers`` are
    occlusion's."""
    if method == "occlusion":
        return occlusion(
            backend,
            audio,
            text,
            window_s=window_s,
            stride_s=stride_s,
            frame_s=frame_s,
            mask=mask,
            batch_size=batch_size or DEFAULT_BATCH,
            context_s=context_s,
            workers=workers,
            cancelled=cancelled,
            progress=progress,
        )
    if method == "gradxinput":
        return gradient_x_input(backend, audio, text, frame_s=frame_s, cancelled=cancelled)
    if method == "integrated_gradients":
        return integrated_gradients(
            backend,
            audio,
            text,
            steps=steps,
            frame_s=frame_s,
            batch_size=batch_size or 8,
            cancelled=cancelled,
            progress=progress,
        )
    raise ValueError(f"unknown saliency method {method!r}; use one of {', '.join(METHODS)}")


def method_params(
    method: str,
    *,
    window_s: float = DEFAULT_WINDOW_S,
    stride_s: float | None = None,
    mask: str = "zero",
    steps: int = DEFAULT_STEPS,
    context_s: float | None = None,
) -> dict:
    """The settings of ``method`` as recorded in :attr:`Saliency.params`."""
    if method == "occlusion":
        out = {
            "window_s": float(window_s),
            "stride_s": float(window_s if stride_s is None else stride_s),
            "mask": mask,
        }
        if context_s is not None:
            out["context_s"] = float(context_s)
        return out
    if method == "integrated_gradients":
        return {"steps": int(steps)}
    if method == "gradxinput":
        return {}
    raise ValueError(f"unknown saliency method {method!r}; use one of {', '.join(METHODS)}")


def scores_of(backend, audios: Sequence[np.ndarray], texts: Sequence[str], **kw) -> list[float]:
    """``score_many`` or a loop of ``score`` (for stand-in backends); ``kw`` (``context_s``)
    goes to ``score_many`` only."""
    fn = getattr(backend, "score_many", None)
    if fn is not None:
        return list(fn(audios, texts, **kw))
    return [backend.score(a, t) for a, t in zip(audios, texts, strict=True)]
