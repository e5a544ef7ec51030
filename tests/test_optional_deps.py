"""The extras (pyproject.toml): a headless install works, and each missing extra says so.

The fast tests block the optional packages in a subprocess (tests/block_imports.py) and run
the headless commands there (tests/headless_scenario.py); the slow one installs fairdesk
without extras into a fresh virtual environment from PyPI (installer/headless_check.sh).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fairdesk.core.extras import EXTRAS, MissingExtra, extra_for, missing_extra_message, require

from .block_imports import OPTIONAL

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "tests" / "headless_scenario.py"


def _pyproject() -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        pytest.skip("tomllib needs Python 3.11")
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _env(block: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), FAIRDESK_BLOCK=block)
    env.update(QT_QPA_PLATFORM="offscreen", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    return env


def _fairdesk(block: str, *args, cwd=None):
    """``fairdesk ARGS`` in a subprocess with ``block`` unimportable."""
    r = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "block_imports.py"), *map(str, args)],
        env=_env(block),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return r.returncode, r.stdout + r.stderr


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0].lower()


def test_core_dependencies_hold_no_extra_and_no_machine_pin():
    meta = _pyproject()["project"]
    core = {_name(r) for r in meta["dependencies"]}
    extras = meta["optional-dependencies"]
    for heavy in (
        "torch",
        "transformers",
        "pyside6-essentials",
        "faster-whisper",
        "weasyprint",
        "pyarrow",
        "matplotlib",
        "jinja2",
        "sounddevice",
        "pocketsphinx",
        "av",
        "ray",
    ):
        assert heavy not in core, heavy
    every = [r for reqs in extras.values() for r in reqs] + meta["dependencies"]
    pins = [r for r in every if "==" in r and not r.startswith("ruff")]
    assert not pins, f"machine-specific pins belong in installer/install.sh: {pins}"
    assert [r for r in extras["hf"] if _name(r) == "torch"] == ["torch>=2.2"]
    # [all]: every extra but the cluster engine and the test tools
    (all_,) = extras["all"]
    assert set(re.search(r"\[(.*)\]", all_).group(1).split(",")) == set(extras) - {
        "all",
        "dev",
        "cluster",
    }


def test_every_extra_of_fairdesk_extras_is_in_pyproject_and_blocked_by_the_tests():
    extras = _pyproject()["project"]["optional-dependencies"]
    assert set(EXTRAS) <= set(extras)
    for extra, (_what, modules) in EXTRAS.items():
        for m in modules:
            assert m in OPTIONAL, f"tests/block_imports.py OPTIONAL lacks {m} (fairdesk[{extra}])"
    assert {extra_for(m) for m in OPTIONAL} == set(EXTRAS)


def test_extra_for_and_the_message_name_the_extra_and_the_command():
    assert extra_for("PySide6.QtWidgets") == "gui"
    assert extra_for("faster_whisper.vad") == "asr"
    assert extra_for("pyarrow") == "parquet"
    assert extra_for("pandas") is None and extra_for(None) is None
    assert missing_extra_message("the desktop app", "gui", "PySide6") == (
        "the desktop app needs fairdesk[gui] (PySide6 is not installed): "
        "pip install 'fairdesk[gui]'"
    )
    assert missing_extra_message("HTML reports", "report", verb="need").startswith(
        "HTML reports need fairdesk[report]: "
    )


def test_require_raises_missing_extra_for_an_absent_module_only():
    require("report", "x", ("json",))  # present: nothing happens
    with pytest.raises(MissingExtra) as e:
        require("asr", "model demo", ("fairdesk_no_such_module_xyz",))
    assert e.value.extra == "asr" and e.value.module == "fairdesk_no_such_module_xyz"
    assert isinstance(e.value, ImportError)  # `except ImportError` still catches it
    assert str(e.value).endswith("pip install 'fairdesk[asr]'")


def test_the_blocker_blocks_imports_and_find_spec(tmp_path):
    code = (
        "import sys, importlib.util; sys.path.insert(0, sys.argv[1])\n"
        "from block_imports import install; install(['json'])\n"
        "assert importlib.util.find_spec('json') is None\n"
        "try:\n    import json.decoder\nexcept ModuleNotFoundError as e:\n    print(e.name)\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "tests")], capture_output=True, text=True
    )
    assert r.returncode == 0 and r.stdout.strip() == "json", r.stderr


def test_headless_commands_with_every_optional_package_blocked(tmp_path):
    """--help, audit/regress --table, import, audit predictions:, show, models, export
    (tables, TextGrids, ELAN); the acoustics block says it needs fairdesk[asr]; each missing
    extra (gui, asr, hf, report, parquet, cluster) is one clean line."""
    r = subprocess.run(
        [sys.executable, str(SCENARIO), str(tmp_path / "w"), "--no-extras", "--", "--in-process"],
        env=_env("all"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0 and "headless scenario: PASSED" in r.stdout, r.stdout + r.stderr
    for extra in ("gui", "asr", "hf", "report", "parquet", "cluster"):
        assert f"pip install 'fairdesk[{extra}]'" in r.stdout, extra
    # nothing of any extra was imported on the way (the blocker would have refused it)
    assert "Traceback" not in r.stdout + r.stderr


@pytest.mark.slow
def test_the_headless_scenario_passes_with_the_extras_installed(tmp_path):
    """The same commands with nothing blocked (this environment has every extra): the
    scenario is not written around the missing parts (slow: the VAD and whisper-tiny.en
    alignment run)."""
    r = subprocess.run(
        [sys.executable, str(SCENARIO), str(tmp_path / "w"), "--", "--in-process"],
        env=_env(""),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0 and "headless scenario: PASSED" in r.stdout, r.stdout + r.stderr


def test_each_extra_missing_alone(tmp_path):
    """One extra missing at a time, the others installed: the acoustic covariates without
    the VAD (the rest of the audit goes on), PDF without fairdesk[pdf], the desktop app
    without pyqtgraph."""
    import json

    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from headless_scenario import rows, write_csv, write_wav
    finally:
        sys.path.pop(0)
    recs = rows()
    data = tmp_path / "corpus"
    for k, r in enumerate(recs):
        write_wav(data / r["path"], 1.0, 200.0 + 10 * k)
    manifest = write_csv(data / "m.csv", recs, ["id", "path", "reference", "speaker", "accent"])
    preds = write_csv(
        tmp_path / "p.csv",
        [{"path": r["path"], "text": r["hypothesis"]} for r in recs],
        ["path", "text"],
    )
    proj = tmp_path / "P"
    no_vad = "faster_whisper,onnxruntime"
    rc, out = _fairdesk(
        no_vad,
        "import",
        "--project",
        proj,
        "--name",
        "toy",
        "--audio-col",
        "path",
        "--text-col",
        "reference",
        "--speaker-col",
        "speaker",
        "--id-col",
        "id",
        manifest,
    )
    assert rc == 0, out
    rc, out = _fairdesk(
        no_vad,
        "audit",
        "--quiet",
        "--project",
        proj,
        "--dataset",
        "toy",
        "--model",
        f"predictions:{preds}",
        "--by",
        "accent",
        "--n-bootstrap",
        "200",
        "--min-items",
        "5",
        "--min-speakers",
        "2",
        "--json",
        tmp_path / "a.json",
    )
    assert rc == 0, out
    res = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert res["acoustics"]["unavailable"].startswith(
        "acoustic covariates (duration, non-speech share, SNR: the Silero VAD) need "
        "fairdesk[asr] (faster_whisper is not installed): pip install 'fairdesk[asr]'"
    )
    assert res["acoustics"]["n_measured"] == 0 and res["comparisons"]
    assert res["acoustics"]["unavailable"] in res["notes"]

    rc, out = _fairdesk(
        "weasyprint",
        "report",
        "--project",
        proj,
        "--run",
        res["run_id"],
        "--html",
        tmp_path / "r.html",
        "--pdf",
        tmp_path / "r.pdf",
    )
    assert rc == 2 and "pip install 'fairdesk[pdf]'" in out and "Traceback" not in out, out
    assert not (tmp_path / "r.pdf").exists()

    rc, out = _fairdesk("pyqtgraph", "gui", "--project", proj)
    assert rc == 2 and out.strip().splitlines() == [
        "fairdesk gui: the desktop app needs fairdesk[gui] (pyqtgraph is not installed): "
        "pip install 'fairdesk[gui]'"
    ], out


@pytest.mark.slow
def test_headless_install_in_a_fresh_venv():
    """``pip install .`` without extras into a fresh venv (PyPI; minutes), then the headless
    scenario against its ``fairdesk`` (installer/headless_check.sh). ``FAIRDESK_NO_PYPI=1``
    skips it where PyPI cannot be reached."""
    if os.environ.get("FAIRDESK_NO_PYPI") == "1":
        pytest.skip("FAIRDESK_NO_PYPI=1: no PyPI for a fresh environment")
    r = subprocess.run(
        ["bash", str(ROOT / "installer" / "headless_check.sh")],
        env=dict(os.environ, PYTHON=os.environ.get("FAIRDESK_HEADLESS_PYTHON", "python3")),
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert r.returncode == 0 and "headless: PASSED" in r.stdout, (r.stdout + r.stderr)[-6000:]
