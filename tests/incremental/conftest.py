"""Fixtures of the incremental tests (the fakes live in ``fakes.py``)."""

from __future__ import annotations

import pytest

from .fakes import FakeClock


@pytest.fixture
def clock():
    return FakeClock()
