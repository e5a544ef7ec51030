"""What the audit job's prepare stage hands on (:class:`Prepared`): the selected items and the
cache keys of a run. Its own module so that both :mod:`.audit` (which makes it) and
:mod:`.run_settings` (which reads it) import it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from ..core.dataset_sets import DatasetSet
    from ..core.store import Dataset
    from ..models.base import Backend
    from ..stats.notices import Notice

__all__ = ["Prepared"]


@dataclass
class Prepared:
    """The selected items and cache keys of a run (``prepare``)."""

    frame: pd.DataFrame
    dataset: Dataset
    backend: Backend
    model_key: str
    request_hash: str
    backend_given: bool = False  # passed in by the caller (not loaded from req.model)
    dataset_set: DatasetSet | None = None  # every dataset of the run (``dataset`` first)
    #: the items --reference-text left out ({"item", "reason"}) and what it says
    reference_problems: tuple[dict, ...] = ()
    reference_notes: tuple[Notice, ...] = ()
