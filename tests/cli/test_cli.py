"""The command line: JSON shapes and exit codes (in-process, no model)."""

import json

from fairdesk.cli import main
from tests.conftest import write_wav


def _run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_help_does_not_import_torch():
    import subprocess
    import sys

    code = (
        "import sys\nfrom fairdesk.cli import build_parser\n"
        "build_parser().format_help()\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
        "assert 'PySide6' not in sys.modules\nprint('ok')"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-m", "fairdesk", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "audit" in r.stdout


def test_import_json_and_exit_codes(tmp_path, capsys):
    data = tmp_path / "data"
    write_wav(data / "a.wav")
    write_wav(data / "b.wav")
    (data / "m.csv").write_text(
        "path,text,speaker_id,accent\na.wav,hello,s1,x\nb.wav,,s2,y\nc.wav,gone,s3,y\n"
    )
    proj = tmp_path / "p"
    code, out, _ = _run(
        capsys, "import", "--project", str(proj), "--name", "d", str(data / "m.csv"), "--json"
    )
    assert code == 0
    d = json.loads(out)
    assert d["dataset"] == "d" and d["imported"] == 1
    # rows are named by their line in the file (the header is line 1)
    assert [(p["row"], p["path"]) for p in d["problems"]] == [(3, "b.wav"), (4, "c.wav")]
    assert all(p["reason"] for p in d["problems"])
    code, out, _ = _run(capsys, "items", "--project", str(proj), "--dataset", "d", "--json")
    items = json.loads(out)
    assert code == 0 and items[0]["id"] == "a.wav" and items[0]["accent"] == "x"
    assert set(items[0]) >= {"id", "path", "text", "speaker_id", "content_id", "duration"}
    # nothing importable -> exit 1
    (data / "bad.csv").write_text("path,text\nnope.wav,hi\n")
    code, out, _ = _run(
        capsys, "import", "--project", str(proj), "--name", "e", str(data / "bad.csv"), "--json"
    )
    assert code == 1 and json.loads(out)["imported"] == 0
    # usage errors -> exit 2
    code, _, err = _run(capsys, "items", "--project", str(proj), "--dataset", "nope")
    assert code == 2 and "no dataset named 'nope'" in err
    code, _, err = _run(
        capsys, "items", "--project", str(proj), "--dataset", "d", "--filter", "accentx"
    )
    assert code == 2 and "--filter 'accentx': expected COL=VAL" in err


def test_init_and_datasets(tmp_path, capsys):
    code, out, _ = _run(capsys, "init", str(tmp_path / "new"))
    assert code == 0 and (tmp_path / "new" / "project.sqlite").exists()
    code, out, _ = _run(capsys, "datasets", "--project", str(tmp_path / "new"), "--json")
    assert code == 0 and json.loads(out) == []
