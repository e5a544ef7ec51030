"""A run stored in today's layout (the payload dict ``run_audit`` writes now) opens in the
console views, which read it as an AuditRun: the audit printers, ``show``, and the run's
normaliser and language."""

from __future__ import annotations

import io

from fairdesk.cli import main
from fairdesk.cli.audit import print_groups
from fairdesk.core.runs import done_run_ids, run_items_frame, run_payload
from fairdesk.jobs.result import AuditRun, as_audit_run
from fairdesk.presentation import fmt_percent
from fairdesk.review import run_language, run_normaliser
from tests.conftest import tone_project

LOOP = "do not know " * 12


def _planted(tmp_path):
    """Two accents of 36 items; 9 of b's hypotheses (and 2 of a's) end in a loop."""
    p, _root = tone_project(tmp_path, {"a": 0.5, "b": 0.5}, 6, 6, "play the song")
    planted = {
        "a": {(0, 0), (3, 2)},
        "b": {(s, c) for s in range(6) for c in range(6) if (s + c) % 4 == 0},
    }
    lines = ["path,text"]
    for g, cells in planted.items():
        for s in range(6):
            for c in range(6):
                text = f"play the song {LOOP}" if (s, c) in cells else "play the song"
                lines.append(f"{g}/{s}_{c}.wav,{text}")
    preds = tmp_path / "preds.csv"
    preds.write_text("\n".join(lines) + "\n")
    return p, preds


def test_a_stored_run_opens_in_the_console_views(tmp_path, capsys):
    p, preds = _planted(tmp_path)
    args = ["audit", "--project", str(p.folder), "--dataset", "d", "--model"]
    args += [f"predictions:{preds}", "--by", "accent", "--nlu", "none", "--n-bootstrap", "400"]
    args += ["--min-items", "20", "--min-speakers", "5", "--quiet"]
    assert main(args) == 0
    capsys.readouterr()
    (run_id,) = done_run_ids(p)

    payload = run_payload(p, run_id)  # the dict as the store holds it
    assert isinstance(payload, dict)
    run = as_audit_run(payload)
    assert isinstance(run, AuditRun) and as_audit_run(run) is run

    typed, stored = io.StringIO(), io.StringIO()
    print_groups(run, file=typed)
    print_groups(AuditRun.from_json(payload), file=stored)
    text = typed.getvalue()
    assert text == stored.getvalue()  # a payload and its AuditRun print the same

    # the flags table against the items themselves
    items = run_items_frame(p, run_id)
    b = items[items["group"].astype(str) == "b"]
    wer_b = (b["n_sub"] + b["n_del"] + b["n_ins"]).sum() / b["n_words"].sum()
    assert wer_b == 9 * 36 / (36 * 3)  # 9 loops of 36 inserted words over 36 x 3 words
    lines = text.split("\n")
    assert "Hallucination flags (checked: loop, runaway):" in lines
    flags = lines[lines.index("Hallucination flags (checked: loop, runaway):") :]
    (row,) = [ln for ln in flags if ln.startswith("  b ")]
    assert row.startswith(f"  {'b':<30}{36:>6}{9:>8}{fmt_percent(9 / 36):>7}{9:>6}")
    assert row.endswith(f"{fmt_percent(wer_b):>8}{fmt_percent(0.0):>15}")
    assert lines[0].startswith("group") and "a (reference)" in text

    # the same command again is answered from the cache and prints the same view
    assert main(args[:-1]) == 0
    again = capsys.readouterr()
    assert again.out == text
    assert "answered from the cache" in again.err

    # the run's recorded normaliser and language, as show aligns with them
    assert run_normaliser(AuditRun.from_json(payload)) == run_normaliser(run) == "whisper-english"
    assert run_language(AuditRun.from_json(payload)) == run_language(run) == "en"

    assert main(["show", "--project", str(p.folder), "--run", str(run_id), "--group", "b"]) == 0
    shown = capsys.readouterr().out
    heads = [ln for ln in shown.split("\n") if ln.startswith("== ")]
    assert len(heads) == 10 and all("[b]" in h for h in heads)
    # worst first: the 9 looping items (3 + 36 words, 36 insertions) before a correct one
    assert all("36 errors / 3 words (S 0, D 0, I 36)" in h for h in heads[:9])
    assert "0 errors / 3 words" in heads[9]
    assert shown.count("HALLUCINATION loop") == 9


def test_dump_json_writes_an_audit_run_as_its_json_form(tmp_path):
    import json

    from fairdesk.cli.common import dump_json

    payload = {
        "groups": [{"group": "a", "n_items": 3, "n_speakers": 2, "values": {"wer": 0.25}}],
        "comparisons": [],
        "reference": "a",
        "settings": {"n_bootstrap": 200, "normaliser": "whisper-english"},
    }
    run = as_audit_run(payload)
    path = tmp_path / "run.json"
    dump_json(run, str(path))
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written == json.loads(json.dumps(run.to_json()))
    assert written["groups"][0]["values"] == {"wer": 0.25} and written["schema_version"] == 2
    assert as_audit_run(written) == run  # and it reads back as the same run


def test_run_normaliser_and_language_of_payloads_without_them():
    assert (
        run_normaliser(AuditRun.from_json({})) is None
        and run_language(AuditRun.from_json({})) == "en"
    )
    assert run_language(AuditRun.from_json({}), default="yo") == "yo"
    assert (
        run_normaliser(AuditRun.from_json({"settings": {"normaliser": "tone-preserving"}}))
        == "tone-preserving"
    )
    assert run_language(AuditRun.from_json({"settings": {"language": "yo"}})) == "yo"
