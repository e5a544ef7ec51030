"""A job's progress only goes forward: every fraction a real audit (stand-in backend) reports,
with and without the acoustic, unstable and explain stages, in order; and the GUI's saliency
job's."""

import functools
import itertools
import sys

import pytest

import fairdesk.jobs.audit as audit_mod
from fairdesk.core.progress import Progress
from fairdesk.jobs import AuditRequest, run_audit
from fairdesk.stats import AuditSettings
from tests.conftest import tone_project
from tests.explain.test_audit_explain import FakeAligner, RegionScoreBackend


class SamplingScoreBackend(RegionScoreBackend):
    """RegionScoreBackend that also samples decodes (the same text each time)."""

    def transcribe_sampled(self, audios, temperature):
        return self.transcribe(audios)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return tone_project(tmp_path_factory.mktemp("progress"), {"a": 0.5, "b": 0.7}, 5, 2, "a b")[0]


@pytest.mark.parametrize(
    "acoustics, unstable, explain", list(itertools.product([True, False], repeat=3))
)
def test_reported_fractions_never_decrease(project, monkeypatch, acoustics, unstable, explain):
    if not acoustics:  # the acoustic stage reports itself unavailable without the VAD
        monkeypatch.setitem(sys.modules, "faster_whisper.vad", None)
    # every report, unthrottled
    monkeypatch.setattr(audit_mod, "Progress", functools.partial(Progress, min_interval=0.0))
    req = AuditRequest(
        dataset="d",
        model="fake",
        by=("accent",),
        nlu="none",
        metrics=("wer",),
        unstable=unstable,
        explain=explain,
        explain_per_group=2,
        settings=AuditSettings(n_bootstrap=200, min_items=2, min_speakers=2),
    )
    seen: list[tuple[float, str]] = []
    res = run_audit(
        project,
        req,
        backend=SamplingScoreBackend(),
        aligner=FakeAligner(),
        use_result_cache=False,
        progress=lambda f, m: seen.append((f, m)),
    ).result
    assert (res.acoustics.unavailable is not None) is not acoustics
    assert (res.acoustics.unstable is not None) is unstable
    assert (res.explain is not None) is explain
    fractions = [f for f, _ in seen]
    backwards = [
        (seen[i], seen[i + 1]) for i in range(len(seen) - 1) if fractions[i + 1] < fractions[i]
    ]
    assert not backwards, backwards
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    messages = [m for _, m in seen]
    stages = ["preparing", "inference", "acoustic covariates"]
    stages += ["sampled decodes (unstable flag)"] if unstable else []
    stages += ["explain" if explain else "explain (not requested)", "statistics", "done"]
    assert [m for m in messages if m in stages] == stages
    assert any(m.startswith("acoustic covariates ") for m in messages) is acoustics


def test_saliency_job_fractions_never_decrease(tmp_path, monkeypatch):
    """The GUI's saliency job: loading, the coarse curve, the word alignment, then the exact
    occlusion's own fractions mapped after them."""
    import fairdesk.jobs.explain_stage as stage
    import fairdesk.models as models
    from fairdesk.core.store import Project
    from fairdesk.jobs import tasks
    from tests.conftest import write_wav

    class ClosingBackend(RegionScoreBackend):
        def close(self):
            pass

    monkeypatch.setattr(models, "get_backend", lambda model, device="auto": ClosingBackend())
    monkeypatch.setattr(stage, "_default_aligner", lambda backend: FakeAligner())
    wav = tmp_path / "a.wav"
    write_wav(wav, seconds=3.0, freq=220)  # 30 windows: the first is 1/31 of the occlusion
    Project(tmp_path / "proj").close()
    seen: list[tuple[float, str]] = []
    out = tasks.saliency(
        tmp_path / "proj",
        "fake",
        wav,
        "h1",
        "play the song",
        progress=lambda f, m: seen.append((f, m)),
        cancelled=lambda: False,
    )
    assert out["curve"].size > 0 and not out["cached"]
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[:2] == [0.0, 0.05], seen
    messages = [m for _, m in seen]
    assert messages[:2] == ["loading fake", "coarse saliency of a.wav"]
    assert messages.index("aligning the words of a.wav") < messages.index("exact saliency of a.wav")
    assert len(seen) > 3 and all(0.05 <= f <= 1.0 for f in fractions[1:])
    # asked again: the exact curve is stored, so no coarse step
    seen.clear()
    again = tasks.saliency(
        tmp_path / "proj",
        "fake",
        wav,
        "h1",
        "play the song",
        progress=lambda f, m: seen.append((f, m)),
        cancelled=lambda: False,
    )
    assert again["cached"] and [m for _, m in seen][:2] == ["loading fake", "saliency of a.wav"]
