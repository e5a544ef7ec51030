"""Building an NLU from its spec: the registry of implementations.

The implementations import :mod:`fairdesk.nlu.base`; the base never imports them. Each is
imported here only when its spec is asked for (``hf:`` pulls in transformers).
"""

from __future__ import annotations

from collections.abc import Callable

from fairdesk.nlu.base import NluModel


def _music(_arg: str) -> NluModel:
    from fairdesk.nlu.music import MusicNlu

    return MusicNlu.load()


def _hf(arg: str) -> NluModel:
    from fairdesk.nlu.hf_joint import HfJointNlu

    return HfJointNlu(arg)


def _table(arg: str) -> NluModel:
    from fairdesk.nlu.table import TableNlu

    return TableNlu.from_file(arg)


#: spec kind -> (takes an argument after ``:``, builder of the model from that argument)
BUILDERS: dict[str, tuple[bool, Callable[[str], NluModel]]] = {
    "demo-music": (False, _music),
    "hf": (True, _hf),
    "table": (True, _table),
}


def get_nlu(spec: str | NluModel) -> NluModel:
    """Build the NLU named by a spec.

    Parameters
    ----------
    spec : str or NluModel
        ``"demo-music"`` (the embedded music NLU), ``"hf:<folder>"`` (a local JointBERT-style
        Hugging Face model, see :mod:`fairdesk.nlu.hf_joint`), or ``"table:<file>"`` (imported
        predictions, CSV or JSONL keyed by ``item_id``). A model is returned unchanged.

    Returns
    -------
    NluModel

    Raises
    ------
    ValueError
        For an unknown spec; FileNotFoundError when the folder or file does not exist.
    """
    if isinstance(spec, NluModel):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"NLU spec must be a string, got {type(spec).__name__}")
    kind, _, arg = spec.strip().partition(":")
    kind, arg = kind.strip().lower(), arg.strip()
    entry = BUILDERS.get(kind)
    if entry is not None and bool(arg) == entry[0]:
        return entry[1](arg)
    raise ValueError(
        f"unknown NLU spec {spec!r}: use 'demo-music', 'hf:<folder with intent/ and slots/>' "
        "or 'table:<predictions.csv|.jsonl>'"
    )
