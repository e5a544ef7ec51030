"""The one incremental job (``fairdesk incremental`` and the GUI's Incremental tab call it):
the behaviours its two former copies disagreed on (split, warm-up, groups, the empty-frame
guard), cancelling, progress, and the typed result's JSON (today's layout still opens)."""

from __future__ import annotations

import json
import math

import pytest

from fairdesk.incremental.job import run_incremental
from fairdesk.incremental.result import SCHEMA, IncrementalResult
from fairdesk.incremental.store import incremental_runs, load_incremental
from tests.cli.test_incremental import SENTENCE, PrefixBackend
from tests.conftest import tone_project


class Recording(PrefixBackend):
    """PrefixBackend that keeps the length of every clip it is given."""

    def __init__(self):
        self.seen: list[int] = []

    def transcribe(self, audios):
        self.seen += [a.size for a in audios]
        return super().transcribe(audios)


@pytest.fixture
def project(tmp_path):
    return tone_project(tmp_path, {"a": 1.8, "b": 2.6}, 5, 2, " ".join(SENTENCE))


@pytest.fixture
def fake(monkeypatch):
    import fairdesk.models

    made: list[Recording] = []

    def get(*a, **k):
        made.append(Recording())
        return made[-1]

    monkeypatch.setattr(fairdesk.models, "get_backend", get)
    return made


def test_warm_up_decodes_the_first_items_audio(project, fake):
    """The warm-up decodes the first 2 s of the first item's own audio (a decoder's first
    call on real audio, not on silence, which a decoder can skip cheaply); its seconds are
    reported per model and at the top level, never as decode time."""
    proj, _root = project
    res = run_incremental(proj, "d", ["m"], ["concatenation"], 1.0, sample=3, store=False)
    from fairdesk.core import audio as audio_io

    items = proj.items(proj.dataset("d"))
    first = items.loc[items["id"].astype(str) == str(res.items[0]["id"]), "path"].iloc[0]
    n = audio_io.load(proj.dataset("d").root / first).samples.size
    assert fake[0].seen[0] == min(n, 2 * 16000)
    assert res.warm_up_s == res.decoders[0].warm_up_s > 0
    assert res.to_json()["warm_up_s"] == res.warm_up_s


def test_warm_up_on_silence_when_the_first_item_cannot_be_read(project, fake):
    proj, root = project
    items = proj.items(proj.dataset("d"))
    (root / items["path"].iloc[0]).unlink()
    res = run_incremental(
        proj, "d", ["m"], ["concatenation"], 1.0, item_ids=list(items["id"][:2]), store=False
    )
    assert fake[0].seen[0] == 16000  # one second of silence
    assert [f.item for f in res.failures] == [items["id"].iloc[0]]
    assert res.n_items == 2 and len(res.items) == 1


def test_split_streams_segments_and_says_how(project, fake, monkeypatch):
    """``split`` (the CLI's, now the job's): two speech regions per clip give two segments
    per item, the item's counts are its segments' sums, and the settings are recorded."""
    import fairdesk.incremental.segment as seg

    monkeypatch.setattr(seg, "speech_regions", lambda audio, settings=None: ((0, 0.5), (0.7, 1)))
    proj, _root = project
    res = run_incremental(proj, "d", ["m"], ["concatenation"], 1.0, sample=4, split=True)
    assert res.split["min_silence_duration_ms"] == seg.SPLIT_SETTINGS["min_silence_duration_ms"]
    assert len(res.segments) == 8 and all(r["n_segments"] == 2 for r in res.items)
    for item in res.items:
        mine = [s for s in res.segments if s["id"] == item["id"]]
        assert sum(s["n_adds"] for s in mine) == item["n_adds"]
        assert all(math.isnan(s["n_words"]) for s in mine)  # no reference per segment
    stored = load_incremental(proj, res.run_id)
    assert stored.split == res.split and len(stored.segments) == 8
    assert all(math.isnan(s["n_words"]) for s in stored.segments)  # null -> NaN again
    unsplit = run_incremental(proj, "d", ["m"], ["concatenation"], 1.0, sample=4, store=False)
    assert unsplit.split is None and unsplit.segments is None


def test_groups_are_compared_when_asked_by_either_caller(project, fake):
    """``by`` compares groups (the GUI's copy never did): per policy, the group values are
    the pooled metric of the group's own item rows."""
    from fairdesk.stats.settings import AuditSettings

    proj, _root = project
    settings = AuditSettings(n_bootstrap=200, min_items=5, min_speakers=2)
    res = run_incremental(
        proj, "d", ["m"], ["concatenation"], 1.0, by=["accent"], settings=settings, store=False
    )
    assert len(res.groups) == 1 and res.settings["by"] == ["accent"]
    vals = {g.group: g.values for g in res.groups[0].stats.groups}
    for accent in ("a", "b"):
        rows = [r for r in res.items if str(r["id"]) in _ids(proj, accent)]
        adds = sum(r["n_adds"] for r in rows)
        revs = sum(r["n_revokes"] for r in rows)
        assert vals[accent]["eo"] == pytest.approx(revs / (adds + revs))
    assert vals["a"]["eo"] == 0 and vals["b"]["eo"] > 0
    ungrouped = run_incremental(proj, "d", ["m"], ["concatenation"], 1.0, sample=2, store=False)
    assert ungrouped.groups is None and "groups" not in ungrouped.to_json()


def _ids(proj, accent):
    items = proj.items(proj.dataset("d"))
    return set(items.loc[items["accent"] == accent, "id"].astype(str))


def test_a_run_where_every_item_failed_is_not_stored(project, fake):
    """The empty-frame guard (the CLI's): no item gave a row, so nothing is pooled or
    stored, and the failures say why."""
    proj, root = project
    items = proj.items(proj.dataset("d"))
    chosen = list(items["id"][:3])
    for rel in items["path"][:3]:
        (root / rel).unlink()
    res = run_incremental(proj, "d", ["m", "n"], ["concatenation"], 1.0, item_ids=chosen)
    assert res.run_id is None and res.summary == () and res.items == ()
    assert len(res.failures) == 6 and {f.model for f in res.failures} == {"m", "n"}
    assert list(res.table.columns) == [] and incremental_runs(proj) == []


def test_cancel_stops_before_anything_is_stored_and_progress_reaches_one(project, fake):
    from fairdesk.core.progress import Cancelled

    proj, _root = project
    seen = []
    res = run_incremental(
        proj,
        "d",
        ["m", "n"],
        ["concatenation"],
        1.0,
        sample=3,
        progress=lambda f, m: seen.append((f, m)),
    )
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert seen[-1][1] == f"stored as run {res.run_id}"
    assert any(m.startswith("n [3/3]") for _, m in seen)
    calls = {"n": 0}

    def cancelled():
        calls["n"] += 1
        return calls["n"] > 2

    with pytest.raises(Cancelled):
        run_incremental(proj, "d", ["m"], ["concatenation"], 1.0, cancelled=cancelled)
    assert [r.id for r in incremental_runs(proj)] == [res.run_id]


def test_usage_problems_are_value_errors(project, fake):
    proj, _root = project
    with pytest.raises(ValueError, match="chunk"):
        run_incremental(proj, "d", ["m"], ["concatenation"], 0.0)
    with pytest.raises(ValueError, match="unknown metric"):
        run_incremental(proj, "d", ["m"], ["concatenation"], metrics=["nope"])
    with pytest.raises(ValueError, match="no native streaming"):
        run_incremental(proj, "d", ["m"], ["native"])
    with pytest.raises(ValueError, match="none of the chosen items"):
        run_incremental(proj, "d", ["m"], ["concatenation"], item_ids=["nope"])
    assert incremental_runs(proj) == []


# -- the typed result's JSON -------------------------------------------------------------------
#: An incremental payload as stored before the schema version (the layout of the GUI job's
#: runs: no top-level warm_up_s, no policy options; SPR null without revokes).
TODAY = {
    "dataset": "d",
    "model": "m",
    "models": ["m"],
    "policies": ["concatenation", "sliding"],
    "chunk_s": 1.0,
    "split": None,
    "policy_options": {},
    "hardware": {"cpu": "x", "usable_cpus": 2},
    "decoder": {"model": "m", "cpu_threads": 2},
    "decoders": [
        {
            "model": "m",
            "policies": ["concatenation", "sliding"],
            "warm_up_s": 0.25,
            "decoder": {"model": "m", "cpu_threads": 2},
        }
    ],
    "n_items": 2,
    "summary": [
        {
            "model": "m",
            "policy": "concatenation",
            "stream": "displayed",
            "wer": 0.0,
            "eo": 0.0,
            "spr": None,
            "lat_seed001": None,
            "n_items": 2,
            "totals": {"n_revokes": 0, "n_revokes_edit": 0},
        },
        {
            "model": "m",
            "policy": "sliding",
            "stream": "displayed",
            "wer": 0.5,
            "eo": 0.25,
            "spr": 0.4,
            "lat_seed001": 0.1,
            "n_items": 2,
            "totals": {"n_revokes": 3, "n_revokes_edit": 3},
        },
    ],
    "table": {
        "rows": ["wer", "spr", "lat_seed001"],
        "columns": [
            {"model": "m", "policy": "sliding", "stream": "displayed", "label": "m sliding"},
            {"model": "m", "policy": "concatenation", "stream": "displayed", "label": "m Con."},
        ],
        "values": {"wer": [0.5, 0.0], "spr": [0.4, None], "lat_seed001": [0.1, None]},
    },
    "failures": [],
    "settings": {"by": [], "filters": {}, "sample": None, "items": ["1", "2"]},
    "items": [{"id": "1", "model": "m", "policy": "concatenation", "n_adds": 3}],
    "timelines": [{"item": "1", "model": "m", "policy": "concatenation", "events": []}],
}


def test_todays_layout_opens_and_restores_spr_and_nan_field_by_field():
    res = IncrementalResult.from_json(json.loads(json.dumps(TODAY)))
    assert res.model == "m" and res.warm_up_s == 0.25 and res.groups is None
    conc = res.summary[0]
    assert conc.spr == math.inf  # no revokes: decode seconds per revoke is infinite
    assert conc.lat_seed001 is not None and math.isnan(conc.lat_seed001)  # undefined
    assert res.summary[1].spr == 0.4
    assert res.table.values["spr"] == (0.4, math.inf)
    assert res.table.values["wer"] == (0.5, 0.0) and math.isnan(res.table.values["lat_seed001"][1])
    out = res.to_json()
    assert out["schema"] == SCHEMA
    # the JSON is today's layout plus the version (with the first model's warm-up on top)
    assert {k: v for k, v in out.items() if k not in ("schema", "warm_up_s")} == TODAY
    assert IncrementalResult.from_json(json.loads(json.dumps(out))).to_json() == out
    assert "timelines" not in res.to_json(timelines=False)


def test_spr_null_with_revokes_is_undefined_and_a_newer_schema_is_refused():
    d = json.loads(json.dumps(TODAY))
    d["summary"][1]["spr"] = None
    d["table"]["values"]["spr"][0] = None
    res = IncrementalResult.from_json(d)
    assert math.isnan(res.summary[1].spr or 0.0) and math.isnan(res.table.values["spr"][0])
    with pytest.raises(ValueError, match="schema 99"):
        IncrementalResult.from_json({**TODAY, "schema": SCHEMA + 98})


def test_a_run_stored_in_todays_layout_opens_in_the_store_and_the_report(project):
    from fairdesk.incremental.store import store_incremental
    from fairdesk.reports.incremental import incremental_context

    proj, _root = project
    run_id = store_incremental(proj, proj.dataset("d").id, TODAY)
    # stored as it was: the payload has no schema key
    row = proj.conn.execute("SELECT payload FROM results WHERE run_id=?", (run_id,)).fetchone()
    assert "schema" not in json.loads(row[0])
    res = load_incremental(proj, run_id)
    assert res.run_id == run_id and res.table.values["spr"] == (0.4, math.inf)
    ctx = incremental_context(proj, run_id, worst=1)
    spr = next(r for r in ctx["table"]["rows"] if r["metric"] == "spr")
    assert [c["text"] for c in spr["cells"]] == ["0.400", "inf"]
    assert [c["value"] for c in spr["cells"]] == ["0.4", ""]


class _Steady(PrefixBackend):
    """PrefixBackend without the wrong "uh": no revokes, every word kept."""

    def transcribe(self, audios):
        out = super().transcribe(audios)
        from fairdesk.models.base import Transcription

        return [
            Transcription(
                " ".join(w.text for w in t.words if w.text != "uh"),
                tuple(w for w in t.words if w.text != "uh"),
            )
            for t in out
        ]


def test_two_models_are_paired_on_the_same_items(project, monkeypatch):
    """With two models and ``by``, WER and EO are compared model against model on the same
    items (the paired scheme of a comparison of systems); the gap differences read the
    per-model group values."""
    import fairdesk.models
    from fairdesk.incremental.result_parts import SystemsBlock
    from fairdesk.jobs.system_run import decode_comparison
    from fairdesk.stats.settings import AuditSettings

    monkeypatch.setattr(
        fairdesk.models,
        "get_backend",
        lambda model, *a, **k: PrefixBackend() if model == "m1" else _Steady(),
    )
    proj, _root = project
    settings = AuditSettings(n_bootstrap=200, min_items=2, min_speakers=2)
    res = run_incremental(
        proj,
        "d",
        ["m1", "m2"],
        ["concatenation"],
        1.0,
        by=["accent"],
        reference="a",
        settings=settings,
        store=False,
    )
    assert res.systems and len(res.systems) == 1
    block = res.systems[0]
    assert block.policy == "concatenation" and block.comparison is not None
    cmp = block.comparison
    # stored as written, read back the same
    assert SystemsBlock.from_json(json.loads(json.dumps(block.to_json()))).to_json() == (
        block.to_json()
    )
    assert decode_comparison(block.to_json()["comparison"]).systems == cmp.systems
    assert cmp.systems == ("m1", "m2") and {d.metric for d in cmp.differences} == {"wer", "eo"}
    vals = {
        (blk.model, g.group): g.values
        for blk in res.groups
        if blk.stream == block.stream
        for g in blk.stats.groups
    }
    gd = cmp.gap_difference("m2", "eo", "b")
    assert gd.baseline_gap == pytest.approx(vals[("m1", "b")]["eo"] - vals[("m1", "a")]["eo"])
    assert gd.gap == pytest.approx(vals[("m2", "b")]["eo"] - vals[("m2", "a")]["eo"])
    assert vals[("m1", "b")]["eo"] > 0 and gd.gap == pytest.approx(0.0)
    again = IncrementalResult.from_json(json.loads(json.dumps(res.to_json())))
    assert again.systems == res.systems
    import io

    from fairdesk.cli.incremental import print_summary

    buf = io.StringIO()
    print_summary(res, file=buf)
    text = buf.getvalue()
    assert "models compared, concatenation" in text
    # both gaps named (docs/METHODS.md, "Gap difference"), m2's at 0
    assert "m2 vs m1, b-vs-a eo gap: m1's gap of +" in text and "m2's is 0.0 pp" in text
