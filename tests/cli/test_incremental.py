"""``fairdesk incremental`` end to end on a small project with a fake backend."""

from __future__ import annotations

import argparse
import json

import numpy as np
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
            words = [
                Word(w, 0.1 + 0.25 * i, 0.35 + 0.25 * i, 1.0)
                for i, w in enumerate(SENTENCE)
                if 0.35 + 0.25 * i <= dur + 1e-9
            ]
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
    rc = _run(
        [
            "incremental",
            "--project",
            str(project.folder),
            "--dataset",
            "d",
            "--policy",
            "concatenation",
            "--policy",
            "local-agreement",
            "--by",
            "accent",
            "--min-items",
            "5",
            "--min-speakers",
            "2",
            "--n-bootstrap",
            "200",
            "--json",
            str(out),
            "--quiet",
        ]
    )
    assert rc == 0
    res = json.loads(out.read_text())
    assert res["hardware"]["cpu_count"] and res["decoder"]["model"] == "whisper-tiny.en"
    assert res["chunk_s"] == 1.0 and res["n_items"] == 20
    rows = {(r["policy"], r["stream"]): r for r in res["summary"]}
    assert set(rows) == {
        ("concatenation", "displayed"),
        ("local-agreement", "displayed"),
        ("local-agreement", "committed"),
    }
    assert rows[("concatenation", "displayed")]["wer"] == 0
    assert rows[("local-agreement", "committed")]["eo"] == 0
    assert len(res["groups"]) == 3
    conc = res["groups"][0]
    vals = {g["group"]: g["values"] for g in conc["groups"]}
    assert vals["a"]["eo"] == 0 and vals["b"]["eo"] > 0
    for item in res["items"]:
        assert item["n_adds"] - item["n_revokes"] == item["n_final_words"]

    from fairdesk.cli.incremental import print_summary
    from fairdesk.incremental.result import IncrementalResult

    # the JSON read back: the committed stream has no revokes, so its null SPR is inf again
    typed = IncrementalResult.from_json(res)
    committed = next(r for r in typed.summary if r.stream == "committed")
    assert rows[("local-agreement", "committed")]["spr"] is None
    assert committed.totals.n_revokes == 0 and committed.spr == float("inf")
    print_summary(typed)
    text = capsys.readouterr().out
    for head in ("WER", "LAT", "EO", "RPS", "SPR", "RTF", "FWL"):
        assert head in text
    assert "inf" in text
    assert "local-agreement (committed)" in text and "groups (reference a)" in text
    # the groups as the table and the incremental report print them: WER in percent (its
    # gaps in pp), EO to three decimals
    lines = text.split("\n")
    for g in conc["groups"]:
        row = next(ln for ln in lines if ln.strip().startswith(f"{g['group']} ")).split()
        assert f"{100 * g['values']['wer']:.1f}%" in row and f"{g['values']['eo']:.3f}" in row
    for c in conc["comparisons"]:
        if c["metric"] == "wer" and abs(100 * c["gap"]) >= 0.05:
            assert f"gap {100 * c['gap']:+.1f} pp [" in text
        if c["metric"] == "eo" and abs(c["gap"]) >= 0.0005:
            assert f"gap {c['gap']:+.3f} [" in text


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


class StreamingEngine(PrefixBackend):
    """A native streaming engine: after each chunk the words of SENTENCE that have ended, the
    last one first heard as "uh" (revoked by the next update); the finish gives them all."""

    id = "fake-stream"

    def open_stream(self):
        engine = self

        class _S:
            def __init__(self):
                self.t = 0

            def feed(self, chunk):
                self.t += chunk.size
                words = engine.transcribe([np.zeros(self.t, np.float32)])[0].words
                return [*words[:-1], Word("uh", 0.0, 0.1, None)] if words else []

            def finish(self):
                return list(engine.transcribe([np.zeros(self.t, np.float32)])[0].words)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                pass

        return _S()


def test_two_models_give_one_table_stored_with_timelines(project, tmp_path, monkeypatch, capsys):
    import fairdesk.models
    from fairdesk.incremental.store import incremental_runs, load_incremental

    made = {"whisper-fake": PrefixBackend, "stream-fake": StreamingEngine}
    monkeypatch.setattr(fairdesk.models, "get_backend", lambda m, *a, **k: made[m]())
    out = tmp_path / "two.json"
    rc = _run(
        [
            "incremental",
            "--project",
            str(project.folder),
            "--dataset",
            "d",
            "--model",
            "whisper-fake",
            "--model",
            "stream-fake",
            "--policy",
            "whetten",
            "--sample",
            "6",
            "--json",
            str(out),
        ]
    )
    assert rc == 0
    res = json.loads(out.read_text())
    table = res["table"]
    cols = [(c["model"], c["policy"]) for c in table["columns"]]
    # the columns of Whetten et al.'s table per engine: its own partials (streaming engines only), the
    # literal sliding window with the snapped one beside it, and concatenation
    assert cols == [
        ("whisper-fake", "sliding-literal"),
        ("whisper-fake", "sliding"),
        ("whisper-fake", "concatenation"),
        ("stream-fake", "native"),
        ("stream-fake", "sliding-literal"),
        ("stream-fake", "sliding"),
        ("stream-fake", "concatenation"),
    ]
    assert table["rows"] == ["wer", "lat_seed001", "lat_pooled", "eo", "rps", "spr", "rtf"]
    # every cell recomputed from the per-item rows of its model and policy
    for j, (model, policy) in enumerate(cols):
        rows = [r for r in res["items"] if r["model"] == model and r["policy"] == policy]
        assert len(rows) == 6
        tot = {
            k: sum(r[k] for r in rows)
            for k in rows[0]
            if isinstance(rows[0][k], float) or isinstance(rows[0][k], int)
        }
        wer = (tot["n_sub"] + tot["n_del"] + tot["n_ins"]) / tot["n_words"]
        assert table["values"]["wer"][j] == pytest.approx(wer)
        eo = tot["n_revokes"] / (tot["n_adds"] + tot["n_revokes"])
        assert table["values"]["eo"][j] == pytest.approx(eo)
        assert table["values"]["lat_seed001"][j] == pytest.approx(
            tot["lat_seed_sum"] / tot["n_lat_pred"]
        )
        assert table["values"]["lat_pooled"][j] == pytest.approx(
            tot["decode_s"] / tot["n_final_words"]
        )
    native = cols.index(("stream-fake", "native"))
    assert table["values"]["eo"][native] > 0 and table["values"]["wer"][native] == 0
    text = capsys.readouterr().out
    assert "own partials" in text and "sliding (literal)" in text and "LAT (per word)" in text
    # stored in the project with the timelines (the JSON has them only with --logs)
    assert "timelines" not in res
    runs = incremental_runs(project)
    assert [r.id for r in runs] == [res["run_id"]]
    assert runs[0].models == ("whisper-fake", "stream-fake")
    stored = load_incremental(project, res["run_id"])
    assert stored.run_id == res["run_id"]
    assert [c.to_json() for c in stored.table.columns] == table["columns"]
    assert len(stored.timelines) == 6 * 7
    for tl in stored.timelines:
        row = next(
            r
            for r in res["items"]
            if r["id"] == tl.item and r["model"] == tl.model and r["policy"] == tl.policy
        )
        assert sum(len(e.added) for e in tl.events) == row["n_adds"]
        assert sum(len(e.revoked) for e in tl.events) == row["n_revokes"]
    # an audit-run list leaves the incremental run out
    from fairdesk.incremental.store import is_incremental_settings

    settings = project.conn.execute(
        "SELECT settings FROM runs WHERE id=?", (res["run_id"],)
    ).fetchone()[0]
    assert is_incremental_settings(settings)


def test_native_needs_a_streaming_engine(project, monkeypatch):
    import fairdesk.models
    from fairdesk.cli import UsageError

    monkeypatch.setattr(fairdesk.models, "get_backend", lambda *a, **k: PrefixBackend())
    with pytest.raises(UsageError, match="no native streaming"):
        _run(
            [
                "incremental",
                "--project",
                str(project.folder),
                "--dataset",
                "d",
                "--policy",
                "native",
                "--quiet",
                "--no-store",
            ]
        )


def test_split_reports_per_segment_and_pooled(project, tmp_path, monkeypatch):
    import fairdesk.incremental.segment as seg
    import fairdesk.models

    monkeypatch.setattr(fairdesk.models, "get_backend", lambda *a, **k: PrefixBackend())
    # two speech regions in every clip: cut at 0.6 s
    monkeypatch.setattr(
        seg, "speech_regions", lambda audio, settings=None: ((0.0, 0.5), (0.7, 1.0))
    )
    out = tmp_path / "split.json"
    rc = _run(
        [
            "incremental",
            "--project",
            str(project.folder),
            "--dataset",
            "d",
            "--split",
            "--sample",
            "4",
            "--json",
            str(out),
            "--quiet",
            "--no-store",
        ]
    )
    assert rc == 0
    res = json.loads(out.read_text())
    assert res["split"]["min_silence_duration_ms"] == 500 and "run_id" not in res
    assert all(r["n_segments"] == 2 for r in res["items"])
    segs = res["segments"]
    assert len(segs) == 8 and {s["segment"] for s in segs} == {0, 1}
    assert all(s["n_words"] is None for s in segs)  # no reference per segment: no WER
    for item in res["items"]:
        mine = [s for s in segs if s["id"] == item["id"]]
        assert [s["seg_start_s"] for s in mine] == [0.0, 0.6]
        # the item's stream is its segments' streams joined
        assert sum(s["n_adds"] for s in mine) == item["n_adds"]
        assert sum(s["n_revokes"] for s in mine) == item["n_revokes"]
        assert sum(s["decode_s"] for s in mine) == pytest.approx(item["decode_s"])
        assert item["n_adds"] - item["n_revokes"] == item["n_final_words"]


def test_policy_old_name_is_an_alias():
    """``--policy seed001`` (the old name) reads as ``--policy whetten``; the help names only
    the new one."""
    from fairdesk.cli import incremental as cli_incremental

    parser = argparse.ArgumentParser()
    cli_incremental.add_command(parser.add_subparsers())
    common = ["incremental", "--project", "p", "--dataset", "d"]
    old = parser.parse_args([*common, "--policy", "seed001"])
    new = parser.parse_args([*common, "--policy", "whetten"])
    assert old.policy == new.policy == ["whetten"]
    assert cli_incremental._policies(old) == [
        "native",
        "sliding-literal",
        "sliding",
        "concatenation",
    ]
