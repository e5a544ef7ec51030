"""``fairdesk incremental`` end to end on a small project with a fake backend."""

from __future__ import annotations

import argparse
import json

import pytest

from fairdesk.models.base import Transcription, Word
from tests.conftest import tone_project

SENTENCE = "play the song by the band".split()


class PrefixBackend:
    """Words of SENTENCE (0.25 s each from 0.1 s) that end within the clip, plus a wrong "uh"
    when exactly 2.0 s are decoded: only group b's clips (2.6 s) have a 2.0 s update."""

    id = "fake"
    settings = {"beam_size": 1}

    def transcribe(self, audios):
        out = []
        for a in audios:
            dur = a.size / 16000
            words = [Word(w, 0.1 + 0.25 * i, 0.35 + 0.25 * i, 1.0)
                     for i, w in enumerate(SENTENCE) if 0.35 + 0.25 * i <= dur + 1e-9]
            if abs(dur - 2.0) < 1e-6:
                words.append(Word("uh", 1.8, 2.0, 0.5))
            out.append(Transcription(" ".join(w.text for w in words), tuple(words)))
        return out

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@pytest.fixture
def project(tmp_path):
    return tone_project(tmp_path, {"a": 1.8, "b": 2.6}, 5, 2, " ".join(SENTENCE))[0]


def _run(argv):
    from fairdesk.cli import incremental as cli_incremental

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    cli_incremental.add_command(sub)
    a = parser.parse_args(argv)
    return a.func(a)


def test_cli_table_json_and_groups(project, tmp_path, monkeypatch, capsys):
    import fairdesk.models

    monkeypatch.setattr(fairdesk.models, "get_backend", lambda *a, **k: PrefixBackend())
    out = tmp_path / "inc.json"
    rc = _run(["incremental", "--project", str(project.folder), "--dataset", "d",
               "--policy", "concatenation", "--policy", "local-agreement", "--by", "accent",
               "--min-items", "5", "--min-speakers", "2", "--n-bootstrap", "200",
               "--json", str(out), "--quiet"])
    assert rc == 0
    res = json.loads(out.read_text())
    assert res["hardware"]["cpu_count"] and res["decoder"]["model"] == "whisper-tiny.en"
    assert res["chunk_s"] == 1.0 and res["n_items"] == 20
    rows = {(r["policy"], r["stream"]): r for r in res["summary"]}
    assert set(rows) == {("concatenation", "displayed"), ("local-agreement", "displayed"),
                         ("local-agreement", "committed")}
    assert rows[("concatenation", "displayed")]["wer"] == 0
    assert rows[("local-agreement", "committed")]["eo"] == 0
    assert len(res["groups"]) == 3
    conc = res["groups"][0]
    vals = {g["group"]: g["values"] for g in conc["groups"]}
    assert vals["a"]["eo"] == 0 and vals["b"]["eo"] > 0
    for item in res["items"]:
        assert item["n_adds"] - item["n_revokes"] == item["n_final_words"]

    from fairdesk.cli.incremental import print_summary

    print_summary(res)
    text = capsys.readouterr().out
    for head in ("WER", "LAT", "EO", "RPS", "SPR", "RTF", "FWL"):
        assert head in text
    assert "local-agreement (committed)" in text and "groups (reference a)" in text


def test_cli_usage_errors(project, monkeypatch):
    import fairdesk.models
    from fairdesk.cli import UsageError

    monkeypatch.setattr(fairdesk.models, "get_backend", lambda *a, **k: PrefixBackend())
    base = ["incremental", "--project", str(project.folder), "--quiet"]
    with pytest.raises(UsageError, match="no dataset"):
        _run(base + ["--dataset", "nope"])
    with pytest.raises(UsageError, match="unknown metric"):
        _run(base + ["--dataset", "d", "--metric", "nope"])
    with pytest.raises(UsageError, match="chunk"):
        _run(base + ["--dataset", "d", "--chunk", "0"])
