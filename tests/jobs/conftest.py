"""Fixtures shared by the Ray engine tests (tests/jobs/test_ray_*.py)."""

import pytest

from tests.conftest import tone_project


@pytest.fixture(scope="module")
def ray_local():
    """A local Ray with two CPUs for the module's tests."""
    ray = pytest.importorskip("ray")
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def ray_tone_project(tmp_path):
    """Two accents (0.5 s and 0.7 s tones), 6 speakers × 5 sentences each, one unreadable
    file (a per-item failure)."""
    p, root = tone_project(tmp_path, {"a": 0.5, "b": 0.7}, 6, 5, "play the song")
    (root / "b" / "0_0.wav").write_bytes(b"RIFF garbage")
    return p
