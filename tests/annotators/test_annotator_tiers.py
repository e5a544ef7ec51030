"""``export --textgrid/--eaf --annotator-tiers`` (issue 47): one ``annotator:NAME`` tier per
annotator holding their version of each item, read back with praatio and pympi; a tier read
back in as a new annotator's version gives that annotator's texts."""

from __future__ import annotations

import json

from tests.annotators.fixture import ITEMS, item_id, project, two_annotators


def _audit(p, preds) -> int:
    from fairdesk.jobs.audit import AuditRequest, run_audit
    from fairdesk.stats.settings import AuditSettings

    req = AuditRequest(
        dataset="d",
        model=f"predictions:{preds}",
        by=("accent",),
        settings=AuditSettings(n_bootstrap=200, min_items=2, min_speakers=2),
    )
    return run_audit(p, req).run_id


def _export(p, run_id, *extra) -> int:
    from fairdesk.cli import main

    return main(["export", "--project", str(p.folder), "--run", str(run_id), *extra])


def _words(entries) -> str:
    return " ".join(label for _s, _e, label in entries if label.strip())


def test_one_tier_per_annotator_in_the_textgrids_and_the_elan_files(tmp_path, capsys):
    from fairdesk.reports.elan import read_eaf
    from fairdesk.reports.praat import read_textgrid

    p, preds = two_annotators(tmp_path)
    # a third annotator on one item only: her tier is empty elsewhere
    db = int(p.items(p.dataset("d")).set_index("id").loc[item_id("n2"), "db_id"])
    p.save_transcript(db, "àkwà jị", "Chi")
    run_id = _audit(p, preds)
    tg, eaf, out = tmp_path / "tg", tmp_path / "eaf", tmp_path / "w.json"
    args = ["--textgrid", str(tg), "--eaf", str(eaf), "--aligner", "even"]
    assert _export(p, run_id, *args, "--annotator-tiers", "--json", str(out)) == 0
    written = json.loads(out.read_text(encoding="utf-8"))
    assert len(written["textgrid"]) == len(written["eaf"]) == len(ITEMS)
    want = {
        "annotator:Ada": {item_id(k): v[3] for k, v in ITEMS.items()},
        "annotator:Obi": {item_id(k): v[4] for k, v in ITEMS.items()},
        "annotator:Chi": {item_id(k): ("àkwà jị" if k == "n2" else "") for k in ITEMS},
    }
    for kind, folder, suffix, read in (
        ("TextGrid", tg, ".TextGrid", read_textgrid),
        ("EAF", eaf, ".eaf", read_eaf),
    ):
        files = sorted(folder.rglob(f"*{suffix}"))
        assert len(files) == len(ITEMS), kind
        for f in files:
            _item, tiers = read(f)
            key = next(k for k in ITEMS if f.name.startswith(k))
            # the four tiers first, then one per annotator in name order
            names = [n for n in tiers if n != "saliency"]
            assert names == ["reference", "hypothesis", "errors"] + sorted(want), (kind, names)
            for tier, texts in want.items():
                assert _words(tiers[tier]) == texts[item_id(key)], (kind, f.name, tier)
            # each annotator's words lie inside the clip, in order
            spans = [(s, e) for s, e, lab in tiers["annotator:Ada"] if lab.strip()]
            assert all(0 <= s < e for s, e in spans)
            assert all(a[1] <= b[0] + 1e-6 for a, b in zip(spans, spans[1:], strict=False))
    # without the option: the four tiers only
    plain = tmp_path / "plain"
    assert _export(p, run_id, "--textgrid", str(plain), "--aligner", "even") == 0
    _item, tiers = read_textgrid(next(plain.rglob("*.TextGrid")))
    assert not [n for n in tiers if n.startswith("annotator:")]

    # a tier read back as a new annotator's versions: Eze's texts are Ada's
    from fairdesk.cli import main

    capsys.readouterr()
    args = ["annotate", "--project", str(p.folder), "--dataset", "d", "--from-textgrid"]
    assert main(args + [str(tg), "--tier", "annotator:Ada", "--annotator", "Eze"]) == 0
    versions = p.transcript_versions()
    eze = {iv.item_db_id: iv.version("Eze") for iv in versions.values()}
    ids = dict(zip(p.items(p.dataset("d"))["db_id"], p.items(p.dataset("d"))["id"]))
    assert {ids[db]: v.text for db, v in eze.items() if v is not None} == want["annotator:Ada"]


def test_without_any_annotators_version_the_option_says_so_and_writes_nothing(tmp_path, capsys):
    p, preds = project(tmp_path)
    run_id = _audit(p, preds)
    tg = tmp_path / "tg"
    capsys.readouterr()
    assert _export(p, run_id, "--textgrid", str(tg), "--annotator-tiers") == 2
    err = capsys.readouterr().err
    assert "--annotator-tiers: no item of run" in err and "--annotator NAME" in err
    assert not tg.exists()
    assert _export(p, run_id, "--items", str(tmp_path / "i.csv"), "--annotator-tiers") == 2
    assert "--annotator-tiers adds tiers to --textgrid and --eaf" in capsys.readouterr().err
