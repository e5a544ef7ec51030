"""Which reference text an audit scores (``--reference-text``): latest (the default, as
before), imported, one annotator's, adjudicated (disagreeing items left out and listed),
recorded with the run and named in its name."""

from __future__ import annotations

import pytest

from fairdesk.presentation.notices import notice_texts
from tests.annotators.fixture import ITEMS, item_id, two_annotators


def _req(preds, **kw):
    from fairdesk.jobs.audit import AuditRequest
    from fairdesk.stats.settings import AuditSettings

    return AuditRequest(
        dataset="d",
        model=f"predictions:{preds}",
        by=("accent",),
        settings=AuditSettings(n_bootstrap=200, min_items=2, min_speakers=2),
        **kw,
    )


def _refs(out) -> dict[str, str]:
    return dict(zip(out.frame["item_id"], out.frame["reference"]))


def _name(run) -> str:
    from fairdesk.presentation.runs import RunSpec, run_name

    return run_name(RunSpec.from_run(run))


def _stored_name(p, run_id) -> str:
    from fairdesk.presentation.runs import RunSpec, run_name

    row = p.conn.execute("SELECT settings FROM runs WHERE id=?", (run_id,)).fetchone()
    return run_name(RunSpec.from_stored(row["settings"]))


def test_latest_is_the_default_newest_version_and_says_how_many_disagree(tmp_path):
    from fairdesk.jobs.audit import run_audit

    p, preds = two_annotators(tmp_path)
    out = run_audit(p, _req(preds))
    assert _refs(out) == {item_id(k): v[4] for k, v in ITEMS.items()}  # Obi's: newest
    rs = out.result.run_settings
    assert rs.reference_text == "latest" and rs.text_source["annotation"] == 6
    assert any(
        n.startswith("2 items have versions by several annotators that disagree")
        for n in notice_texts(out.result.notes)
    )
    assert "references:" not in _name(out.result)
    assert "references:" not in _stored_name(p, out.run_id)
    assert _req(preds).reference_text == "latest"


def test_imported_and_one_annotators_versions(tmp_path):
    from fairdesk.jobs.audit import run_audit

    p, preds = two_annotators(tmp_path)
    out = run_audit(p, _req(preds, reference_text="imported"))
    assert _refs(out) == {item_id(k): v[2] for k, v in ITEMS.items()}
    assert out.result.run_settings.text_source == {"annotation": 0, "import": 6}
    assert "references: imported text" in _name(out.result)
    ada = run_audit(p, _req(preds, reference_text=" annotator: Ada "))
    assert _refs(ada) == {item_id(k): v[3] for k, v in ITEMS.items()}
    assert ada.result.run_settings.reference_text == "annotator:Ada"
    assert "references: Ada's versions" in _name(ada.result)
    assert "references: Ada's versions" in _stored_name(p, ada.run_id)


def test_adjudicated_leaves_out_disagreeing_items_until_adjudicated(tmp_path):
    from fairdesk.jobs.audit import run_audit

    p, preds = two_annotators(tmp_path)
    out = run_audit(p, _req(preds, reference_text="adjudicated"))
    refs = _refs(out)
    # identical versions count as agreed; n1 and s1 disagree and are left out
    assert refs == {item_id(k): v[3] for k, v in ITEMS.items() if k not in ("n1", "s1")}
    probs = {pr.item: pr.reason for pr in out.result.input_problems}
    assert set(probs) == {item_id("n1"), item_id("s1")}
    assert probs[item_id("s1")].startswith(
        "its versions disagree (Ada: 'àkwà ego', Obi: 'ákwá ego') and none is adjudicated"
    )
    assert "references: adjudicated" in _name(out.result)
    assert "references: adjudicated" in _stored_name(p, out.run_id)
    # the adjudicator picks Ada's version of s1: the re-audit uses it
    db = int(p.items(p.dataset("d")).set_index("id").loc[item_id("s1"), "db_id"])
    p.adjudicate(db, "àkwà ego", "Chi")
    again = run_audit(p, _req(preds, reference_text="adjudicated"))
    assert not again.from_cache
    assert _refs(again)[item_id("s1")] == "àkwà ego"
    assert {pr.item for pr in again.result.input_problems} == {item_id("n1")}
    assert again.result.run_settings.text_source["adjudication"] == 1


def test_a_bad_choice_or_an_unknown_annotator_is_refused(tmp_path):
    from fairdesk.core.errors import FairdeskError
    from fairdesk.jobs.audit import run_audit

    with pytest.raises(FairdeskError, match="choose latest"):
        _req("x.csv", reference_text="newest")
    with pytest.raises(FairdeskError, match="needs the annotator's name"):
        _req("x.csv", reference_text="annotator:  ")
    p, preds = two_annotators(tmp_path)
    with pytest.raises(
        FairdeskError, match=r"no selected item has a version by Eze \(annotators: Ada, Obi\)"
    ):
        run_audit(p, _req(preds, reference_text="annotator:Eze"))


def test_the_command_line_takes_the_choice(tmp_path, capsys):
    from fairdesk.cli import main

    p, preds = two_annotators(tmp_path)
    args = ["audit", "--project", str(p.folder), "--dataset", "d", "--model"]
    args += [f"predictions:{preds}", "--by", "accent", "--min-items", "2"]
    args += ["--min-speakers", "2", "--n-bootstrap", "200", "--reference-text", "adjudicated"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"problem: item {item_id('n1')}: its versions disagree" in out
    assert main(["runs", "--project", str(p.folder)]) == 0
    assert "references: adjudicated" in capsys.readouterr().out


def test_adjudicate_on_the_command_line_picks_a_version_or_stores_a_merged_text(tmp_path, capsys):
    from fairdesk.cli import main
    from fairdesk.jobs.audit import run_audit

    p, preds = two_annotators(tmp_path)
    base = ["adjudicate", "--project", str(p.folder), "--dataset", "d", "--adjudicator", "Chi"]
    assert main(base + ["--item", item_id("s1"), "--pick", "Obi"]) == 0
    assert "adjudicated by Chi as 'ákwá ego'" in capsys.readouterr().out
    assert main(base + ["--item", item_id("n1"), "--text", "àkwà  ego"]) == 0
    assert main(base + ["--item", item_id("n1"), "--pick", "Eze"]) == 2
    assert "no version by Eze (versions by: Ada, Obi)" in capsys.readouterr().err
    out = run_audit(p, _req(preds, reference_text="adjudicated"))
    assert out.result.input_problems == ()
    refs = _refs(out)
    assert refs[item_id("s1")] == "ákwá ego" and refs[item_id("n1")] == "àkwà  ego"
