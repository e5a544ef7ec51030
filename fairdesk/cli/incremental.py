"""``fairdesk incremental``: stream a dataset through a recogniser chunk by chunk and measure
accuracy, latency and stability (adds/revokes), pooled and per group (METHODS.md §6).

Wired by ``fairdesk.cli.build_parser`` (``incremental.add_command(sub)``).
"""

from __future__ import annotations

import math
import sys

from .audit import print_failures
from .common import EXIT_NOTHING, EXIT_OK, UsageError, dump_json, parse_filters, positive_int

_POLICY_CHOICES = ("concatenation", "sliding", "sliding-literal", "local-agreement", "all")


def add_command(sub):
    s = sub.add_parser(
        "incremental",
        help="incremental (streaming) recognition: WER, latency, edit overhead, revokes per "
        "second, per policy and per group",
    )
    s.add_argument("--project", required=True)
    s.add_argument("--dataset", required=True)
    s.add_argument("--model", default="whisper-tiny.en")
    s.add_argument("--policy", action="append", choices=_POLICY_CHOICES, metavar="POLICY",
                   help="concatenation (default), sliding, sliding-literal, local-agreement "
                   "or all (repeatable)")
    s.add_argument("--by", action="append", metavar="COL",
                   help="compare groups of this column (one or two, repeatable)")
    s.add_argument("--filter", action="append", metavar="COL=VAL")
    s.add_argument("--reference", help="reference group (default: the largest)")
    s.add_argument("--metric", action="append", metavar="ID",
                   help="metric compared across groups (repeatable; default eo, "
                   "revokes_per_audio_second, wer)")
    s.add_argument("--sample", type=positive_int, metavar="N",
                   help="N items (per group with --by, spread over speakers)")
    s.add_argument("--chunk", type=float, default=1.0, help="seconds per chunk (default 1.0)")
    d = s.add_argument_group("decoder")
    d.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    d.add_argument("--threads", type=int, help="decoder CPU threads (default: all cores)")
    d.add_argument("--beam-size", type=int, help="beam size (default: the backend's)")
    p = s.add_argument_group("policies")
    p.add_argument("--min-words", type=int, default=5,
                   help="sliding window: cut when the window yields this many words")
    p.add_argument("--max-window", type=float, default=30.0,
                   help="sliding window: cut when the window reaches this many seconds")
    p.add_argument("--cut-fraction", type=float, default=0.35,
                   help="sliding window: raw cut at this fraction of the window")
    p.add_argument("--buffer-trim", type=float, default=15.0,
                   help="local agreement: trim the buffer past this many seconds")
    g = s.add_argument_group("statistics (METHODS.md §3)")
    g.add_argument("--n-bootstrap", type=int, default=2000)
    g.add_argument("--alpha", type=float, default=0.05)
    g.add_argument("--min-items", type=int, default=30)
    g.add_argument("--min-speakers", type=int, default=5)
    g.add_argument("--seed", type=int, default=0)
    s.add_argument("--logs", action="store_true", help="include every update log in --json")
    s.add_argument("--json", metavar="OUT", help="write the full result as JSON ('-' = stdout)")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_incremental)


def _policies(a) -> list[str]:
    chosen = a.policy or ["concatenation"]
    if "all" in chosen:
        return ["concatenation", "sliding", "sliding-literal", "local-agreement"]
    return list(dict.fromkeys(chosen))


def _options(a) -> dict:
    sliding = {"min_words": a.min_words, "max_window_s": a.max_window,
               "cut_fraction": a.cut_fraction}
    return {"sliding": sliding, "sliding-literal": dict(sliding),
            "local-agreement": {"buffer_trim_s": a.buffer_trim}}


def _load_items(a, settings):
    from ..core.errors import StoreError
    from ..stats.slicing import slice_frame, stratified_sample
    from .common import _project

    proj = _project(a.project)
    try:
        ds = proj.dataset(a.dataset)
        frame = proj.items(ds, parse_filters(a.filter))
    except StoreError as e:
        raise UsageError(str(e)) from None
    if frame.empty:
        raise UsageError(f"dataset {a.dataset!r} has no items (after the filters)")
    both = sorted(set(parse_filters(a.filter)) & set(a.by or []))
    if both:
        raise UsageError(f"column(s) {both} can't be both a filter and a grouping key")
    had_group = "group" in frame.columns
    if a.by:
        try:
            frame = slice_frame(frame, a.by)
        except ValueError as e:
            raise UsageError(str(e)) from None
    if a.sample:
        if a.sample < 1:
            raise UsageError("--sample must be at least 1")
        if a.by:
            frame = stratified_sample(frame, "group", a.sample, seed=settings.seed)
        elif a.sample < len(frame):
            frame = frame.sample(n=a.sample, random_state=settings.seed).sort_index()
    if a.by and not had_group:
        frame = frame.drop(columns=["group"])
    return ds, frame.reset_index(drop=True)


def _backend(a):
    import os

    from ..models import get_backend

    kw = {"cpu_threads": a.threads or os.cpu_count() or 1}
    if a.beam_size:
        kw["beam_size"] = a.beam_size
    try:
        return get_backend(a.model, a.device, **kw), kw["cpu_threads"]
    except TypeError:
        if a.beam_size:
            raise UsageError(f"model {a.model!r} has no beam size setting") from None
        return get_backend(a.model, a.device), None
    except ValueError as e:
        raise UsageError(str(e)) from None


def run_incremental(a) -> dict:
    """Everything the command computes, as a JSON-ready dict."""
    import math as _m

    from ..core import audio as audio_io
    from ..incremental import compare_by_group, evaluate, hardware, summarise, warm_up
    from ..incremental.metrics import DEFAULT_COMPARED, INCREMENTAL_METRICS
    from ..stats.settings import AuditSettings

    if not (_m.isfinite(a.chunk) and a.chunk > 0):
        raise UsageError("--chunk must be a positive number of seconds")
    metrics = a.metric or list(DEFAULT_COMPARED)
    bad = [m for m in metrics if m not in INCREMENTAL_METRICS]
    if bad:
        raise UsageError(f"unknown metric(s) {bad}; use: {', '.join(INCREMENTAL_METRICS)}")
    if a.by and len(a.by) > 2:
        raise UsageError("--by takes one or two columns")
    try:
        settings = AuditSettings(n_bootstrap=a.n_bootstrap, seed=a.seed, alpha=a.alpha,
                                 min_items=a.min_items, min_speakers=a.min_speakers)
    except ValueError as e:
        raise UsageError(str(e)) from None
    ds, items = _load_items(a, settings)
    policies = _policies(a)
    backend, threads = _backend(a)

    def load(item):
        return audio_io.load(ds.root / item["path"]).samples

    with backend:
        first = None
        try:
            first = load(items.iloc[0].to_dict())
        except Exception:  # noqa: BLE001 - warm up on silence instead
            first = None
        warm_s = warm_up(backend, first)
        progress = None
        if not a.quiet:
            def progress(done, total, msg):
                print(f"\r[{done}/{total}] {msg[:60]:<60}", end="", file=sys.stderr,
                      flush=True)
        frame, failures, logs = evaluate(
            backend, items.to_dict("records"), load, policies, a.chunk,
            language=ds.language or "en", options=_options(a), keep_logs=a.logs,
            progress=progress)
        if progress:
            print(file=sys.stderr)
        decoder = {"model": a.model, **backend.settings, "cpu_threads": threads}
    res = {
        "dataset": a.dataset,
        "model": a.model,
        "policies": policies,
        "chunk_s": a.chunk,
        "policy_options": _options(a),
        "hardware": hardware(threads),
        "decoder": decoder,
        "warm_up_s": warm_s,
        "n_items": int(len(items)),
        "summary": [{"model": a.model, **r} for r in summarise(frame)],
        "failures": failures,
        "settings": {**settings.to_dict(), "by": a.by, "filters": parse_filters(a.filter),
                     "sample": a.sample, "metrics": metrics},
    }
    if a.by and not frame.empty:
        try:
            res["groups"] = compare_by_group(frame, a.by, settings, metrics, a.reference)
        except ValueError as e:
            raise UsageError(str(e)) from None
    if a.logs:
        res["logs"] = [{"item": k[0], "policy": k[1], **v} for k, v in logs.items()]
    cols = [c for c in ("id", "speaker_id", "content_id", *(a.by or []), "policy", "stream")
            if c in frame.columns]
    from ..incremental.metrics import STAT_COLUMNS

    res["items"] = frame[cols + list(STAT_COLUMNS) + ["hypothesis"]].to_dict("records") \
        if not frame.empty else []
    return res


def _f(v, fmt="{:.3f}"):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, float) and math.isinf(v):
        return "inf"
    return fmt.format(v)


def print_summary(res: dict, file=None):
    file = file if file is not None else sys.stdout
    hw, dec = res["hardware"], res["decoder"]
    print(f"{res['model']} on {hw.get('cpu') or hw.get('machine')} "
          f"({hw.get('usable_cpus')} usable CPUs, {dec.get('cpu_threads')} decoder threads); "
          f"chunk {res['chunk_s']} s; decoder: "
          + ", ".join(f"{k}={dec[k]}" for k in ("compute_type", "beam_size", "strategy")
                      if k in dec), file=file)
    head = (f"{'policy':<28}{'items':>6}{'WER':>8}{'LAT':>8}{'EO':>7}{'EO(ed)':>8}{'RPS':>7}"
            f"{'SPR':>7}{'R/aud s':>8}{'RTF':>7}{'FWL s':>7}{'stab s':>7}")
    print(head, file=file)
    for r in res["summary"]:
        if r.get("spr") is None and not r["totals"].get("n_revokes"):
            r = {**r, "spr": math.inf}  # JSON has no infinity: no revokes means SPR = inf
        name = (r["policy"] if r["policy"] != "local-agreement"
                else f"{r['policy']} ({r['stream']})")
        print(f"{name[:27]:<28}{r['n_items']:>6}{_f(r['wer'], '{:.1%}'):>8}{_f(r['lat']):>8}"
              f"{_f(r['eo']):>7}{_f(r['eo_edit']):>8}{_f(r['rps'], '{:.2f}'):>7}"
              f"{_f(r['spr'], '{:.2f}'):>7}{_f(r['revokes_per_audio_second'], '{:.2f}'):>8}"
              f"{_f(r['rtf'], '{:.2f}'):>7}{_f(r['final_word_latency'], '{:.2f}'):>7}"
              f"{_f(r['stabilisation_latency'], '{:.2f}'):>7}", file=file)
    for r in res["summary"]:
        t = r["totals"]
        if r["policy"].startswith("sliding") or t.get("n_trims"):
            print(f"  {r['policy']}: {t['n_trims']} trims, {t['n_cuts']} cuts, "
                  f"{t['n_cuts_inside_word']} inside a word, {t['n_cuts_forced']} forced",
                  file=file)
    for block in res.get("groups", []):
        print(f"\n{block['policy']} ({block['stream']}), groups "
              f"(reference {block.get('reference')}):", file=file)
        metrics = res["settings"]["metrics"]
        print(f"  {'group':<30}{'items':>6}" + "".join(f"{m[:12]:>14}" for m in metrics),
              file=file)
        for g in block["groups"]:
            mark = " (excluded)" if g.get("excluded") else ""
            print(f"  {(str(g['group']) + mark)[:29]:<30}{g['n_items']:>6}" + "".join(
                f"{_f(g['values'].get(m), '{:.4f}'):>14}" for m in metrics), file=file)
        for c in block["comparisons"]:
            print(f"  {c['metric']:<26}{str(c['group'])[:22]:<23}gap {_f(c['gap'], '{:+.4f}')} "
                  f"[{_f(c['ci_low'], '{:+.4f}')}, {_f(c['ci_high'], '{:+.4f}')}] "
                  f"p_adj {_f(c['p_adjusted'], '{:.3g}')}  {c['verdict']}", file=file)
        for e in block.get("excluded", []):
            print(f"  excluded {e['group']}: {e['reason']}", file=file)
    print_failures(res, file)


def cmd_incremental(a):
    res = run_incremental(a)
    if not a.quiet:
        from .common import human_out

        print_summary(res, file=human_out(a.json))
    if a.json:
        dump_json(res, a.json)
    return EXIT_OK if res["summary"] else EXIT_NOTHING
