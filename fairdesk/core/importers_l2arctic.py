"""L2-ARCTIC reader (``fairdesk import --format l2arctic DIR``).

Layout (Zhao et al., Interspeech 2018): one folder per speaker (``ABA/``, ``BWC/`` ...) with
``wav/<utt>.wav``, ``transcript/<utt>.txt`` and, for a subset of utterances,
``annotation/<utt>.TextGrid``, whose ``phones`` tier holds one interval per phone: a plain
ARPAbet phone where the speaker said it as expected, and ``CPL,PPL,type`` where a linguist
marked a pronunciation error (canonical phone, perceived phone, ``s``/``d``/``a`` for
substitution, deletion, addition; ``sil`` or an empty phone on the missing side).

Speaker L1 and gender come from the corpus README's table (:data:`SPEAKERS`; no
machine-readable file ships with it). A folder not in the table is still imported, without
``native_language``/``gender``, and reported.

What an annotated utterance stores
----------------------------------
* one annotation of kind ``phone_error`` per error: ``start``, ``end`` (seconds) and value
  ``{"canonical", "perceived", "type", "label"}``, so the explain stage grounds saliency on
  the error windows (:data:`fairdesk.explain.grounding.ERROR_KINDS`);
* one annotation of kind ``phone_counts`` (no times): ``{"n_phones", "n_errors",
  "phones": {canonical phone: count}}``;
* item metadata ``accentedness`` = errors ÷ canonical phones (an addition has no canonical
  phone: it counts as an error, not as a phone).

A TextGrid that cannot be read, or has no ``phones`` tier, is a problem naming the file; the
utterance is imported without annotations.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from .errors import ImportFailed
from .import_rows import Candidate, Problem, read_text

#: The corpus README's speaker table: folder → (L1, gender).
SPEAKERS: dict[str, tuple[str, str]] = {
    "ABA": ("Arabic", "male"),
    "SKA": ("Arabic", "female"),
    "YBAA": ("Arabic", "male"),
    "ZHAA": ("Arabic", "female"),
    "BWC": ("Mandarin", "male"),
    "LXC": ("Mandarin", "female"),
    "NCC": ("Mandarin", "female"),
    "TXHC": ("Mandarin", "male"),
    "ASI": ("Hindi", "male"),
    "RRBI": ("Hindi", "male"),
    "SVBI": ("Hindi", "female"),
    "TNI": ("Hindi", "female"),
    "HJK": ("Korean", "female"),
    "HKK": ("Korean", "male"),
    "YDCK": ("Korean", "female"),
    "YKWK": ("Korean", "male"),
    "EBVS": ("Spanish", "male"),
    "ERMS": ("Spanish", "male"),
    "MBMPS": ("Spanish", "female"),
    "NJS": ("Spanish", "female"),
    "HQTV": ("Vietnamese", "male"),
    "PNV": ("Vietnamese", "female"),
    "THV": ("Vietnamese", "female"),
    "TLV": ("Vietnamese", "male"),
}
#: Labels that are silence or nothing (not a phone).
SILENCE = {"", "sil", "sp", "spn", "<sil>", "<unk>"}
ERROR_TYPES = {"s": "substitution", "d": "deletion", "a": "addition"}
PHONE_ERROR = "phone_error"
PHONE_COUNTS = "phone_counts"


def _phone(label: str) -> str:
    """ARPAbet phone without stress digit or stray marks (``AH0`` → ``AH``); '' = none."""
    p = re.sub(r"[\d*\s]", "", label).upper()
    return "" if p.lower() in SILENCE else p


def parse_phones_tier(path: Path) -> dict:
    """The errors and canonical phone counts of one annotation TextGrid.

    Returns
    -------
    dict with ``errors`` (list of ``{"start", "end", "canonical", "perceived", "type",
    "label"}``; ``canonical``/``perceived`` ``"-"`` on the missing side), ``phones``
    (Counter of canonical phones), ``n_phones`` and ``n_errors``.

    Raises
    ------
    ValueError
        The file is not a TextGrid, has no ``phones`` tier, or holds a malformed label.
    """
    from praatio import textgrid

    try:
        tg = textgrid.openTextgrid(str(path), includeEmptyIntervals=False)
    except Exception as exc:  # noqa: BLE001 - praatio raises many kinds on a bad file
        raise ValueError(f"not a readable TextGrid ({type(exc).__name__}: {exc})") from None
    names = {n.lower(): n for n in tg.tierNames}
    if "phones" not in names:
        raise ValueError(f"no 'phones' tier (tiers: {', '.join(tg.tierNames) or 'none'})")
    tier = tg.getTier(names["phones"])
    errors: list[dict] = []
    phones: Counter[str] = Counter()
    for start, end, label in tier.entries:
        label = label.strip()
        if "," in label:
            parts = [x.strip() for x in label.split(",")]
            if len(parts) != 3 or parts[2].lower() not in ERROR_TYPES:
                raise ValueError(
                    f"phone label {label!r} at {start:.3f}–{end:.3f} s is not "
                    "'CPL,PPL,type' with type s, d or a"
                )
            cpl, ppl, kind = _phone(parts[0]), _phone(parts[1]), parts[2].lower()
            if cpl:
                phones[cpl] += 1
            errors.append(
                {
                    "start": float(start),
                    "end": float(end),
                    "canonical": cpl or "-",
                    "perceived": ppl or "-",
                    "type": ERROR_TYPES[kind],
                    "label": label,
                }
            )
        else:
            p = _phone(label)
            if p:
                phones[p] += 1
    n = int(sum(phones.values()))
    return {"errors": errors, "phones": phones, "n_phones": n, "n_errors": len(errors)}


def read_l2arctic(root: Path, **_):
    """Candidates of an L2-ARCTIC folder (see the module docstring); annotated utterances
    carry their annotations in ``Candidate.annotations``."""
    root = Path(root)
    spk_dirs = sorted(d for d in root.iterdir() if d.is_dir() and (d / "wav").is_dir())
    if not spk_dirs:
        raise ImportFailed(
            f"{root}: no speaker folders with a wav/ folder (L2-ARCTIC layout: "
            "ABA/wav/*.wav, ABA/transcript/*.txt, ABA/annotation/*.TextGrid)"
        )
    cands, problems = [], []
    for d in spk_dirs:
        spk = d.name
        meta = {}
        if spk.upper() in SPEAKERS:
            l1, gender = SPEAKERS[spk.upper()]
            meta = {"native_language": l1, "gender": gender}
        else:
            problems.append(
                Problem(
                    None,
                    spk,
                    f"speaker folder {spk} is not in the L2-ARCTIC "
                    "speaker table: imported without native_language and "
                    "gender",
                    str(d),
                )
            )
        for wav in sorted((d / "wav").glob("*.wav")):
            utt = wav.stem
            tfile = d / "transcript" / f"{utt}.txt"
            if not tfile.exists():
                problems.append(
                    Problem(
                        None,
                        f"{spk}/wav/{wav.name}",
                        f"no transcript {spk}/transcript/{utt}.txt; add it or remove the recording",
                        str(d),
                    )
                )
                continue
            text = " ".join(read_text(tfile).split())
            m = dict(meta)
            anns = []
            tg = d / "annotation" / f"{utt}.TextGrid"
            if tg.exists():
                try:
                    parsed = parse_phones_tier(tg)
                except ValueError as exc:
                    problems.append(
                        Problem(
                            None,
                            f"{spk}/annotation/{tg.name}",
                            f"{exc}; the utterance is imported without annotations",
                            str(tg),
                        )
                    )
                else:
                    anns = [
                        (
                            PHONE_ERROR,
                            e["start"],
                            e["end"],
                            {k: e[k] for k in ("canonical", "perceived", "type", "label")},
                        )
                        for e in parsed["errors"]
                    ]
                    anns.append(
                        (
                            PHONE_COUNTS,
                            None,
                            None,
                            {
                                "n_phones": parsed["n_phones"],
                                "n_errors": parsed["n_errors"],
                                "phones": dict(sorted(parsed["phones"].items())),
                            },
                        )
                    )
                    if parsed["n_phones"]:
                        m["accentedness"] = round(parsed["n_errors"] / parsed["n_phones"], 6)
                    m["annotated"] = "yes"
            cands.append(
                Candidate(
                    row=1,
                    source=str(tfile),
                    key=f"{spk}/{utt}",
                    path=str(wav),
                    text=text,
                    speaker_id=spk,
                    content_id=f"arctic:{utt}",
                    metadata=m,
                    annotations=anns,
                )
            )
    return root, cands, problems
