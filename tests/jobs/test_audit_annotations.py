"""Audits take the latest transcript annotation as the reference, say so, and a re-audit
after an annotation is not answered from the result cache."""

from __future__ import annotations

import csv

from tests.conftest import write_wav


def _project(tmp_path):
    from fairdesk.core.importers import import_dataset
    from fairdesk.core.store import Project

    data = tmp_path / "data"
    rows, preds = [], []
    for g in ("a", "b"):
        for s in range(3):
            for k in range(3):
                rel = f"{g}{s}_{k}.wav"
                write_wav(data / rel, seconds=0.2, freq=200.0 + 10 * len(rows))
                rows.append(
                    {
                        "path": rel,
                        "text": "akwa ji",
                        "speaker_id": f"{g}{s}",
                        "content_id": f"c{k}",
                        "accent": g,
                    }
                )
                preds.append({"path": rel, "text": "àkwà ego"})
    with (data / "m.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    with (data / "p.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["path", "text"])
        w.writeheader()
        w.writerows(preds)
    p = Project(tmp_path / "proj")
    import_dataset(p, "d", data / "m.csv", fmt="manifest", language="ig")
    return p, data / "p.csv"


def test_reaudit_after_an_annotation_uses_the_new_text_and_a_new_cache_key(tmp_path):
    from fairdesk.jobs.audit import AuditRequest, run_audit
    from fairdesk.stats.settings import AuditSettings

    p, preds = _project(tmp_path)
    req = AuditRequest(
        dataset="d",
        model=f"predictions:{preds}",
        by=("accent",),
        settings=AuditSettings(n_bootstrap=200, min_items=3, min_speakers=2),
    )
    first = run_audit(p, req)
    # bridge: typed consumer pending
    assert first.result.to_json()["settings"]["text_source"] == {"annotation": 0, "import": 18}
    assert (first.frame["reference"] == "akwa ji").all()
    assert run_audit(p, req).from_cache  # nothing changed: the stored result

    items = p.items(p.dataset("d"))
    target = items[items["path"] == "a0_0.wav"].iloc[0]
    p.save_transcript(int(target["db_id"]), "àkwà ego", "ada")
    second = run_audit(p, req)
    assert not second.from_cache and second.run_id != first.run_id
    # bridge: typed consumer pending
    assert second.result.to_json()["settings"]["text_source"] == {"annotation": 1, "import": 17}
    f = second.frame.set_index("path")
    assert f.loc["a0_0.wav", "reference"] == "àkwà ego"
    assert f.loc["a0_0.wav", "text_source"] == "annotation"
    assert f.loc["a1_0.wav", "reference"] == "akwa ji"
    # the hypothesis now matches the annotated reference of that item exactly
    assert f.loc["a0_0.wav", "n_sub"] == 0 and f.loc["a1_0.wav", "n_sub"] > 0
    # the imported text is kept in the store
    assert p.items(p.dataset("d")).set_index("path").loc["a0_0.wav", "text"] == "akwa ji"
