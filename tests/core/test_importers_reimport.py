"""import_dataset end to end: re-imports (added / updated / unchanged), the stored items and
problems, the report's dict, progress, and the refusals (messages checked word for word).

Further down, a reader is swapped for a fake one (``READERS``) so that import_dataset's own
row checks see exactly the candidates a test gives, including values no table reader lets
through (bytes that are not UTF-8 in a path or a speaker id: LibriSpeech and the corpus readers
read raw text); then the readers' own choices and the stored annotations, stale flags and
warnings (what the mutation check of ``bench/mutation.py core`` found unchecked).
"""

import json

import numpy as np
import pytest
import soundfile as sf

from fairdesk.core import importers
from fairdesk.core.errors import ImportFailed
from fairdesk.core.import_rows import Candidate, Problem
from fairdesk.core.importers import derive_content_id, detect_format, import_dataset
from fairdesk.core.store import Project
from tests.conftest import write_wav


def _manifest(root, rows):
    (root / "manifest.csv").write_text(
        "\n".join(["id,path,text,speaker,zeta,alpha", *rows]) + "\n", encoding="utf-8"
    )
    return root / "manifest.csv"


def test_reimport_counts_stores_and_reports(tmp_path):
    root = tmp_path / "data"
    for i in range(52):
        write_wav(root / f"w{i}.wav", seconds=0.05, freq=200 + i)
    rows = [f"u{i},w{i}.wav,Cafe\u0301 {i} ,s{i % 3},z,a" for i in range(52)]
    rows.append("bad,missing.wav,gone,s1,z,a")
    seen = []
    p = Project(tmp_path / "proj")
    man = _manifest(root, rows)
    rep = import_dataset(p, "d", root, progress=lambda f, m: seen.append((f, m)))
    assert (rep.dataset, rep.format, rep.imported, rep.added, rep.updated, rep.unchanged) == (
        "d",
        "manifest",
        52,
        52,
        0,
        0,
    )
    assert seen == [(50 / 53, "checked 50/53 files")]  # 53 files to check, 1 missing
    (prob,) = rep.problems
    assert (prob.row, prob.path, prob.source) == (54, "missing.wav", str(man))
    d = rep.to_dict()
    assert set(d) >= {"dataset", "format", "imported", "added", "updated", "unchanged", "problems"}
    assert (d["dataset"], d["format"], d["imported"], d["added"], d["updated"], d["unchanged"]) == (
        "d",
        "manifest",
        52,
        52,
        0,
        0,
    )
    assert d["problems"] == [
        {"row": 54, "path": "missing.wav", "reason": prob.reason, "source": str(man)}
    ]
    items = p.items(p.dataset("d")).set_index("id")
    it = items.loc["u1"]
    assert it["text"] == "Café 1" and it["speaker_id"] == "s1" and it["path"] == "w1.wav"
    assert it["content_id"] == derive_content_id("Café 1")
    stored = p.conn.execute("SELECT metadata FROM items WHERE item_key='u1'").fetchone()[0]
    assert stored == json.dumps({"alpha": "a", "zeta": "z"}, ensure_ascii=False)
    kept = p.conn.execute("SELECT row, path, reason FROM import_problems").fetchall()
    assert [tuple(r) for r in kept] == [(54, "missing.wav", f"{man}: {prob.reason}")]

    # re-import: one text changed, one file changed, the rest unchanged
    rows[0] = "u0,w0.wav,another text,s0,z,a"
    write_wav(root / "w1.wav", seconds=0.06, freq=999)
    _manifest(root, rows)
    rep = import_dataset(p, "d", root / "manifest.csv")
    assert (rep.imported, rep.added, rep.updated, rep.unchanged) == (52, 0, 2, 50)
    items = p.items(p.dataset("d")).set_index("id")
    assert items.loc["u0", "text"] == "another text"
    assert items.loc["u0", "content_id"] == derive_content_id("another text")
    # the same name from another folder is refused
    other = tmp_path / "other"
    write_wav(other / "w0.wav")
    _manifest(other, ["u0,w0.wav,x,s0,z,a"])
    with pytest.raises(ImportFailed) as e:
        import_dataset(p, "d", other / "manifest.csv")
    assert str(e.value) == (
        f"dataset 'd' already exists with its audio in {root.resolve()}; "
        "choose another --name to import from a different folder"
    )


def test_a_manifest_folder_and_the_format_refusals(tmp_path):
    root = tmp_path / "data"
    write_wav(root / "a.wav")
    (root / "manifest.tsv").write_text("path\ttext\na.wav\thi\n", encoding="utf-8")
    p = Project(tmp_path / "proj")
    rep = import_dataset(p, "d", root, fmt="manifest")  # a folder holding manifest.tsv
    assert rep.imported == 1 and rep.format == "manifest"
    assert detect_format(root) == "manifest"
    with pytest.raises(ImportFailed) as e:
        import_dataset(p, "x", root, fmt="sphinx")
    assert str(e.value) == (
        "unknown format 'sphinx'; use one of auto, manifest, audiofolder, "
        "commonvoice, librispeech, saa, l2arctic, kaldi, nemo, lhotse, vctk, timit, hf, eaf, "
        "textgrid, chat"
    )
    with pytest.raises(ImportFailed) as e:
        detect_format(tmp_path / "nope")
    assert str(e.value) == f"{tmp_path / 'nope'}: no such file or folder"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ImportFailed) as e:
        detect_format(empty)
    assert str(e.value) == (
        f"{empty}: cannot tell the dataset format; pass --format "
        "(manifest, audiofolder, commonvoice, librispeech, saa, l2arctic, kaldi, nemo, lhotse, "
        "vctk, timit, hf, eaf, textgrid or chat)"
    )
    (empty / "metadata.jsonl").write_text("{}\n")
    assert detect_format(empty) == "audiofolder"
    (empty / "metadata.jsonl").unlink()
    (empty / "x.trans.txt").write_text("")
    assert detect_format(empty) == "librispeech"


BAD = "caf\udce9"  # 'café' in Latin-1, read as UTF-8 with surrogateescape
BAD_REASON = "text is not valid UTF-8 (byte 0xe9 at character 4); re-save the file as UTF-8"


@pytest.fixture
def project(tmp_path):
    return Project(tmp_path / "proj")


def _fake_reader(monkeypatch, root, cands, problems=()):
    def reader(path, **cols):
        return root, cands, list(problems)

    monkeypatch.setitem(importers.READERS, "manifest", reader)
    (root / "m.csv").write_text("unused by the fake reader\n", encoding="utf-8")
    return root / "m.csv"


def _cand(row, path, text="hello", src="m.csv", **kw):
    return Candidate(row=row, source=src, key=kw.pop("key", None), path=path, text=text, **kw)


# -- import_dataset: the per-row checks ----------------------------------------------------------
def test_every_row_check_names_the_row_the_path_and_the_source(project, tmp_path, monkeypatch):
    root = tmp_path / "data"
    for n in ("a", "b", "c", "d", "e"):
        write_wav(root / f"{n}.wav", seconds=0.2)
    write_wav(tmp_path / "data-private" / "x.wav", seconds=0.2)
    cands = [
        _cand(2, str(root / "a.wav"), text=BAD),
        _cand(3, str(root / "caf\udce9.wav")),
        _cand(4, str(root / "b.wav"), speaker_id=BAD),
        _cand(5, str(root / "b.wav"), metadata={"accent": "ok", "note": BAD}),
        _cand(6, ""),
        _cand(7, str(tmp_path / "data-private" / "x.wav")),
        _cand(8, str(root / "c.wav"), text="  "),
        _cand(9, str(root / "d.wav"), key="k1", src="other.csv"),
        _cand(10, str(root / "e.wav"), key="k1", src="other.csv"),
        _cand(11, str(root / "b.wav"), key="good", metadata={"accent": "ok"}),
    ]
    man = _fake_reader(
        monkeypatch,
        root,
        cands,
        [
            Problem(1, None, "from the reader", "z.csv"),
            Problem(20, None, "late line", "m.csv"),
            Problem(1, None, "line 1", "s.csv"),
            Problem(None, None, "the whole file", "s.csv"),
            Problem(None, None, "no source", None),
            Problem(3, None, "absolute", "/data/a.csv"),
        ],
    )
    rep = import_dataset(project, "d", man)
    # row 7 names a file outside the dataset's folder: read where it is (a second root)
    assert rep.imported == 3 and rep.added == 3
    assert rep.roots == (str(root.resolve()), str(tmp_path / "data-private"))
    # sorted by source (none first), then row (none first)
    assert list(rep.problems) == [
        Problem(None, None, "no source", None),
        Problem(3, None, "absolute", "/data/a.csv"),
        Problem(2, None, BAD_REASON, "m.csv"),
        Problem(3, None, importers.bad_utf8(str(root / "caf\udce9.wav")), "m.csv"),
        Problem(4, None, BAD_REASON, "m.csv"),
        Problem(5, None, BAD_REASON, "m.csv"),
        Problem(6, None, "no audio path in this row", "m.csv"),
        Problem(8, "c.wav", "empty transcript; add the reference text or remove the row", "m.csv"),
        Problem(20, None, "late line", "m.csv"),
        Problem(
            10,
            "e.wav",
            "duplicate item id 'k1' (first seen on line 9); give each row a unique id",
            "other.csv",
        ),
        Problem(None, None, "the whole file", "s.csv"),
        Problem(1, None, "line 1", "s.csv"),
        Problem(1, None, "from the reader", "z.csv"),
    ]
    stored = project.conn.execute("SELECT row, path, reason FROM import_problems").fetchall()
    assert [tuple(r) for r in stored][:3] == [
        (1, None, "z.csv: from the reader"),
        (20, None, "m.csv: late line"),
        (1, None, "s.csv: line 1"),
    ]
    assert (3, None, "/data/a.csv: absolute") in [tuple(r) for r in stored]
    assert (None, None, "no source") in [tuple(r) for r in stored]
    items = project.items(project.dataset("d")).set_index("id")
    assert sorted(items.index) == sorted(
        ["good", "k1", (tmp_path / "data-private/x.wav").as_posix()]
    )
    assert items.loc["good", "path"] == "b.wav" and items.loc["good", "accent"] == "ok"


def test_a_problem_without_a_source_is_stored_as_its_reason(project, tmp_path, monkeypatch):
    root = tmp_path / "data"
    write_wav(root / "a.wav", seconds=0.2)
    man = _fake_reader(
        monkeypatch,
        root,
        [_cand(2, str(root / "a.wav"))],
        [Problem(None, None, "the whole file", None)],
    )
    import_dataset(project, "d", man)
    assert [
        tuple(r) for r in project.conn.execute("SELECT row, path, reason FROM import_problems")
    ] == [(None, None, "the whole file")]


def test_labels_only_rows_need_no_text_and_the_language_default(project, tmp_path, monkeypatch):
    root = tmp_path / "data"
    write_wav(root / "a.wav", seconds=0.2)
    man = _fake_reader(
        monkeypatch,
        root,
        [
            _cand(
                2,
                str(root / "a.wav"),
                text="",
                needs_text=False,
                key="a",
                metadata={"label": "Ọ̀yọ́", "n": 2},
            )
        ],
    )
    rep = import_dataset(project, "d", man)
    assert rep.imported == 1
    ds = project.dataset("d")
    assert ds.language == "en" and ds.format == "manifest"
    it = project.items(ds).iloc[0]
    assert it["content_id"] == "item:a" and it["text"] == ""
    stored = project.conn.execute("SELECT metadata FROM items").fetchone()[0]
    assert stored == '{"label": "Ọ̀yọ́", "n": 2}'  # UTF-8 as is, keys sorted


def test_content_id_is_the_hash_of_the_normalised_reference():
    import hashlib

    def sha(t):
        return "t:" + hashlib.sha1(t.encode("utf-8")).hexdigest()[:12]

    assert derive_content_id("Hello,  World!") == sha("hello world")
    assert derive_content_id(None) == derive_content_id("") == sha("")


def test_warnings_stale_items_and_the_report_dict(project, tmp_path):
    root = tmp_path / "data"
    write_wav(root / "a.wav", seconds=0.3)
    sf.write(str(root / "quiet.wav"), np.zeros(8000, np.float32), 16000)  # digital silence
    write_wav(root / "c.wav", seconds=0.3, freq=300)
    man = root / "manifest.csv"
    man.write_text("id,path,text\na,a.wav,one\nq,quiet.wav,two\nc,c.wav,three\n", encoding="utf-8")
    rep = import_dataset(project, "d", man, language="ig")
    silence = "digital silence (every sample is 0); check the recording"
    assert rep.warnings == ({"item": "q", "path": "quiet.wav", "warning": silence},)
    assert project.dataset("d").language == "ig"
    assert rep.to_dict() == {
        "dataset": "d",
        "format": "manifest",
        "imported": 3,
        "added": 3,
        "updated": 0,
        "unchanged": 0,
        "stale": 0,
        "problems": [],
        "warnings": [{"item": "q", "path": "quiet.wav", "warning": silence}],
        "audio_roots": [str((tmp_path / "data").resolve())],
        "speakers": None,
    }
    status = {
        r["item_key"]: (r["stale"], json.loads(r["warnings"]))
        for r in project.conn.execute(
            "SELECT i.item_key, s.stale, s.warnings FROM item_status s JOIN items i ON i.id=s.item_id"
        )
    }
    assert status == {"a": (0, []), "q": (0, [silence]), "c": (0, [])}
    # the source drops c: kept, marked stale (1), counted once
    man.write_text("id,path,text\na,a.wav,one\nq,quiet.wav,two\n", encoding="utf-8")
    rep = import_dataset(project, "d", man)
    assert rep.stale == 1 and rep.to_dict()["stale"] == 1 and rep.unchanged == 2
    status = {
        r["item_key"]: r["stale"]
        for r in project.conn.execute(
            "SELECT i.item_key, s.stale FROM item_status s JOIN items i ON i.id=s.item_id"
        )
    }
    assert status == {"a": 0, "q": 0, "c": 1}
    # listed again: live again
    man.write_text("id,path,text\na,a.wav,one\nc,c.wav,three\n", encoding="utf-8")
    rep = import_dataset(project, "d", man)
    assert rep.stale == 1
    status = {
        r["item_key"]: r["stale"]
        for r in project.conn.execute(
            "SELECT i.item_key, s.stale FROM item_status s JOIN items i ON i.id=s.item_id"
        )
    }
    assert status == {"a": 0, "q": 1, "c": 0}


def test_progress_is_said_every_50_files_only(project, tmp_path):
    root = tmp_path / "data"
    rows = []
    for i in range(49):
        write_wav(root / f"w{i}.wav", seconds=0.12, freq=200 + i)
        rows.append(f"u{i},w{i}.wav,t {i}")
    (root / "m.csv").write_text("id,path,text\n" + "\n".join(rows) + "\n", encoding="utf-8")
    seen = []
    rep = import_dataset(project, "d", root / "m.csv", progress=lambda f, m: seen.append(m))
    assert rep.imported == 49 and seen == []  # 49 files: no 50th


def test_source_annotations_are_stored_and_replaced_by_kind(project, tmp_path, monkeypatch):
    root = tmp_path / "data"
    write_wav(root / "a.wav", seconds=0.2)
    write_wav(root / "b.wav", seconds=0.2, freq=330)

    def cands(tone):
        return [
            _cand(
                2,
                str(root / "a.wav"),
                key="a",
                annotations=[
                    ("phone_error", 0.1, 0.2, {"canonical": "TH", "perceived": tone}),
                    ("phone_counts", None, None, {"n_phones": 5}),
                ],
            ),
            _cand(3, str(root / "b.wav"), key="b"),
        ]

    man = _fake_reader(monkeypatch, root, cands("Ọ́"))
    import_dataset(project, "d", man)
    items = project.items(project.dataset("d")).set_index("id")
    a, b = int(items.loc["a", "db_id"]), int(items.loc["b", "db_id"])
    rows = project.conn.execute(
        "SELECT kind, start, end, value, annotator, created_at, updated_at FROM annotations "
        "WHERE item_id=? ORDER BY id",
        (a,),
    ).fetchall()
    assert [(r["kind"], r["start"], r["end"], r["value"], r["annotator"]) for r in rows] == [
        (
            "phone_error",
            0.1,
            0.2,
            '{"canonical": "TH", "perceived": "Ọ́"}',
            "imported with the dataset",
        ),
        ("phone_counts", None, None, '{"n_phones": 5}', "imported with the dataset"),
    ]
    assert all(r["created_at"] == r["updated_at"] and r["created_at"] > 0 for r in rows)
    assert project.annotations(b) == []
    # a reviewer's own note on the item stays; the imported kinds are replaced, not doubled
    project.conn.execute(
        "INSERT INTO annotations(item_id, kind, start, end, value, created_at, updated_at) "
        "VALUES (?, 'note', NULL, NULL, '{\"text\": \"mine\"}', 1, 1)",
        (a,),
    )
    project.conn.commit()
    monkeypatch.setitem(importers.READERS, "manifest", lambda path, **cols: (root, cands("S"), []))
    import_dataset(project, "d", man)
    kinds = [(r["kind"], r["value"]) for r in project.annotations(a)]
    assert sorted(k for k, _ in kinds) == ["note", "phone_counts", "phone_error"]
    assert ("phone_error", {"canonical": "TH", "perceived": "S"}) in kinds


# -- import_dataset: the refusals ---------------------------------------------------------------
def test_import_refusals_word_for_word(project, tmp_path, monkeypatch):
    for name in ("", None):
        with pytest.raises(ValueError) as e:
            import_dataset(project, name, tmp_path)
        assert str(e.value) == "the dataset needs a name; give one (--name)"
    with pytest.raises(ImportFailed) as e:
        import_dataset(project, "d", tmp_path / "nope.csv")
    assert str(e.value) == f"{tmp_path / 'nope.csv'}: no such file or folder"
    long = tmp_path / ("x" * 300)
    with pytest.raises(ImportFailed) as e:
        import_dataset(project, "d", long)
    assert str(e.value) == f"{str(long)[:200]}: cannot be opened (File name too long)"
    f = tmp_path / "m.csv"
    f.write_text("path,text\n", encoding="utf-8")
    with pytest.raises(ImportFailed) as e:
        import_dataset(project, "d", f, fmt="commonvoice")
    assert str(e.value) == f"{f}: the commonvoice format expects a folder"
    # a path under ~ is expanded
    monkeypatch.setenv("HOME", str(tmp_path))
    write_wav(tmp_path / "home" / "a.wav", seconds=0.2)
    (tmp_path / "home" / "manifest.jsonl").write_text(
        '{"path": "a.wav", "text": "hi"}\n', encoding="utf-8"
    )
    assert import_dataset(project, "h", "~/home", fmt="manifest").imported == 1
    assert detect_format(tmp_path / "home") == "manifest"


def test_a_common_voice_folder_with_a_stray_manifest_is_common_voice(project, tmp_path):
    root = tmp_path / "cv"
    write_wav(root / "clips" / "a.wav", seconds=0.2)
    (root / "validated.tsv").write_text(
        "client_id\tpath\tsentence\nc1\ta.wav\thi\n", encoding="utf-8"
    )
    (root / "manifest.csv").write_text("path,text\nclips/a.wav,other\n", encoding="utf-8")
    rep = import_dataset(project, "cv", root)
    assert rep.format == "commonvoice" and rep.imported == 1
    assert project.items(project.dataset("cv")).iloc[0]["text"] == "hi"


# -- detect_format ----------------------------------------------------------------------------------
def test_detect_format_of_each_layout(tmp_path):
    def folder(name, *files):
        d = tmp_path / name
        d.mkdir()
        for f in files:
            (d / f).parent.mkdir(parents=True, exist_ok=True)
            if f.endswith("/"):
                (d / f).mkdir(exist_ok=True)
            else:
                (d / f).write_text("x\n", encoding="utf-8")
        return d

    assert detect_format(folder("af", "metadata.csv")) == "audiofolder"
    assert detect_format(folder("saa", "speakers_all.csv")) == "saa"
    assert detect_format(folder("l2", "ABA/wav/", "ABA/transcript/")) == "l2arctic"
    assert detect_format(folder("mj", "manifest.jsonl")) == "manifest"
    for half in (folder("w", "ABA/wav/"), folder("t", "ABA/transcript/")):
        with pytest.raises(ImportFailed, match="cannot tell the dataset format"):
            detect_format(half)


# -- readers ------------------------------------------------------------------------------------------
def test_common_voice_reads_its_own_columns_unquoted_and_keeps_every_problem(tmp_path):
    root = tmp_path / "cv"
    (root / "clips").mkdir(parents=True)
    head = (
        "client_id\tpath\tsentence_id\tsentence\tspeaker\ttranscription\tcontent_id\t"
        "up_votes\tdown_votes\tsegment\n"
    )
    (root / "train.tsv").write_text(
        head + 'c1\ta.mp3\ts1\t"Hi," she said\tspk\tT\tC\t2\t0\tseg\nbad\n', encoding="utf-8"
    )
    (root / "dev.tsv").write_text(
        head + "c2\tb.mp3\ts2\tplain\tspk\tT\tC\t1\t1\t\nbad too\n", encoding="utf-8"
    )
    _, cands, problems = importers.read_commonvoice(root)
    assert [(c.text, c.speaker_id, c.content_id, c.key) for c in cands] == [
        ('"Hi," she said', "c1", "s1", "a"),
        ("plain", "c2", "s2", "b"),
    ]
    assert cands[0].metadata == {"speaker": "spk", "transcription": "T", "content_id": "C"}
    assert [(p.row, p.source) for p in problems] == [
        (3, str(root / "train.tsv")),
        (3, str(root / "dev.tsv")),
    ]


def test_audiofolder_prefers_file_name_passes_options_and_keeps_every_problem(tmp_path):
    root = tmp_path / "af"
    (root / "test").mkdir(parents=True)
    (root / "metadata.csv").write_text(
        "file,file_name,words\nx.txt,a.wav,hello\n1,2,3,4\n", encoding="utf-8"
    )
    (root / "test" / "metadata.csv").write_text(
        "file,file_name,words\ny.txt,b.wav,bye\n1\n", encoding="utf-8"
    )
    _, cands, problems = importers.read_audiofolder(root, text_col="words")
    assert [(c.path, c.text, c.metadata) for c in cands] == [
        (str(root / "a.wav"), "hello", {"file": "x.txt"}),
        (str(root / "test" / "b.wav"), "bye", {"file": "y.txt", "split": "test"}),
    ]
    assert [(p.row, p.source) for p in problems] == [
        (3, str(root / "metadata.csv")),
        (3, str(root / "test" / "metadata.csv")),
    ]
    # no file_name column: the usual audio-path names are looked for
    other = tmp_path / "af2"
    other.mkdir()
    (other / "metadata.csv").write_text("path,text\nc.wav,hi\n", encoding="utf-8")
    _, cands, _ = importers.read_audiofolder(other)
    assert [(c.path, c.text) for c in cands] == [(str(other / "c.wav"), "hi")]


def test_librispeech_speakers_table_with_comments_and_unlisted_speakers(tmp_path):
    root = tmp_path / "ls"
    (root / "19" / "198").mkdir(parents=True)
    (root / "SPEAKERS.TXT").write_text(
        "; comment\n\n19 | F | train-clean-100 | 25.19 | Someone\nbroken line\n"
        "; another\n20 | M | dev-clean | 1.0 | Other\n",
        encoding="utf-8",
    )
    (root / "19" / "198" / "19-198.trans.txt").write_text(
        "19-198-0001 HELLO\n\n21-198-0002 UNLISTED\n20-198-0003 AFTER A BROKEN LINE\n",
        encoding="utf-8",
    )
    _, cands, problems = importers.READERS["librispeech"](root)
    assert [(c.row, c.key, c.speaker_id, c.metadata) for c in cands] == [
        (
            1,
            "19-198-0001",
            "19",
            {"gender": "female", "gender_raw": "F", "subset": "train-clean-100"},
        ),
        (3, "21-198-0002", "21", {}),
        (4, "20-198-0003", "20", {"gender": "male", "gender_raw": "M", "subset": "dev-clean"}),
    ]
    assert [(p.row, p.reason) for p in problems] == [
        (4, "SPEAKERS.TXT line is not 'ID | SEX | SUBSET | MINUTES | NAME'"),
        (
            None,
            "speaker 21 is not in SPEAKERS.TXT: imported without gender and subset; add a line "
            "'21 | F or M | subset | minutes | name' to it",
        ),
    ]
