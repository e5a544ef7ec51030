"""Golden files (issue 43, "Done when"): every view of a small set of stored runs, captured
by ``tests/golden/capture.py`` and compared here with what the code prints now: the
``--json`` values identical, the console, report and GUI text identical. A change that is
meant to change what users read re-approves them (``python -m tests.golden.capture
--approve``, the capture script's docstring) in a commit that lists what changed."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("jinja2")


@pytest.fixture(scope="module")
def captured(tmp_path_factory, qapp):
    from tests.golden.capture import capture

    return capture(tmp_path_factory.mktemp("golden"))


def test_every_view_prints_what_the_golden_files_hold(captured):
    from tests.golden.capture import differences

    diffs = differences(captured)
    assert not diffs, (
        "the views differ from tests/golden (re-approve with `python -m tests.golden.capture "
        "--approve` only if the change is meant):\n\n" + "\n\n".join(diffs)
    )


def test_the_golden_json_files_hold_values(captured):
    """Each ``--json`` golden is JSON with its keys sorted: only values are compared."""
    names = [n for n in captured if n.endswith(".json")]
    assert len(names) >= 10
    for name in names:
        value = json.loads(captured[name])
        assert (
            captured[name] == json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        )


def test_the_items_list_and_incremental_print_percent_and_pp(captured):
    """The unit rule of issue 43 point 3: the Items list's WER in percent (``14.3%``, never
    a fraction such as ``0.143``), and ``fairdesk incremental``'s group WER in percent with
    gaps in pp, as the report prints them."""
    import re

    for name, text in captured.items():
        if name.startswith("gui-items-"):
            head, *rows = text.split("\n")[1:]
            col = head.split(" | ").index("WER")
            wers = [r.split(" | ")[col] for r in rows if r]
            assert wers and all(re.fullmatch(r"\d+\.\d%", w) for w in wers), (name, wers)
    inc = captured["incremental-5.txt"]
    groups = inc[inc.index("groups (reference") :]
    assert re.search(r"\b\d+\.\d%", groups) and re.search(r"gap [+-]\d+\.\d pp", groups)
    assert not re.search(r"\b0\.\d{4}\b", groups)
    assert "WER" in captured["report-5.txt"]


def test_a_changed_word_or_value_is_reported(captured):
    """The comparison finds one changed word in a text and one changed value in a JSON."""
    from tests.golden.capture import differences

    changed = dict(captured)
    changed["console-2.txt"] = captured["console-2.txt"].replace("disparity", "gap", 1)
    changed["audit-2-accent.json"] = captured["audit-2-accent.json"].replace(
        '"verdict": "disparity_detected"', '"verdict": "inconclusive_underpowered"', 1
    )
    diffs = differences(changed)
    assert [d.split(" ")[0] for d in diffs] == ["audit-2-accent.json", "console-2.txt"]
