"""Optional dependencies: torch and transformers (``hf:`` models, gradient saliency, the
joint NLU model), left out of the default desktop bundle."""

from __future__ import annotations

from ..paths import frozen
from .errors import FairdeskError

__all__ = ["FULL_BUNDLE_HINT", "missing_torch_message", "require_torch"]

#: How to get ``hf:`` models and gradient saliency when torch/transformers are absent.
FULL_BUNDLE_HINT = (
    "use the full desktop bundle (built with `FULL=1 bash "
    "installer/build_bundle.sh`) or install fairdesk from source with "
    "installer/install.sh"
)


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
        raise FairdeskError(missing_torch_message(what)) from exc
