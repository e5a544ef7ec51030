"""The same clips imported as a CSV manifest and as a Kaldi data directory, a NeMo manifest
and a Lhotse CutSet give the same audit: the same items, the same per-group WER with the
same confidence intervals, and the same hypothesis for every item (imported predictions).

The clips are real speech (the L2-English demo corpus in resources/demo), written as 16 kHz
WAV files once; each format lists them as its tools write it.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile

import numpy as np
import pytest
import soundfile as sf

from fairdesk.core.importers import import_dataset
from fairdesk.core.store import Project

SR = 16000
#: What the audit stored for each item, compared across the imports.
ITEM_COLUMNS = [
    "reference",
    "hypothesis",
    "speaker_id",
    "gender",
    "duration",
    "n_words",
    "n_sub",
    "n_del",
    "n_ins",
]
N_SPEAKERS = 6
PER_SPEAKER = 3


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """``root/wav/<speaker>/<id>.wav`` of real utterances (3 from each of 3 female and 3
    male speakers) and their rows ``(id, speaker, gender, text, seconds)``."""
    from fairdesk.core.audio import resample, to_mono
    from fairdesk.core.demo import l2_english_zip

    root = tmp_path_factory.mktemp("same") / "corpus"
    rows = []
    with zipfile.ZipFile(l2_english_zip()) as z:
        meta = list(csv.DictReader(io.TextIOWrapper(z.open("metadata.csv"), encoding="utf-8")))
        by_speaker: dict[str, list[dict]] = {}
        for r in meta:
            by_speaker.setdefault(r["speaker_id"], []).append(r)
        picked = {}
        for gender in ("female", "male"):
            speakers = [s for s, rs in by_speaker.items() if rs[0]["gender"] == gender]
            for s in [s for s in speakers if len(by_speaker[s]) >= PER_SPEAKER][: N_SPEAKERS // 2]:
                picked[s] = by_speaker[s][:PER_SPEAKER]
        for spk, utts in picked.items():
            for r in utts:
                data, sr = sf.read(io.BytesIO(z.read(r["path"])), dtype="float32", always_2d=True)
                x = resample(to_mono(data), sr, SR)
                uid = f"{spk}-{r['path'].rsplit('/', 1)[-1].split('.')[0]}"
                (root / "wav" / spk).mkdir(parents=True, exist_ok=True)
                sf.write(root / "wav" / spk / f"{uid}.wav", x, SR, subtype="PCM_16")
                rows.append((uid, spk, r["gender"], r["text"], len(x) / SR))
    assert len(rows) == N_SPEAKERS * PER_SPEAKER
    assert {g for _u, _s, g, _t, _d in rows} == {"female", "male"}
    return root, rows


def _csv(root, rows):
    f = root / "manifest.csv"
    with f.open("w", newline="", encoding="utf-8") as out:
        w = csv.writer(out)
        w.writerow(["id", "path", "text", "speaker_id", "gender"])
        for uid, spk, g, text, _d in rows:
            w.writerow([uid, f"wav/{spk}/{uid}.wav", text, spk, g])
    return f


def _kaldi(root, rows):
    """data/test as a recipe writes it: paths relative to the recipe folder (two levels up),
    speaker-prefixed utterance ids, spk2gender with m/f."""
    d = root / "data" / "test"
    d.mkdir(parents=True)

    def table(name, lines):
        (d / name).write_text("".join(f"{a} {b}\n" for a, b in sorted(lines)), encoding="utf-8")

    table("wav.scp", [(u, f"wav/{s}/{u}.wav") for u, s, *_ in rows])
    table("text", [(u, t) for u, _s, _g, t, _d in rows])
    table("utt2spk", [(u, s) for u, s, *_ in rows])
    spk_utts: dict[str, list[str]] = {}
    for u, s, *_ in rows:
        spk_utts.setdefault(s, []).append(u)
    table("spk2utt", [(s, " ".join(sorted(us))) for s, us in spk_utts.items()])
    table("spk2gender", {(s, g[0]) for _u, s, g, _t, _d in rows})
    return d


def _nemo(root, rows):
    f = root / "nemo" / "test_manifest.json"
    f.parent.mkdir()
    f.write_text(
        "".join(
            json.dumps(
                {
                    "audio_filepath": str(root / "wav" / s / f"{u}.wav"),
                    "duration": round(d, 3),
                    "text": t,
                    "id": u,
                    "speaker": s,
                    "gender": g,
                }
            )
            + "\n"
            for u, s, g, t, d in rows
        ),
        encoding="utf-8",
    )
    return f


def _cuts(root, rows):
    """A CutSet as lhotse's MonoCut.to_dict writes it, one cut per clip, paths relative to
    the corpus folder (read with --audio-root)."""
    f = root / "lhotse" / "cuts_test.jsonl"
    f.parent.mkdir()
    lines = []
    for u, s, g, t, d in rows:
        n = int(round(d * SR))
        rec = {
            "id": u,
            "sources": [{"type": "file", "channels": [0], "source": f"wav/{s}/{u}.wav"}],
            "sampling_rate": SR,
            "num_samples": n,
            "duration": n / SR,
            "channel_ids": [0],
        }
        sup = {
            "id": u,
            "recording_id": u,
            "start": 0.0,
            "duration": n / SR,
            "channel": 0,
            "text": t,
            "language": "English",
            "speaker": s,
            "gender": g,
        }
        cut = {
            "id": f"{u}-0",
            "start": 0.0,
            "duration": n / SR,
            "channel": 0,
            "supervisions": [sup],
            "recording": rec,
            "type": "MonoCut",
        }
        lines.append(json.dumps(cut) + "\n")
    f.write_text("".join(lines), encoding="utf-8")
    return f


def _hypothesis(i: int, text: str) -> str:
    """Every third item drops its last word, every fourth has its first word wrong."""
    words = text.split()
    if i % 3 == 0 and len(words) > 1:
        words = words[:-1]
    if i % 4 == 1:
        words = ["BANANA", *words[1:]]
    return " ".join(words)


def test_an_audit_of_kaldi_nemo_and_cutset_imports_equals_the_csv_imports(corpus, tmp_path):
    from fairdesk.core.runs import run_items_frame
    from fairdesk.jobs import AuditRequest, run_audit
    from fairdesk.stats import AuditSettings

    root, rows = corpus
    project = Project(tmp_path / "proj")
    sources = {
        "csv": (_csv(root, rows), {}),
        "kaldi": (_kaldi(root, rows), {}),
        "nemo": (_nemo(root, rows), {}),
        "cuts": (_cuts(root, rows), {"audio_root": str(root)}),
    }
    preds = tmp_path / "preds.csv"
    with preds.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["item_id", "text"])
        w.writerows((u, _hypothesis(i, t)) for i, (u, _s, _g, t, _d) in enumerate(rows))
    audits = {}
    for name, (src, opts) in sources.items():
        rep = import_dataset(project, name, src, **opts)
        assert (rep.imported, rep.problems) == (len(rows), ()), name
        items = project.items(project.dataset(name)).set_index("id").sort_index()
        assert list(items.index) == sorted(u for u, *_ in rows)
        assert dict(items["gender"]) == {u: g for u, _s, g, _t, _d in rows}
        assert dict(items["speaker_id"]) == {u: s for u, s, *_ in rows}
        out = run_audit(
            project,
            AuditRequest(
                dataset=name,
                model=f"predictions:{preds}",
                by=("gender",),
                settings=AuditSettings(n_bootstrap=200, min_items=2, min_speakers=1),
                nlu="none",
            ),
        )
        res = out.result
        per_item = run_items_frame(project, out.run_id).set_index("item_id").sort_index()
        audits[name] = (
            {
                g.group: (g.n_items, g.n_speakers, g.values["wer"], g.ci.get("wer"))
                for g in res.groups
            },
            [c.to_dict() for c in res.comparisons if c.metric == "wer"],
            per_item[ITEM_COLUMNS],
            items["audio_hash"],
        )
    groups, gaps, per_item, hashes = audits["csv"]
    assert set(groups) == {"female", "male"}
    assert all(v[3] is not None for v in groups.values())  # each group's CI compared too
    assert {g: v[:2] for g, v in groups.items()} == {
        "female": (9, 3),
        "male": (9, 3),
    }
    # the hypotheses are the imported ones, every item read
    assert dict(per_item["hypothesis"]) == {
        u: _hypothesis(i, t) for i, (u, _s, _g, t, _d) in enumerate(rows)
    }
    exact = [u for i, (u, _s, _g, t, _d) in enumerate(rows) if _hypothesis(i, t) == t]
    assert (per_item.loc[exact, ["n_sub", "n_del", "n_ins"]] == 0).all().all()
    # each group's WER is its pooled errors over its reference words
    for g, (_n, _k, wer, _ci) in groups.items():
        mine = per_item[per_item["gender"] == g]
        errors = mine[["n_sub", "n_del", "n_ins"]].to_numpy().sum()
        assert wer == pytest.approx(errors / mine["n_words"].sum()) and wer > 0
    for name in ("kaldi", "nemo", "cuts"):
        g2, c2, p2, h2 = audits[name]
        assert g2 == groups, name
        assert c2 == gaps and gaps, name  # the gap, its CI and p
        assert p2.equals(per_item), name
        assert np.array_equal(h2.values, hashes.values), name  # the same audio, decoded
