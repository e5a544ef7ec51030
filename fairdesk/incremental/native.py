"""A true streaming engine's own partial results (docs/METHODS.md, "Streaming policies"; Whetten et al.'s PocketSphinx).

Policy ``native``: the engine keeps its own state across chunks, so nothing is re-decoded.
Audio arrives in chunks of ``chunk_s`` as for the re-decoding policies; each chunk is fed to
the engine's stream (``open_stream().feed(chunk)``) and the update shows the engine's current
partial hypothesis; the flush ends the utterance (``finish()``), and its final hypothesis is
the last update (PocketSphinx rescores the best path there, so the flush may revoke words).

Log fields: ``span`` is the audio the call processed (``(previous t, t)`` for a chunk,
``(0, duration)`` for the flush, which searches the whole utterance's lattice);
``decode_s`` the wall time of ``feed`` / ``finish``; ``n_predicted`` the words of that
partial or final hypothesis (each call is one prediction of Whetten et al.'s LAT);
``n_committed`` is None until the flush. The computation clock is the one of
:func:`fairdesk.incremental.simulate.simulate`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from fairdesk.constants import NATIVE_POLICY, SAMPLE_RATE
from fairdesk.incremental.streams import Simulation, Update, update_ends

__all__ = ["NATIVE", "simulate_native", "supports_native"]

#: Name of the policy that records an engine's own partial hypotheses.
NATIVE = NATIVE_POLICY


def supports_native(backend) -> bool:
    """Whether ``backend`` streams natively (has ``open_stream``; PocketSphinx does)."""
    return callable(getattr(backend, "open_stream", None))


def simulate_native(
    backend,
    audio: np.ndarray,
    chunk_s: float = 1.0,
    *,
    timer: Callable[[], float] = time.perf_counter,
) -> Simulation:
    """Feed one clip to a streaming engine chunk by chunk and log its partial hypotheses.

    Raises
    ------
    ValueError
        When the backend has no native streaming.
    """
    if not supports_native(backend):
        raise ValueError(
            f"model {getattr(backend, 'id', backend)!r} has no native streaming "
            "(policy 'native' needs an engine with partial results, e.g. "
            "pocketsphinx-en-us); use a re-decoding policy"
        )
    audio = np.ascontiguousarray(np.asarray(audio, dtype=np.float32))
    if audio.ndim != 1:
        raise ValueError(f"audio must be mono 1-D samples, got shape {audio.shape}")
    n = int(audio.size)
    dur = n / SAMPLE_RATE
    sim = Simulation(NATIVE, dur, float(chunk_s))
    clock, prev = 0.0, 0
    with backend.open_stream() as stream:
        steps = [(t, False) for t in update_ends(n, chunk_s)] + [(n, True)]
        for index, (t, final) in enumerate(steps):
            t0 = timer()
            words = stream.finish() if final else stream.feed(audio[prev:t])
            wall = float(timer() - t0)
            arrival = t / SAMPLE_RATE
            start = max(arrival, clock)
            clock = start + wall
            sim.updates.append(
                Update(
                    index=index,
                    arrival_s=arrival,
                    is_flush=final,
                    span=(0.0, dur) if final else (prev / SAMPLE_RATE, arrival),
                    decode_s=wall,
                    start_s=start,
                    end_s=clock,
                    words=tuple(words),
                    n_committed=len(words) if final else None,
                    n_predicted=len(words),
                )
            )
            prev = t
    return sim
