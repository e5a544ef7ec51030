"""The explain stage's view of the saliency cache (:mod:`fairdesk.core.caches`, store
schema 3): what a curve explains (:data:`TARGET`, :func:`target_hash`) and the cache's
functions under the stage's names."""

from __future__ import annotations

import hashlib
import json

from ..core.caches import SaliencyKey, StoredSaliency
from ..core.caches import lookup_saliency as lookup
from ..core.caches import saliency_for_audio as for_audio
from ..core.caches import save_saliency as save
from ..core.caches import update_saliency_meta as update_meta

__all__ = [
    "TARGET",
    "SaliencyKey",
    "StoredSaliency",
    "for_audio",
    "lookup",
    "save",
    "target_hash",
    "update_meta",
]

#: What a saliency curve explains (part of the target hash).
TARGET = "reference_transcript_logprob"


def target_hash(text: str) -> str:
    """Hash of the target: the log-probability of this (stripped) reference text."""
    blob = json.dumps({"target": TARGET, "text": str(text).strip()}, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()
