"""Several datasets audited as one (``--dataset A --dataset B``): items keyed by dataset,
each item's audio read from its own dataset, the groups pooled across them, and the run
named, stored and read back with both (docs/METHODS.md, "Auditing several datasets
together")."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from fairdesk.core.errors import FairdeskError
from fairdesk.presentation.notices import notice_texts
from fairdesk.stats.notices import Notice
from tests.conftest import write_wav


def _dataset(p, root, name, speakers, accent_of, n_contents=4, language="en"):
    from fairdesk.core.importers import import_dataset

    lines = ["path,text,speaker_id,content_id,accent"]
    for s in speakers:
        for c in range(n_contents):
            rel = f"{s}/{c}.wav"
            write_wav(root / rel, seconds=0.3, freq=200 + 17 * c + 5 * len(s))
            lines.append(f"{rel},play the song now,{s},c{c},{accent_of(s)}")
    (root / "m.csv").write_text("\n".join(lines) + "\n")
    assert import_dataset(p, name, root / "m.csv", language=language).imported == (
        len(speakers) * n_contents
    )


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    """Project with ``pilot`` (speakers a0-a3, b0-b3) and ``more`` (speakers a0 again, which
    is one of the pilot's ids, and b4-b6): both hold ``3/0.wav``-style paths, so a key or a
    path alone would be ambiguous."""
    from fairdesk.core.store import Project

    tmp = tmp_path_factory.mktemp("sets")
    p = Project(tmp / "proj")
    acc = lambda s: s[0]  # noqa: E731
    _dataset(
        p, tmp / "pilot", "pilot", [f"a{i}" for i in range(4)] + [f"b{i}" for i in range(4)], acc
    )
    _dataset(p, tmp / "more", "more", ["a0", "b4", "b5", "b6"], acc)
    return p, tmp


def _preds(path, ids):
    """Predictions keyed by qualified item id: ``b`` speakers lose the last word on contents
    0 and 1, the others read the sentence."""
    rows = ["id,text"]
    for i in ids:
        spk = i.split("/")[1]
        c = int(i.rsplit("/", 1)[1].split(".")[0])
        rows.append(f"{i},{'play the song' if spk[0] == 'b' and c < 2 else 'play the song now'}")
    path.write_text("\n".join(rows) + "\n")
    return path


def test_set_items_keys_items_by_dataset_and_a_single_dataset_is_unchanged(two):
    from fairdesk.core.dataset_sets import open_set, set_items, shared_speakers

    p, _tmp = two
    one = set_items(p, open_set(p, ["pilot"]))
    assert one.equals(p.items(p.dataset("pilot")))
    both = set_items(p, open_set(p, ["pilot", "more", "pilot"]))
    assert len(both) == 32 + 16 and both["id"].is_unique
    assert set(both["dataset"]) == {"pilot", "more"}
    row = both[both["id"] == "more/b4/0.wav"].iloc[0]
    assert row["item_key"] == "b4/0.wav" and row["path"] == "b4/0.wav"
    assert shared_speakers(both) == {"a0": ("more", "pilot")}


def test_audit_of_two_datasets_pools_groups_reads_each_items_audio_and_says_so(two, tmp_path):
    from fairdesk.core.dataset_sets import open_set, run_dataset_names, run_set, set_items
    from fairdesk.core.runs import run_items_frame
    from fairdesk.jobs.audit import AuditRequest, prepare, run_audit
    from fairdesk.presentation.runs import RunSpec, run_name
    from fairdesk.stats.settings import AuditSettings

    p, tmp = two
    ids = list(set_items(p, open_set(p, ["pilot", "more"]))["id"])
    preds = _preds(tmp_path / "preds.csv", ids)
    req = AuditRequest(
        dataset="pilot",
        more_datasets=("more",),
        model=f"predictions:{preds}",
        by=("accent",),
        reference="a",
        nlu="none",
        settings=AuditSettings(n_bootstrap=200, min_items=4, min_speakers=2),
    )
    prep = prepare(p, req)
    # every path the job reads is its own dataset's file
    for d, path in zip(prep.frame["dataset"], prep.frame["path"]):
        assert path.startswith(str(tmp / d)) and (tmp / d).exists()
    out = run_audit(p, req)
    res = out.result
    n = {g.group: (g.n_items, g.n_speakers) for g in res.groups}
    # a0 of both datasets is one speaker (a0-a3: 4); b0-b3 and b4-b6: 7
    assert n == {"a": (20, 4), "b": (28, 7)}
    assert res.group("b").values["wer"] == pytest.approx((7 * 2) / (28 * 4))  # 2 of 4 lose a word
    assert res.group("a").values["wer"] == 0
    assert run_dataset_names(res) == ("pilot", "more")
    assert run_set(p, res).names == ("pilot", "more")
    notes = notice_texts(res.notes)
    assert "audited together: pilot (32 items), more (16 items)" in notes
    assert any("a0" in x and "more than one dataset" in x for x in notes)
    assert Notice("run.datasets_together", {"datasets": (("pilot", 32), ("more", 16))}) in res.notes
    rows = run_items_frame(p, out.run_id)
    assert set(rows["dataset"]) == {"pilot", "more"}
    assert "rel_path" not in rows.columns
    assert set(rows.loc[rows["dataset"] == "more", "path"]) >= {"b4/0.wav"}
    name = run_name(RunSpec.from_run(res))
    assert "on pilot + more" in name
    stored = next(r for r in p.conn.execute("SELECT settings FROM runs WHERE id=?", (out.run_id,)))
    assert json.loads(stored[0])["datasets"] == ["pilot", "more"]
    assert "on pilot + more" in run_name(RunSpec.from_stored(stored[0], "m", "pilot"))
    # the same request is answered from the store; the pilot alone is another request
    assert run_audit(p, req).from_cache
    alone = prepare(p, replace(req, more_datasets=()))
    assert alone.request_hash != prep.request_hash and "dataset" not in alone.frame.columns


def test_datasets_that_cannot_be_audited_together_are_refused_by_name(two, tmp_path):
    from fairdesk.core.dataset_sets import open_set
    from fairdesk.core.importers import import_dataset
    from fairdesk.jobs.audit import AuditRequest, prepare

    p, tmp = two
    root = tmp_path / "fr"
    write_wav(root / "x.wav", seconds=0.3)
    (root / "m.csv").write_text("path,text,speaker_id\nx.wav,bonjour,s1\n")
    import_dataset(p, "fr", root / "m.csv", language="fr")
    with pytest.raises(FairdeskError, match=r"different languages.*pilot \(en\), fr \(fr\)"):
        open_set(p, ["pilot", "fr"])
    with pytest.raises(FairdeskError, match="no dataset named 'nope'"):
        open_set(p, ["pilot", "nope"])
    root = tmp_path / "nogroup"
    write_wav(root / "x.wav", seconds=0.3)
    (root / "m.csv").write_text("path,text,speaker_id\nx.wav,play the song now,s9\n")
    import_dataset(p, "nogroup", root / "m.csv")
    req = AuditRequest(dataset="pilot", more_datasets=("nogroup",), model="predictions:x.csv",
                       by=("accent",))  # fmt: skip
    with pytest.raises(FairdeskError, match="dataset 'nogroup' has no value for accent"):
        prepare(p, req)


def test_cli_report_data_and_tier_names_of_a_run_of_two_datasets(two, tmp_path, capsys):
    from fairdesk.cli import main
    from fairdesk.core.dataset_sets import open_set, set_items
    from fairdesk.reports.data import load_run

    p, tmp = two
    ids = list(set_items(p, open_set(p, ["pilot", "more"]))["id"])
    preds = _preds(tmp_path / "preds.csv", ids)
    out = tmp_path / "a.json"
    args = ["audit", "--project", str(p.folder), "--dataset", "pilot", "--dataset", "more"]
    args += ["--model", f"predictions:{preds}", "--by", "accent", "--reference", "a"]
    args += ["--nlu", "none", "--min-items", "4", "--min-speakers", "2", "--n-bootstrap", "200"]
    assert main([*args, "--json", str(out), "--quiet"]) == 0
    res = json.loads(out.read_text())
    assert res["settings"]["datasets"] == ["pilot", "more"]
    d = load_run(p, res["run_id"])
    assert d.dataset.name == "pilot" and d.dataset_set.names == ("pilot", "more")
    row = d.items[d.items["id"] == "more/b5/2.wav"].iloc[0].to_dict()
    assert d.audio_path(row) == tmp / "more" / "b5" / "2.wav"
    assert d.audio_path(row).exists() and not (tmp / "pilot" / "b5").exists()
    assert row["db_id"] == p.items(p.dataset("more")).set_index("id").at["b5/2.wav", "db_id"]
    bad = ["audit", "--project", str(p.folder), "--dataset", "pilot", "--dataset", " "]
    assert main([*bad, "--model", "x", "--by", "accent"]) == 2
    assert "--dataset: give a dataset name" in capsys.readouterr().err


def test_plain_ids_in_an_audit_of_several_datasets(two, tmp_path):
    """Issue 44: a predictions file keyed by the datasets' own ids (``b4/0.wav``) is used
    where the id names one item of the set; an id two datasets share (``a0/0.wav``) is
    refused for both, saying the items are ``<dataset>/<id>``; an item with no row says
    how it is keyed."""
    from fairdesk.core.dataset_sets import open_set, set_items
    from fairdesk.jobs.audit import AuditRequest, run_audit
    from fairdesk.stats.settings import AuditSettings

    p, _tmp = two
    items = set_items(p, open_set(p, ["pilot", "more"]))
    keys = [k for k in items["item_key"] if k != "b5/3.wav"]  # one item without a row
    rows = ["id,text", *(f"{k},play the song now" for k in dict.fromkeys(keys))]
    (tmp_path / "plain.csv").write_text("\n".join(rows) + "\n")
    req = AuditRequest(
        dataset="pilot",
        more_datasets=("more",),
        model=f"predictions:{tmp_path / 'plain.csv'}",
        by=("accent",),
        nlu="none",
        settings=AuditSettings(n_bootstrap=200, min_items=4, min_speakers=2),
    )
    run = run_audit(p, req, use_result_cache=False).result
    failed = {f.item: f.reason for f in run.failures}
    shared = {f"{d}/a0/{c}.wav" for d in ("pilot", "more") for c in range(4)}
    assert set(failed) == shared | {"more/b5/3.wav"}
    why = failed["more/a0/1.wav"]
    assert "'a0/1.wav'" in why and "2 of the audited datasets" in why
    assert "<dataset>/<id>" in why and "'more/a0/1.wav'" in why
    assert "<dataset>/<id> ('more/b5/3.wav')" in failed["more/b5/3.wav"]
    assert sum(g.n_items for g in run.groups) == len(items) - len(failed)
