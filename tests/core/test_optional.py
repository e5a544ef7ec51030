"""core.optional: the message when torch/transformers are absent (installation or bundle)."""

import sys

import pytest

from fairdesk.core.errors import FairdeskError
from fairdesk.core.optional import FULL_BUNDLE_HINT, missing_torch_message, require_torch


def test_require_torch_names_what_needs_it_and_where(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ImportError
    with pytest.raises(FairdeskError) as e:
        require_torch("model hf:x")
    msg = str(e.value)
    assert msg.startswith("model hf:x: torch and transformers are not installed")
    assert msg.endswith("they come with fairdesk[hf]: pip install 'fairdesk[hf]'")
    assert isinstance(e.value.__cause__, ImportError)


def test_missing_torch_message_in_a_bundle(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    msg = missing_torch_message("saliency")
    assert "not in this desktop bundle" in msg
    assert msg.endswith(FULL_BUNDLE_HINT)
