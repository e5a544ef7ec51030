"""Schema 4: transcript annotations with their annotator, history and the latest text."""

from __future__ import annotations

import json
import sqlite3

from fairdesk.core import schema, store


def _v3_project(folder):
    """A project written by schema 3 (the migrations up to 3 applied by hand), with a
    dataset, an item and an annotation of the old shape."""
    folder.mkdir()
    c = sqlite3.connect(str(folder / store.DB_NAME), isolation_level=None)
    for script in store.MIGRATIONS[:3]:
        for stmt in schema._split_sql(script):
            c.execute(stmt)
    c.execute("PRAGMA user_version=3")
    c.execute(
        "INSERT INTO datasets(id, name, root, format, created_at, language) "
        "VALUES (1, 'd', '/x', 'manifest', 1.0, 'ig')"
    )
    c.execute(
        "INSERT INTO items(id, dataset_id, item_key, path, audio_hash, duration, "
        "sample_rate, channels, text, speaker_id, content_id, metadata) VALUES "
        "(7, 1, 'a', 'a.wav', 'h1', 1.0, 16000, 1, 'akwa', 's1', 'c1', '{}')"
    )
    c.execute(
        "INSERT INTO annotations(item_id, kind, start, end, value, created_at, "
        "updated_at) VALUES (7, 'mispronunciation', 0.1, 0.3, '\"x\"', 2.0, 2.0)"
    )
    c.execute("INSERT INTO saliency VALUES ('h1', 'm', 't', 'occlusion', 0.02, x'00', '{}', 3)")
    c.close()


def test_a_v3_project_migrates_to_the_current_schema_and_keeps_its_data(tmp_path):
    _v3_project(tmp_path / "p")
    p = store.Project(tmp_path / "p", create=False)
    # v4 item status, v5 annotators, v6 alignments, v7 item spans, v8 recording plans
    assert p.schema_version == store.SCHEMA_VERSION == 9
    anns = p.annotations(7)
    assert len(anns) == 1 and anns[0]["kind"] == "mispronunciation"
    assert anns[0]["value"] == "x" and anns[0]["start"] == 0.1 and anns[0]["annotator"] == ""
    assert p.conn.execute("SELECT text FROM items WHERE id=7").fetchone()[0] == "akwa"
    assert p.conn.execute("SELECT COUNT(*) FROM saliency").fetchone()[0] == 1
    p.close()
    # opening again does not migrate twice
    assert store.Project(tmp_path / "p", create=False).schema_version == store.SCHEMA_VERSION


def test_transcripts_keep_the_original_coalesce_a_session_and_list_the_history(tmp_path):
    _v3_project(tmp_path / "p")
    p = store.Project(tmp_path / "p")
    assert p.latest_transcripts() == {}
    assert p.save_transcript(7, "akwa", "ada") is None  # unchanged: nothing written
    a1 = p.save_transcript(7, "àkwa", "ada", session="s1")
    a2 = p.save_transcript(7, "a\u0300kwa\u0300", "ada", session="s1")  # typed decomposed
    assert a1 == a2  # one row per editing session
    a3 = p.save_transcript(7, "àkwá", "obi", session="s2")
    assert a3 != a1
    assert p.latest_transcripts() == {7: "àkwá"}
    assert p.latest_transcripts([8]) == {}
    hist = p.transcript_history(7)
    assert [h["text"] for h in hist] == ["akwa", "àkwà", "àkwá"]
    assert [h["annotator"] for h in hist] == ["", "ada", "obi"]
    assert hist[0]["source"] == "import" and hist[1]["created_at"] > 0
    assert p.conn.execute("SELECT text FROM items WHERE id=7").fetchone()[0] == "akwa"
    row = p.conn.execute("SELECT value FROM annotations WHERE id=?", (a3,)).fetchone()
    # obi annotates independently: his version follows the imported text, not ada's
    assert json.loads(row[0])["previous"] == "akwa"
