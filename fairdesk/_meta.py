"""The package's version and its warning class: a leaf module that imports nothing of
fairdesk, so any module can take them without importing the package's public API."""

__version__ = "0.1.0"


class FairdeskWarning(UserWarning):
    """Warnings raised by fairdesk itself (tests turn them into errors)."""
