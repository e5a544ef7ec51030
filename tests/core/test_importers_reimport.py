"""import_dataset end to end: re-imports (added / updated / unchanged), the stored items and
problems, the report's dict, progress, and the refusals (messages checked word for word)."""

import json

import pytest

from fairdesk.core.errors import ImportFailed
from fairdesk.core.importers import derive_content_id, detect_format, import_dataset
from fairdesk.core.store import Project
from tests.conftest import write_wav


def _manifest(root, rows):
    (root / "manifest.csv").write_text("\n".join(["id,path,text,speaker,zeta,alpha", *rows])
                                       + "\n", encoding="utf-8")
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
        "d", "manifest", 52, 52, 0, 0)
    assert seen == [(50 / 53, "checked 50/53 files")]  # 53 files to check, 1 missing
    (prob,) = rep.problems
    assert (prob.row, prob.path, prob.source) == (54, "missing.wav", str(man))
    d = rep.to_dict()
    assert set(d) >= {"dataset", "format", "imported", "added", "updated", "unchanged",
                      "problems"}
    assert (d["dataset"], d["format"], d["imported"], d["added"], d["updated"],
            d["unchanged"]) == ("d", "manifest", 52, 52, 0, 0)
    assert d["problems"] == [{"row": 54, "path": "missing.wav",
                              "reason": prob.reason, "source": str(man)}]
    items = p.items(p.dataset("d")).set_index("id")
    it = items.loc["u1"]
    assert it["text"] == "Café 1" and it["speaker_id"] == "s1" and it["path"] == "w1.wav"
    assert it["content_id"] == derive_content_id("Café 1")
    stored = p.conn.execute("SELECT metadata FROM items WHERE item_key='u1'").fetchone()[0]
    assert stored == json.dumps({"alpha": "a", "zeta": "z"}, ensure_ascii=False)
    kept = p.conn.execute("SELECT row, path, reason FROM import_problems").fetchall()
    assert [tuple(r) for r in kept] == [(54, "missing.wav",
                                         f"{man}: {prob.reason}")]

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
    assert str(e.value) == (f"dataset 'd' already exists with its audio in {root.resolve()}; "
                            "choose another --name to import from a different folder")


def test_a_manifest_folder_and_the_format_refusals(tmp_path):
    root = tmp_path / "data"
    write_wav(root / "a.wav")
    (root / "manifest.tsv").write_text("path\ttext\na.wav\thi\n", encoding="utf-8")
    p = Project(tmp_path / "proj")
    rep = import_dataset(p, "d", root, fmt="manifest")  # a folder holding manifest.tsv
    assert rep.imported == 1 and rep.format == "manifest"
    assert detect_format(root) == "manifest"
    with pytest.raises(ImportFailed) as e:
        import_dataset(p, "x", root, fmt="kaldi")
    assert str(e.value) == ("unknown format 'kaldi'; use one of auto, manifest, audiofolder, "
                            "commonvoice, librispeech, saa, l2arctic")
    with pytest.raises(ImportFailed) as e:
        detect_format(tmp_path / "nope")
    assert str(e.value) == f"{tmp_path / 'nope'}: no such file or folder"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ImportFailed) as e:
        detect_format(empty)
    assert str(e.value) == (f"{empty}: cannot tell the dataset format; pass --format "
                            "(manifest, audiofolder, commonvoice, librispeech, saa or l2arctic)")
    (empty / "metadata.jsonl").write_text("{}\n")
    assert detect_format(empty) == "audiofolder"
    (empty / "metadata.jsonl").unlink()
    (empty / "x.trans.txt").write_text("")
    assert detect_format(empty) == "librispeech"
