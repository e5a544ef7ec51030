"""core.progress: stages map onto the whole job in order; the bar never goes back."""

import pytest

from fairdesk.core.progress import Cancelled, Progress


def _recorded(**kw):
    seen = []
    return Progress(lambda f, m: seen.append((f, m)), min_interval=0.0, **kw), seen


def test_stage_maps_local_progress_and_clamps_a_restarting_step():
    prog, seen = _recorded()
    prog.stage(0.2, 0.6, "one")
    prog.report(0.5, "half")
    prog.report(0.25, "a sub-step restarts its count")  # 0.3 < 0.4: held at 0.4
    prog.report(2.0, "past the end")  # clipped to the stage's end
    prog.stage(0.6, 0.6, "empty stage")
    prog.stage(0.8, 1.0, "two")
    prog.report(-1.0, "before the start")
    assert [round(f, 12) for f, _ in seen] == [0.2, 0.4, 0.4, 0.6, 0.6, 0.8, 0.8]
    assert [m for _, m in seen][:2] == ["one", "half"]


@pytest.mark.parametrize(
    "first, second",
    [((0.0, 0.5), (0.4, 0.9)), ((0.5, 0.6), (0.0, 1.0)), ((0.2, 0.3), (0.2, 0.4))],
)
def test_a_stage_that_starts_before_the_previous_end_is_refused(first, second):
    prog, seen = _recorded()
    prog.stage(*first, "first")
    with pytest.raises(ValueError, match="'second' starts at .* before the previous stage's end"):
        prog.stage(*second, "second")
    Progress().stage(*first, "no callback")  # the layout is checked without a callback too
    with pytest.raises(ValueError):
        p = Progress()
        p.stage(*first, "first")
        p.stage(*second, "second")


@pytest.mark.parametrize("span", [(0.5, 0.4), (-0.1, 0.2), (0.9, 1.1)])
def test_a_stage_outside_zero_one_or_reversed_is_refused(span):
    with pytest.raises(ValueError, match="not a range within"):
        Progress().stage(*span, "bad")


def test_throttling_keeps_the_forced_and_final_reports():
    prog, seen = _recorded()
    prog.min_interval = 3600.0
    prog.stage(0.0, 1.0, "s")  # forced
    prog.report(0.5, "dropped: too soon")
    prog.items(3, 4, 0.0, "items")  # dropped
    prog.items(4, 4, 0.0, "items")  # the last one goes through
    assert [(round(f, 6), m) for f, m in seen] == [(0.0, "s"), (1.0, "items 4/4")]


def test_check_raises_cancelled():
    flag = {"stop": False}
    prog = Progress(None, lambda: flag["stop"])
    prog.check()
    flag["stop"] = True
    with pytest.raises(Cancelled, match="cancelled by the user"):
        prog.check()
