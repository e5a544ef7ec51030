"""Missing values are shown as missing everywhere (issue 44, point 8; docs/METHODS.md,
"Missing values"): a Parquet manifest's empty (NaN) speaker and accent are no speaker and
no value, not a speaker or an accent called "nan", in ``datasets`` and ``items`` as in
the audit (which counts them as missing)."""

from __future__ import annotations

import json

import pandas as pd

from tests.conftest import write_wav


def test_empty_parquet_cells_are_missing_in_datasets_and_items(cli, tmp_path):
    data, proj = tmp_path / "data", tmp_path / "proj"
    rows = []
    for i in range(8):
        write_wav(data / f"{i}.wav", seconds=0.3, freq=200 + 10 * i)
        rows.append(
            {
                "path": f"{i}.wav",
                "text": "hello there",
                "speaker_id": None if i == 0 else f"s{i}",
                "accent": None if i == 1 else ("us" if i % 2 else "uk"),
            }
        )
    pd.DataFrame(rows).to_parquet(data / "m.parquet")  # None is NaN in Parquet's pandas
    code, _out, err = cli("import", "--project", proj, "--name", "d", data / "m.parquet")
    assert code == 0, err
    code, out, _ = cli("datasets", "--project", proj)
    assert "nan" not in out.lower().replace(str(tmp_path).lower(), "")
    assert "d: 8 items, 7 speakers" in out
    assert "(no value)" in out and "     1 item" in out.split("(no value)")[1].splitlines()[0]
    code, out, _ = cli("items", "--project", proj, "--dataset", "d")
    first = out.splitlines()[0].split("\t")
    assert first[:2] == ["0.wav", "–"]
    code, out, _ = cli("items", "--project", proj, "--dataset", "d", "--json")
    items = json.loads(out)
    assert items[0]["speaker_id"] is None
    assert items[1].get("accent") is None
    code, out, _ = cli("datasets", "--project", proj, "--json")
    (s,) = json.loads(out)
    assert s["columns"]["accent"] == {
        "uk": {"items": 4, "speakers": 3},
        "us": {"items": 3, "speakers": 3},
    }
    assert s["missing"] == {"accent": 1}
