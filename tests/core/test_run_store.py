"""The run store of core/: batching, the run listing shared by the GUI and the incremental
store, results by kind, the prediction and embedding caches."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from fairdesk.core import batches, caches, run_items, runs
from fairdesk.core.errors import StoreError
from fairdesk.core.store import Project


@pytest.mark.parametrize(
    ("n", "sizes"),
    [(0, []), (1, [1]), (499, [499]), (500, [500]), (501, [500, 1]), (1201, [500, 500, 201])],
)
def test_batches_cut_at_the_batch_size(n, sizes):
    got = list(batches.batches(range(n)))
    assert [len(b) for b in got] == sizes
    assert [x for b in got for x in b] == list(range(n))  # every value once, in order
    assert batches.BATCH_SIZE == 500


def test_select_in_reads_more_values_than_one_statement_takes(tmp_path):
    p = Project(tmp_path / "p")
    with p.transaction() as c:
        batches.executemany_batched(
            c,
            "INSERT INTO embeddings(audio_hash, model_key, vector) VALUES (?,?,?)",
            ((f"h{i}", "m", b"") for i in range(1234)),
        )
    want = [f"h{i}" for i in range(0, 1234, 2)] + ["missing"]
    q = "SELECT audio_hash FROM embeddings WHERE model_key=? AND audio_hash IN ({marks})"
    got = [r[0] for r in batches.select_in(p.conn, q, ("m",), want)]
    assert sorted(got) == sorted(want[:-1])  # 617 hits over two batches, the miss left out


def _dataset(p: Project) -> int:
    with p.transaction() as c:
        cur = c.execute(
            "INSERT INTO datasets(name, root, format, created_at) VALUES ('d', '/', 'm', 0)"
        )
        c.execute(
            "INSERT INTO items(dataset_id, item_key, path, audio_hash, duration, sample_rate, "
            "channels, text, content_id) VALUES (?, 'a', 'a.wav', 'ha', 1, 16000, 1, 'x', 'c')",
            (cur.lastrowid,),
        )
        return int(cur.lastrowid)


def test_run_listing_and_kinds(tmp_path):
    p = Project(tmp_path / "p")
    ds = _dataset(p)
    audit = runs.insert_run(p, ds, "m", "f", "h1", {"by": ["accent"]})
    inc = runs.insert_run(p, ds, "a+b", "f", "h2", {"kind": runs.INCREMENTAL, "models": ["a"]})
    broken = runs.insert_run(p, None, "m", "f", "h3", {"by": "x"})
    running = runs.insert_run(p, ds, "m", "f", "h4", {}, status="running")
    with p.transaction() as c:  # unreadable settings count as an audit
        c.execute("UPDATE runs SET settings='not json' WHERE id=?", (broken,))
    done = runs.list_runs(p)
    assert [r["id"] for r in done] == [broken, inc, audit]  # newest first, done only
    assert [r["id"] for r in runs.list_runs(p, done_only=False)] == [running, broken, inc, audit]
    assert [r["dataset"] for r in done] == [None, "d", "d"]
    assert [runs.run_kind(r["settings"]) for r in done] == ["audit", "incremental", "audit"]
    assert runs.run_kind({"kind": "incremental"}) == runs.INCREMENTAL
    assert runs.run_kind("[1, 2]") == runs.AUDIT
    assert runs.done_run_ids(p) == [audit, inc, broken]
    row = runs.run_row(p, inc)
    assert row["model_id"] == "a+b" and json.loads(row["settings"])["models"] == ["a"]
    assert row["finished_at"] == row["created_at"]
    assert runs.run_row(p, 999) is None

    from fairdesk.incremental.store import incremental_runs, is_incremental_settings

    assert [r.id for r in incremental_runs(p)] == [inc]
    assert is_incremental_settings(row["settings"]) and not is_incremental_settings("{")


def test_results_by_kind_and_the_audit_payload(tmp_path):
    p = Project(tmp_path / "p")
    run = runs.insert_run(p, _dataset(p), "m", "f", "req", {})
    assert runs.lookup_result(p, "req") is None
    with pytest.raises(ValueError, match="no stored audit result"):
        runs.run_payload(p, run)
    with pytest.raises(ValueError, match=rf"finished runs: \[{run}\]"):
        runs.run_items_frame(p, run)
    runs.add_result(p, run, "regression", {"n": 1})
    runs.finish_run(p, run, "req", {"wer": 0.25}, items=[{"id": "a", "wer": float("nan")}])
    runs.add_result(p, run, "regression", {"n": 2})
    assert [r["payload"]["n"] for r in runs.results_for_run(p, run, "regression")] == [1, 2]
    assert [r["kind"] for r in runs.results_for_run(p, run)] == [
        "regression",
        "items",
        "audit",
        "regression",
    ]
    assert runs.run_payload(p, run) == {"wer": 0.25}
    assert runs.lookup_result(p, "req") == (run, {"wer": 0.25})
    frame = runs.run_items_frame(p, run)
    assert list(frame["id"]) == ["a"] and pd.isna(frame["wer"].iloc[0])  # NaN stored as null
    with pytest.raises(StoreError, match="run 999 does not exist"):
        runs.add_result(p, 999, "regression", {})


def test_prediction_cache_and_run_items(tmp_path):
    p = Project(tmp_path / "p")
    run = runs.insert_run(p, _dataset(p), "m", "f", "req", {}, status="running")
    db_id = int(p.conn.execute("SELECT id FROM items").fetchone()[0])
    frame = pd.DataFrame({"db_id": [db_id], "audio_hash": ["ha"]})
    words = [{"word": "x", "start": 0.0, "end": 0.5}]
    pred = run_items.prediction_to_dict({"text": "x", "words": words, "confidence": 0.9})
    assert pred == {"text": "x", "words": words, "confidence": 0.9, "extra": {}}
    run_items.store_shard(p, run, "m@k", frame, [(0, pred, None)])
    assert run_items.lookup_predictions(p, "m@k", ["ha", "ha", "hb"]) == {"ha": pred}
    assert run_items.lookup_predictions(p, "other", ["ha"]) == {}
    assert json.loads(run_items.prediction_words(p, "ha", "m@k")) == words
    assert json.loads(run_items.run_item_words(p, run, db_id)) == words
    assert run_items.prediction_words(p, "hb", "m@k") is None
    run_items.store_shard(p, run, "m@k", frame, [(0, None, "unreadable")])
    row = p.conn.execute("SELECT status, error FROM run_items").fetchone()
    assert tuple(row) == ("failed", "unreadable")


def test_embedding_and_saliency_caches(tmp_path):
    p = Project(tmp_path / "p")
    v = np.arange(4, dtype=np.float32)
    caches.save_embeddings(p, "m", [("h1", v), ("h2", v + 1)])
    got = caches.lookup_embeddings(p, "m", ["h1", "h2", "h3"])
    assert sorted(got) == ["h1", "h2"] and np.array_equal(got["h2"], v + 1)
    key = caches.SaliencyKey("h1", "m", "t", "occlusion")
    caches.save_saliency(p, key, 0.02, [0.5, 1.0], {"a": 1})
    caches.update_saliency_meta(p, key, {"a": 2})
    hit = caches.lookup_saliency(p, key)
    assert hit.key == key and hit.meta == {"a": 2} and hit.frame_s == 0.02
    assert np.array_equal(hit.curve, np.array([0.5, 1.0], dtype=np.float32))
    assert [s.key for s in caches.saliency_for_audio(p, "h1")] == [key]
    assert caches.saliency_hashes(p, "m") == {"h1"} and caches.saliency_hashes(p, "x") == set()
