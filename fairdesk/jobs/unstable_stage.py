"""The audit job's optional instability step (docs/METHODS.md, "Hallucination flags": the ``unstable`` flag).

Koenecke et al. (FAccT 2024) found hallucinations often non-deterministic: the same audio sent
twice to Whisper's API gave different hallucinated text. With ``AuditRequest.unstable`` every
analysed item is decoded twice more the way that API decodes, temperature 0 with Whisper's
fallback to sampling when the decode fails its compression and log-probability checks
(backends that offer ``transcribe_sampled``: the faster-whisper ones). A clip that decodes
cleanly gives the same text twice; one that falls back is sampled and may not. (Sampling every
clip outright at temperature 0.5 flagged 50 of 120 speechocean762 utterances: it measures the
model's uncertainty on hard speech, not hallucination.) The two decodes are kept as
``hypothesis_sampled_a`` / ``hypothesis_sampled_b`` (sampled decodes are not reproducible:
the run records them, a rerun samples anew); the flag itself is set by
:func:`fairdesk.metrics.hallucination.hallucination_columns` when their word edit rate
exceeds ``HallucinationSettings.unstable_rate``.
"""

from __future__ import annotations

import time

__all__ = ["UNSTABLE_TEMPERATURE", "add_sampled_decodes", "can_sample"]

#: Temperature schedule of the two extra decodes (recorded with the run).
UNSTABLE_TEMPERATURE = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def can_sample(backend) -> bool:
    """Whether the backend offers sampled decoding (``transcribe_sampled``)."""
    return callable(getattr(backend, "transcribe_sampled", None))


def add_sampled_decodes(f, backend, root, prog=None, temperature=UNSTABLE_TEMPERATURE):
    """Two sampled decodes per row of the analysis frame (columns ``hypothesis_sampled_a/b``).

    Parameters
    ----------
    f : the analysis frame (``path`` per row).
    backend : a backend with ``transcribe_sampled(audios, temperature)``.
    root : the dataset folder.
    prog : a :class:`~fairdesk.core.progress.Progress` or None.
    temperature : temperature schedule (or one sampling temperature).

    Returns
    -------
    (frame, info) with ``info = {"temperature", "reproducible", "n_decoded", "failures"}``; an item
    that cannot be decoded keeps None in both columns and is listed in ``failures``.
    """
    from ..core.audio_paths import audio_file
    from ..core.errors import AudioError
    from ..core.spans import item_spans
    from ..core.spans import load as load_span_or_file

    a_col, b_col, failures = [], [], []
    started = time.monotonic()
    spans = item_spans(f)
    for k, rel in enumerate(f["path"]):
        try:
            start, end = spans[k] or (None, None)
            clip = load_span_or_file(audio_file(root, rel), start_s=start, end_s=end).samples
            ta, tb = backend.transcribe_sampled([clip, clip], temperature)
            a_col.append(ta.text)
            b_col.append(tb.text)
        except (AudioError, RuntimeError, ValueError) as exc:
            failures.append(
                {"item": str(f["item_id"].iloc[k]), "reason": f"{type(exc).__name__}: {exc}"}
            )
            a_col.append(None)
            b_col.append(None)
        if prog is not None:
            prog.check()
            prog.items(k + 1, len(f), started, "sampled decodes")
    f = f.copy()
    f["hypothesis_sampled_a"] = a_col
    f["hypothesis_sampled_b"] = b_col
    return f, {
        "temperature": list(temperature) if isinstance(temperature, (list, tuple)) else temperature,
        "reproducible": False,
        "n_decoded": len(f) - len(failures),
        "failures": failures,
    }
