"""fairdesk: audit whether a speech model works equally well for everyone."""

__version__ = "0.1.0"


class FairdeskWarning(UserWarning):
    """Warnings raised by fairdesk itself (tests turn them into errors)."""
