"""Which device a backend runs on: the one place every backend asks (``--device``).

``cpu`` is the CPU. ``cuda`` needs a CUDA GPU that the backend's library (torch for ``hf:``
models, CTranslate2 for faster-whisper) can use; without one it is refused before any item
runs (:class:`DeviceUnavailable`, a usage error: exit 2), with the reason and the way out
(``--device auto`` or ``cpu``), instead of every item failing with the CUDA runtime's error.
``auto`` runs on the GPU when it is usable, else on the CPU; when the library sees a GPU that
does not work (a driver too old for the runtime, a card it cannot run on) the fallback is said
in the run's notes (:func:`fallback`), once per run. PocketSphinx and imported
predictions run on no GPU and do not ask.

Whether a GPU is usable is asked once per library and process (a tiny allocation on the GPU,
not just the device count, which a broken install still reports).
"""

from __future__ import annotations

from ..core.errors import FairdeskError

__all__ = [
    "DEVICES",
    "DeviceUnavailable",
    "cuda_status",
    "fallback",
    "forget",
    "resolve_device",
]

DEVICES = ("auto", "cpu", "cuda")
#: The libraries that can put a backend on a GPU, as the messages name them.
LIBRARIES = {"torch": "PyTorch", "ctranslate2": "CTranslate2"}

#: ``library -> (usable, why not, a GPU was seen)``, asked once per process.
_STATUS: dict[str, tuple[bool, str, bool]] = {}


class DeviceUnavailable(FairdeskError, ValueError):
    """``--device cuda`` without a CUDA GPU the backend's library can use."""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:300]


def _torch_status() -> tuple[bool, str, bool]:
    import torch

    try:
        seen = int(torch.cuda.device_count()) > 0
    except Exception:  # noqa: BLE001 - a broken CUDA install answers with any error
        seen = False
    try:
        available = bool(torch.cuda.is_available())
    except Exception as exc:  # noqa: BLE001
        return False, f"PyTorch cannot query CUDA: {_first_line(exc)}", seen
    if not available:
        if getattr(torch.version, "cuda", None) is None:
            return False, "this PyTorch is built without CUDA", seen
        return False, "PyTorch sees no CUDA GPU (no GPU, or its driver is not loaded)", seen
    try:
        torch.zeros(1, device="cuda")
    except Exception as exc:  # noqa: BLE001 - "CUDA error: ...", "no kernel image ..."
        return False, f"the CUDA runtime fails: {_first_line(exc)}", True
    return True, "", True


def _ct2_status() -> tuple[bool, str, bool]:
    import ctranslate2

    try:
        n = int(ctranslate2.get_cuda_device_count())
    except Exception as exc:  # noqa: BLE001
        return False, f"CTranslate2 cannot query CUDA: {_first_line(exc)}", False
    if n < 1:
        return (
            False,
            "CTranslate2 sees no CUDA GPU (no GPU, its driver, or a CPU-only build)",
            False,
        )
    try:
        ctranslate2.get_supported_compute_types("cuda")
    except Exception as exc:  # noqa: BLE001
        return False, f"the CUDA runtime fails: {_first_line(exc)}", True
    return True, "", True


def cuda_status(library: str) -> tuple[bool, str, bool]:
    """``(usable, why not, a GPU was seen)`` of CUDA for ``library`` (``"torch"`` or
    ``"ctranslate2"``), asked once per process (:func:`forget` asks again)."""
    if library not in LIBRARIES:
        raise ValueError(f"library must be one of {', '.join(LIBRARIES)}, not {library!r}")
    if library not in _STATUS:
        _STATUS[library] = _torch_status() if library == "torch" else _ct2_status()
    return _STATUS[library]


def forget() -> None:
    """Ask the libraries again on the next call (a test, or a GPU that came back)."""
    _STATUS.clear()


def resolve_device(device: str, library: str, who: str = "the model") -> str:
    """The device a backend built on ``library`` runs on for the ``--device`` asked for.

    Parameters
    ----------
    device : one of :data:`DEVICES`.
    library : ``"torch"`` or ``"ctranslate2"``.
    who : the model, as messages name it.

    Returns
    -------
    str
        ``"cuda"`` or ``"cpu"``.

    Raises
    ------
    ValueError
        ``device`` is not one of :data:`DEVICES`.
    DeviceUnavailable
        ``cuda`` asked for and not usable.
    """
    if device not in DEVICES:
        raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', not {device!r}")
    if device == "cpu":
        return "cpu"
    usable, why, _seen = cuda_status(library)
    if usable:
        return "cuda"
    if device == "cuda":
        raise DeviceUnavailable(
            f"--device cuda: {who} cannot run on a GPU here: {why}; use --device auto "
            "(the GPU when it works, else the CPU) or --device cpu"
        )
    return "cpu"


def fallback(device: str, library: str) -> tuple[str, str] | None:
    """(the library as the messages name it, why it cannot use the GPU) when ``auto`` ran on
    the CPU although ``library`` saw a GPU (it did not work), else None (a CPU-only machine
    says nothing: the CPU is what it has). The run's notes say it
    (``run.device_fallback``, worded by :mod:`fairdesk.presentation.run_notes`)."""
    if device != "auto":
        return None
    usable, why, seen = cuda_status(library)
    if usable or not seen:
        return None
    return LIBRARIES[library], why
