"""Unicode-equal labels are equal (issue 29): group labels, speaker ids, item ids and
metadata typed in NFC and in NFD ("Ìgbò" with a precomposed Ì or I + a combining grave) are
one label in ``--table`` audits and in imported datasets; a manifest's file names are found on
disk under NFC and NFD; a project stored before ids were normalised is read as NFC and
renamed on re-import, two stored ids equal under NFC kept apart and named."""

from __future__ import annotations

import json
import sqlite3
import unicodedata

from tests.conftest import write_wav

from .conftest import changed, dump

QUICK = ("--n-bootstrap", "200", "--min-items", "1", "--min-speakers", "1")
IGBO = "Ìgbò"
ONICHA = "Ọ̀nị́chà"


def NFC(s: str) -> str:
    return unicodedata.normalize("NFC", s)


def NFD(s: str) -> str:
    return unicodedata.normalize("NFD", s)


def test_the_two_spellings_differ_as_code_points():
    assert NFC(IGBO) != NFD(IGBO) and NFC(ONICHA) != NFD(ONICHA)
    assert len(NFD(ONICHA)) > len(NFC(ONICHA))


def test_table_labels_and_speakers_are_equal_under_nfc(cli, tmp_path):
    rows = ["item_id,reference,hypothesis,speaker_id,accent"]
    for i in range(8):  # one Ìgbò speaker typed two ways, the accent typed two ways
        form = NFC if i % 2 else NFD
        rows.append(
            f"u{i},play the song,play {'a' if i < 2 else 'the'} song,{form(ONICHA)},{form(IGBO)}"
        )
    for i in range(8, 12):
        rows.append(f"u{i},play the song,play the song,y{i % 2},yoruba")
    table = tmp_path / "t.csv"
    table.write_text("\n".join(rows) + "\n", encoding="utf-8")
    code, out, err = cli("audit", "--table", table, "--by", "accent", *QUICK, "--json", "-")
    assert code == 0, err
    assert f"--table {table}: 12 of 12 rows used" in err
    groups = {g["group"]: g for g in json.loads(out)["groups"]}
    assert set(groups) == {NFC(IGBO), "yoruba"}  # not two groups that print alike
    assert groups[NFC(IGBO)]["n_items"] == 8
    assert groups[NFC(IGBO)]["n_speakers"] == 1  # one speaker, not two
    # a filter and a reference typed in NFD name the same group
    code, out, err = cli(
        "audit",
        "--table",
        table,
        "--by",
        "speaker_id",
        "--filter",
        f"accent={NFD(IGBO)}",
        *QUICK,
        "--json",
        "-",
    )
    assert code == 0, err
    assert [g["group"] for g in json.loads(out)["groups"]] == [NFC(ONICHA)]
    code, out, err = cli(
        "audit", "--table", table, "--by", "accent", "--reference", NFD(IGBO), *QUICK, "--json", "-"
    )
    assert code == 0, err
    assert json.loads(out)["reference"] == NFC(IGBO)


def _manifest(root, rows, name="m.csv"):
    lines = ["id,path,text,speaker_id,accent"]
    lines += [",".join(r) for r in rows]
    (root / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root / name


def test_import_stores_ids_and_metadata_in_nfc(cli, base):
    proj, data = base
    for i in range(4):
        write_wav(data / "u" / f"w{i}.wav", seconds=0.3, freq=300 + 40 * i)
    rows = [
        (
            f"{(NFC if i % 2 else NFD)('é')}{i}",
            f"u/w{i}.wav",
            "play song",
            (NFC if i % 2 else NFD)(ONICHA),
            (NFD if i % 2 else NFC)(IGBO),
        )
        for i in range(4)
    ]
    rows.append((NFD("é1"), "u/w0.wav", "play song", "x", "y"))  # é1 again, typed as NFD
    before = dump(proj)
    code, out, err = cli(
        "import", "--project", proj, "--name", "u", _manifest(data, rows), "--json"
    )
    assert code == 0, err
    rep = json.loads(out)
    assert rep["imported"] == 4
    assert [(p["row"], p["reason"]) for p in rep["problems"]] == [
        (6, f"duplicate item id {NFC('é1')!r} (first seen on line 3); give each row a unique id")
    ]
    assert changed(before, dump(proj)) <= {"datasets", "items", "item_status", "import_problems"}
    code, out, _ = cli("items", "--project", proj, "--dataset", "u", "--json")
    items = json.loads(out)
    assert [r["id"] for r in items] == [NFC(f"é{i}") for i in range(4)]
    assert {r["speaker_id"] for r in items} == {NFC(ONICHA)}
    assert {r["accent"] for r in items} == {NFC(IGBO)}
    code, out, _ = cli("datasets", "--project", proj, "--json")
    (s,) = [d for d in json.loads(out) if d["name"] == "u"]
    assert s["speakers"] == 1
    assert s["columns"]["accent"] == {NFC(IGBO): {"items": 4, "speakers": 1}}


def test_file_names_are_found_under_nfc_and_nfd(cli, base):
    proj, data = base
    # on disk: café.wav in NFD (as macOS writes it), Ọ̀nị́chà/a.wav in NFC
    write_wav(data / NFD("café.wav"), seconds=0.3, freq=300)
    write_wav(data / NFC(ONICHA) / "a.wav", seconds=0.3, freq=350)
    write_wav(data / "plain.wav", seconds=0.3, freq=400)
    rows = [
        ("c", NFC("café.wav"), "one", "s1", "x"),  # manifest NFC, disk NFD
        ("o", f"{NFD(ONICHA)}/a.wav", "two", "s2", "x"),  # manifest NFD, disk NFC
        ("p", "plain.wav", "three", "s3", "x"),
    ]
    code, out, err = cli(
        "import", "--project", proj, "--name", "n", _manifest(data, rows), "--json"
    )
    assert code == 0, err
    rep = json.loads(out)
    assert rep["imported"] == 3 and rep["problems"] == []
    code, out, _ = cli("items", "--project", proj, "--dataset", "n", "--json")
    paths = {r["id"]: r["path"] for r in json.loads(out)}
    # the file's name as it is on disk (so that it opens later)
    assert paths == {"c": NFD("café.wav"), "o": f"{NFC(ONICHA)}/a.wav", "p": "plain.wav"}


def _old_project(cli, base):
    """A dataset imported, then its ids and labels rewritten in NFD as a fairdesk before
    issue 29 stored them from an NFD manifest; an annotation on the first item."""
    proj, data = base
    for i in range(3):
        write_wav(data / "o" / f"w{i}.wav", seconds=0.3, freq=300 + 40 * i)
    rows = [(NFC(f"é{i}"), f"o/w{i}.wav", "play song", NFC(ONICHA), NFC(IGBO)) for i in range(3)]
    manifest = _manifest(data, rows, "old.csv")
    code, _out, err = cli("import", "--project", proj, "--name", "old", manifest, "--json")
    assert code == 0, err
    conn = sqlite3.connect(proj / "project.sqlite")
    with conn:
        for db_id, key, sid, meta in conn.execute(
            "SELECT id, item_key, speaker_id, metadata FROM items WHERE dataset_id = "
            "(SELECT id FROM datasets WHERE name='old')"
        ).fetchall():
            meta = json.dumps({k: NFD(v) for k, v in json.loads(meta).items()}, ensure_ascii=False)
            conn.execute(
                "UPDATE items SET item_key=?, speaker_id=?, metadata=? WHERE id=?",
                (NFD(key), NFD(sid), meta, db_id),
            )
        first = conn.execute("SELECT id FROM items WHERE item_key=?", (NFD("é0"),)).fetchone()[0]
        conn.execute(
            "INSERT INTO annotations(item_id, kind, start, end, value, created_at, updated_at) "
            "VALUES (?, 'note', 0, 0, '\"kept\"', 0, 0)",
            (first,),
        )
    conn.close()
    return proj, manifest, first


def test_old_nfd_project_is_read_as_nfc_and_renamed_on_reimport(cli, base):
    proj, manifest, first = _old_project(cli, base)
    # read time: one speaker, one accent value, whatever the store holds
    code, out, _ = cli("datasets", "--project", proj, "--json")
    (s,) = [d for d in json.loads(out) if d["name"] == "old"]
    assert s["speakers"] == 1 and s["columns"]["accent"] == {NFC(IGBO): {"items": 3, "speakers": 1}}
    code, out, _ = cli(
        "items", "--project", proj, "--dataset", "old", "--filter", f"accent={NFC(IGBO)}", "--json"
    )
    assert code == 0 and {r["speaker_id"] for r in json.loads(out)} == {NFC(ONICHA)}
    before = dump(proj)
    code, out, err = cli("import", "--project", proj, "--name", "old", manifest, "--json")
    assert code == 0, err
    rep = json.loads(out)
    assert (rep["imported"], rep["added"], rep["updated"], rep["stale"]) == (3, 0, 3, 0)
    assert rep["warnings"] == []
    after = dump(proj)
    assert changed(before, after) <= {"items", "item_status", "import_problems"}
    assert len(after["items"]) == len(before["items"])  # renamed, not added
    conn = sqlite3.connect(proj / "project.sqlite")
    keys = dict(conn.execute("SELECT item_key, id FROM items WHERE path LIKE 'o/%'").fetchall())
    note = conn.execute("SELECT item_id FROM annotations WHERE kind='note'").fetchone()[0]
    conn.close()
    assert set(keys) == {NFC(f"é{i}") for i in range(3)}
    assert keys[NFC("é0")] == first == note  # the same item: its annotation stays with it


def test_stored_ids_equal_under_nfc_are_kept_apart_and_named(cli, base):
    proj, manifest, _first = _old_project(cli, base)
    conn = sqlite3.connect(proj / "project.sqlite")
    with conn:  # a second stored item whose id is é1 in NFC (the first is é1 in NFD)
        conn.execute(
            "INSERT INTO items(dataset_id, item_key, path, audio_hash, duration, sample_rate, "
            "channels, text, speaker_id, content_id, metadata) SELECT dataset_id, ?, path, "
            "audio_hash, duration, sample_rate, channels, text, speaker_id, content_id, "
            "metadata FROM items WHERE item_key=?",
            (NFC("é1"), NFD("é1")),
        )
    conn.close()
    before = dump(proj)
    code, out, err = cli("import", "--project", proj, "--name", "old", manifest)
    assert code == 0, err
    assert (
        f"warning: {NFC('é1')} (o/w1.wav): the project holds 2 items whose ids equal "
        f"{NFC('é1')!r} under Unicode NFC (typed with other code points: {NFD('é1')!r}); "
        "not merged: this row updates the one typed as here, the others are kept apart and "
        "marked stale; `fairdesk items --stale` lists them" in err
    )
    assert "1 item no longer listed marked stale" in out
    after = dump(proj)
    assert len(after["items"]) == len(before["items"])  # nothing merged or deleted
    code, out, _ = cli("items", "--project", proj, "--dataset", "old", "--stale", "--json")
    assert [r["id"] for r in json.loads(out)] == [NFD("é1")]
    code, out, _ = cli("items", "--project", proj, "--dataset", "old", "--json")
    assert sorted(r["id"] for r in json.loads(out)) == [NFC(f"é{i}") for i in range(3)]
