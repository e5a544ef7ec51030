"""Hostile command lines: usage errors (exit 2) that say what to do, projects never created
by mistake, JSON on stdout kept clean, every-item-failed runs reported, control characters
escaped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import BASE_ITEMS, dump, predictions_file

ROOT = Path(__file__).resolve().parents[2]
IDS = [f"{a}-{s}-{c}" for a in ("north", "south") for s in range(2) for c in range(2)]
QUICK = ("--n-bootstrap", "200", "--min-items", "1", "--min-speakers", "1")


def _perfect(tmp_path, key="item_id"):
    return predictions_file(tmp_path / "p.csv", [(i, f"play song {i[-1]}") for i in IDS], key)


def _audit(cli, proj, model, *extra):
    return cli(
        "audit",
        "--project",
        proj,
        "--dataset",
        "base",
        "--model",
        model,
        "--by",
        "accent",
        *QUICK,
        *extra,
    )


# -- a mistyped --project creates nothing ------------------------------------------------------
@pytest.mark.parametrize(
    "cmd",
    [
        ["datasets"],
        ["items", "--dataset", "base"],
        ["show", "--run", "1"],
        ["audit", "--dataset", "base", "--model", "whisper-tiny.en", "--by", "accent"],
        ["regress", "--run", "1", "--outcome", "wer", "--vars", "accent"],
        ["record", "recover"],
    ],
)
def test_mistyped_project_is_refused_and_not_created(cli, tmp_path, cmd):
    typo = tmp_path / "projetc"
    code, out, err = cli(
        *cmd[:1],
        *(cmd[1:2] if cmd[0] == "record" else []),
        "--project",
        typo,
        *(cmd[1:] if cmd[0] != "record" else cmd[2:]),
    )
    assert code == 2
    assert str(typo) in err and "no fairdesk project here" in err
    assert "fairdesk init" in err and "--project" in err
    assert not typo.exists()


def test_existing_folder_without_project_is_left_untouched(cli, tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    code, _, err = cli("items", "--project", folder, "--dataset", "x")
    assert code == 2 and "no fairdesk project here" in err and list(folder.iterdir()) == []


def test_init_demo_and_import_still_create(cli, base, tmp_path):
    code, out, _ = cli("init", tmp_path / "fresh")
    assert code == 0 and (tmp_path / "fresh" / "project.sqlite").exists()
    _, data = base
    code, out, _ = cli(
        "import", "--project", tmp_path / "new", "--name", "x", data / "m.csv", "--json"
    )
    assert code == 0 and json.loads(out)["imported"] == BASE_ITEMS


# -- model and table paths that do not exist ----------------------------------------------------
@pytest.mark.parametrize(
    "model,says",
    [
        ("hf:/nonexistent", "model folder not found: /nonexistent"),
        ("predictions:/nonexistent.csv", "predictions file not found: /nonexistent.csv"),
        ("ct2:{bad}", "model.bin"),
        ("hf:", "needs a path after 'hf:'"),
    ],
)
def test_missing_model_paths_are_usage_errors(cli, base, tmp_path, model, says):
    proj, _ = base
    bad = tmp_path / "notct2"
    bad.mkdir()
    (bad / "config.json").write_text("{}")
    model = model.format(bad=bad)
    before = dump(proj)
    code, _, err = _audit(cli, proj, model)
    assert code == 2 and says in err and f"--model {model}" in err
    assert "check the path" in err or "needs a path" in err
    assert dump(proj) == before  # no run was started


def test_table_that_is_a_folder_is_a_usage_error(cli, tmp_path):
    code, _, err = cli("audit", "--table", tmp_path, "--by", "accent")
    assert code == 2 and str(tmp_path) in err and "is a folder" in err
    assert "give a CSV, TSV, JSONL or Parquet file" in err


# -- counts that would silently drop items ----------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ["show", "--run", "1", "--worst", "-3"],
        ["items", "--dataset", "base", "--limit", "-5"],
        ["items", "--dataset", "base", "--limit", "0"],
        ["audit", "--dataset", "base", "--model", "x", "--by", "accent", "--sample", "0"],
    ],
)
def test_negative_or_zero_counts_are_refused(base, args):
    proj, _ = base
    before = dump(proj)
    r = subprocess.run(
        [sys.executable, "-m", "fairdesk", args[0], "--project", str(proj), *args[1:]],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert r.returncode == 2 and "at least 1" in r.stderr and "Traceback" not in r.stderr
    assert args[-2] in r.stderr  # names the option
    assert dump(proj) == before


def test_items_json_honours_limit(cli, base):
    proj, _ = base
    code, out, _ = cli("items", "--project", proj, "--dataset", "base", "--json", "--limit", 3)
    assert code == 0 and [r["id"] for r in json.loads(out)] == IDS[:3]
    code, out, _ = cli("items", "--project", proj, "--dataset", "base", "--limit", 2)
    assert out.splitlines()[-1] == f"{BASE_ITEMS} items, 2 shown"


def test_filter_value_that_matches_nothing_lists_the_values(cli, base):
    proj, _ = base
    before = dump(proj)
    code, _, err = cli(
        "items", "--project", proj, "--dataset", "base", "--filter", "accent=north,south"
    )
    assert code == 2 and "accent=north,south" in err and "north, south" in err
    assert "repeat --filter accent=VALUE" in err
    code, out, _ = cli(
        "items",
        "--project",
        proj,
        "--dataset",
        "base",
        "--filter",
        "accent=north",
        "--filter",
        "accent=south",
        "--json",
    )
    assert code == 0 and len(json.loads(out)) == BASE_ITEMS
    assert dump(proj) == before


def test_empty_dataset_name_in_audit_is_refused(cli, base, tmp_path):
    proj, _ = base
    before = dump(proj)
    code, _, err = cli(
        "audit",
        "--project",
        proj,
        "--dataset",
        " ",
        "--model",
        f"predictions:{_perfect(tmp_path)}",
        "--by",
        "accent",
    )
    assert code == 2 and "--dataset" in err and "fairdesk datasets" in err
    assert dump(proj) == before


# -- predictions keyed ambiguously, or by id -----------------------------------------------------
def test_bare_file_name_matching_two_items_is_ambiguous_never_a_guess(cli, tmp_path):
    from tests.conftest import write_wav

    data = tmp_path / "data"
    for d, f in (("x", 300), ("y", 500)):
        write_wav(data / d / "a.wav", seconds=0.3, freq=f)
    write_wav(data / "x" / "b.wav", seconds=0.3, freq=700)
    (data / "m.csv").write_text(
        "path,text,accent\nx/a.wav,hello there,x\ny/a.wav,hello there,y\nx/b.wav,good day,x\n"
    )
    proj = tmp_path / "proj"
    assert cli("import", "--project", proj, "--name", "base", data / "m.csv")[0] == 0
    pred = predictions_file(
        tmp_path / "p.csv", [("a.wav", "hello there"), ("x/b.wav", "good day")], key="path"
    )
    code, out, err = _audit(cli, proj, f"predictions:{pred}", "--json", "-")
    res = json.loads(out)
    assert code == 0
    fails = {f["path"]: f["reason"] for f in res["failures"]}
    assert set(fails) == {"x/a.wav", "y/a.wav"}
    assert all("ambiguous" in r and "key the rows by item id" in r.lower() for r in fails.values())
    probs = res["prediction_problems"]
    assert len(probs) == 1 and probs[0]["row"] == 2 and probs[0]["key"] == "a.wav"
    assert sum(g["n_items"] for g in res["groups"]) == 1  # only x/b.wav was matched


def test_predictions_keyed_by_the_id_that_items_prints(cli, base, tmp_path):
    proj, _ = base
    code, out, _ = cli("items", "--project", proj, "--dataset", "base", "--json")
    ids = [r["id"] for r in json.loads(out)]
    pred = predictions_file(tmp_path / "p.csv", [(i, f"play song {i[-1]}") for i in ids], key="id")
    code, out, _ = _audit(cli, proj, f"predictions:{pred}", "--json", "-", "--quiet")
    res = json.loads(out)
    assert code == 0 and res["failures"] == [] and "prediction_problems" not in res
    assert sum(g["n_items"] for g in res["groups"]) == BASE_ITEMS
    assert all(g["values"]["wer"] == 0 for g in res["groups"])


# -- every item fails ----------------------------------------------------------------------------
def test_every_item_failing_writes_the_failures_and_exits_1(cli, base, tmp_path):
    proj, _ = base
    pred = predictions_file(tmp_path / "p.csv", [("nobody", "x")])
    out_json = tmp_path / "a.json"
    code, out, err = _audit(cli, proj, f"predictions:{pred}", "--json", out_json)
    assert code == 1
    res = json.loads(out_json.read_text())
    assert res["groups"] == [] and len(res["failures"]) == BASE_ITEMS
    assert all(
        f["reason"] == "no prediction for this item in the imported file" for f in res["failures"]
    )
    assert f"{BASE_ITEMS} items failed:" in out and "north-0-0: no prediction" in out
    assert "every item failed" in err
    after = dump(proj)
    runs = after["runs"]
    assert len(runs) == 1 and "'failed'" in runs[0]
    # a failed run is never answered from the cache: the same audit runs again
    code, *_ = _audit(cli, proj, f"predictions:{pred}", "--json", out_json)
    assert code == 1 and len(dump(proj)["runs"]) == 2


# -- JSON on stdout, human text on stderr ---------------------------------------------------------
def test_audit_show_regress_json_to_stdout_keep_human_text_on_stderr(cli, base, tmp_path):
    proj, _ = base
    pred = predictions_file(
        tmp_path / "p.csv",
        [(i, "play" if i.startswith("s") else f"play song {i[-1]}") for i in IDS],
    )
    code, out, err = _audit(cli, proj, f"predictions:{pred}", "--json", "-")
    res = json.loads(out)  # stdout is one JSON document
    assert code == 0 and "WER" in err and "group" in err
    run = res["run_id"]
    # (--worst 4: the failing items; `show` on a correct item is fixed on another branch)
    code, out, err = cli("show", "--project", proj, "--run", run, "--json", "-", "--worst", 4)
    reports = json.loads(out)
    assert code == 0 and len(reports) == 4 and "== south" in err
    code, out, err = cli(
        "regress",
        "--project",
        proj,
        "--run",
        run,
        "--outcome",
        "correct",
        "--vars",
        "accent",
        "--json",
        "-",
    )
    assert code == 0 and "univariate" in json.loads(out)


def test_items_json_into_head_has_no_broken_pipe_traceback(base):
    proj, _ = base
    cmd = f"{sys.executable} -m fairdesk items --project {proj} --dataset base --json | head -c 10"
    r = subprocess.run(
        ["bash", "-o", "pipefail", "-c", cmd],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert r.stdout == '[\n  {\n    "'[:10] and "Traceback" not in r.stderr
    assert "BrokenPipe" not in r.stderr and r.returncode == 0


# -- control characters in user strings -----------------------------------------------------------
def test_ansi_escapes_in_transcripts_are_escaped_on_the_terminal(cli, tmp_path):
    from tests.conftest import write_wav

    data = tmp_path / "data"
    write_wav(data / "a.wav", seconds=0.3)
    write_wav(data / "b.wav", seconds=0.3, freq=400)
    (data / "m.csv").write_text("path,text,accent\na.wav,\x1b[2J\x1b[31mred\x07,x\nb.wav,fine,y\n")
    proj = tmp_path / "proj"
    assert cli("import", "--project", proj, "--name", "base", data / "m.csv")[0] == 0
    code, out, _ = cli("items", "--project", proj, "--dataset", "base")
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    assert "\\x1b[2J\\x1b[31mred\\x07" in out
    pred = predictions_file(
        tmp_path / "p.csv", [("a.wav", "\x1b]0;pwned\x07 red"), ("b.wav", "fine")], key="path"
    )
    # (only the failing item is shown: `show` on a correct item is fixed on another branch)
    code, out, _ = cli(
        "audit",
        "--project",
        proj,
        "--dataset",
        "base",
        "--model",
        f"predictions:{pred}",
        "--by",
        "accent",
        *QUICK,
        "--json",
        "-",
        "--quiet",
    )
    run = json.loads(out)["run_id"]
    code, out, _ = cli("show", "--project", proj, "--run", run, "--worst", 1)
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    assert "\\x1b 0 pwned\\x07" in out  # (normalised for the alignment, then escaped)


def test_argument_with_bytes_that_are_not_utf8_is_a_usage_error(base):
    proj, data = base
    before = dump(proj)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "fairdesk",
            "import",
            "--project",
            str(proj),
            "--name",
            b"caf\xe9",
            str(data / "m.csv"),
        ],
        capture_output=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    err = r.stderr.decode()
    assert r.returncode == 2 and "--name" in err and "0xe9" in err and "UTF-8" in err
    assert "Traceback" not in err
    assert dump(proj) == before


@pytest.mark.parametrize("where", ["--project", "--table", "import-path"])
def test_paths_of_5000_characters_are_usage_errors(cli, base, tmp_path, where):
    proj, _ = base
    long = str(tmp_path / "/".join(["p" * 250] * 20))
    before = dump(proj)
    if where == "--project":
        code, _, err = cli("datasets", "--project", long)
        assert code == 2 and "cannot open this project folder" in err
        assert "check the --project path" in err
    elif where == "--table":
        code, _, err = cli("audit", "--table", long + ".csv", "--by", "accent")
        assert code == 2 and "--table" in err and "check the path" in err
    else:
        code, _, err = cli("import", "--project", proj, "--name", "x", long)
        assert code == 1 and "cannot be opened" in err
    assert "name too long" in err.lower()
    assert dump(proj) == before
