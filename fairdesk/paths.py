"""Where fairdesk's shipped files are, from a source tree, an installed package or a bundle.

The ``resources/`` folder (demo corpora, prompt lists, icons, the NLU artifact, report
definitions) sits next to the ``fairdesk`` package in a source tree; in a PyInstaller bundle
it is copied to the bundle's data folder (``sys._MEIPASS``). A bundle is read-only: fairdesk
writes projects and settings only to the user's folders, never here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["FULL_BUNDLE_HINT", "frozen", "missing_torch_message", "require_torch", "resources_dir"]

#: How to get ``hf:`` models and gradient saliency when torch/transformers are absent.
FULL_BUNDLE_HINT = (
    "use the full desktop bundle (built with `FULL=1 bash "
    "installer/build_bundle.sh`) or install fairdesk from source with "
    "installer/install.sh"
)


def frozen() -> bool:
    """Whether this is a bundled (PyInstaller) fairdesk."""
    return bool(getattr(sys, "frozen", False)) and hasattr(sys, "_MEIPASS")


def resources_dir() -> Path:
    """The ``resources/`` folder (``FAIRDESK_RESOURCES`` overrides it)."""
    env = os.environ.get("FAIRDESK_RESOURCES")
    if env:
        return Path(env)
    if frozen():
        return Path(sys._MEIPASS) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def missing_torch_message(what: str) -> str:
    """The message for ``what`` (e.g. ``"hf:<folder> models"``) without torch/transformers:
    in the desktop bundle, the full bundle; else the ``hf`` extra."""
    if not frozen():
        return (
            f"{what}: torch and transformers are not installed, so hf: models and gradient "
            "saliency are not available; they come with fairdesk[hf]: pip install 'fairdesk[hf]'"
        )
    return (
        f"{what}: torch and transformers are not in this desktop bundle, so hf: models and "
        f"gradient saliency are not available; {FULL_BUNDLE_HINT}"
    )


def require_torch(what: str) -> None:
    """Raise a :class:`~fairdesk.core.errors.FairdeskError` naming ``what`` when torch or
    transformers cannot be imported (the default desktop bundle leaves them out)."""
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as exc:
        from fairdesk.core.errors import FairdeskError

        raise FairdeskError(missing_torch_message(what)) from exc
