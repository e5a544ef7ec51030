"""Print the plain reading of an audit's JSON (used by installer/demo.sh).

The audit command prints the table of groups; this adds what a first-time reader needs: the
design and how it was resampled, each comparison's one-sentence reading (gap, 95% CI,
Holm-adjusted p, verdict) and its caveats. It reads the JSON as the typed result
(``fairdesk.jobs.result.AuditRun``), as the app and the reports do.

Usage: python installer/demo_reading.py AUDIT_JSON [METRIC]   (METRIC default: wer)
"""

from __future__ import annotations

import json
import sys
import textwrap

DESIGNS = {
    "unmatched": "unmatched: the groups read different sentences, so a gap can come from "
    "harder sentences as well as from the speakers",
    "matched": "matched: every group read the same sentences",
    "partially_matched": "partially matched: the groups share some sentences",
}
SCHEMES = {
    "speaker": "speakers resampled (each speaker's utterances kept together)",
    "two_way": "speakers and sentences resampled",
    "content": "sentences resampled",
    "utterance": "utterances resampled (no speaker ids)",
}


def reading(res, metric: str = "wer") -> list[str]:
    """The lines to print for one audit result (an ``AuditRun`` or its JSON)."""
    import fairdesk
    from fairdesk.jobs.result import AuditRun
    from fairdesk.presentation.notices import notice_text

    run = res if isinstance(res, AuditRun) else AuditRun.from_json(res)
    comps = [c for c in run.comparisons if c.metric == metric]
    lines = [f"Design: {DESIGNS.get(run.design, run.design or 'not computed')}."]
    schemes = sorted({c.estimator for c in comps if c.estimator})
    if schemes:
        lines.append(
            "95% CIs by percentile bootstrap, "
            + "; ".join(SCHEMES.get(s, s) for s in schemes)
            + "."
        )
    for c in comps:
        flags = ", ".join(c.flags or ()) or "none"
        lines.append(f"{c.group} vs {c.reference}: {c.verdict} (flags: {flags})")
        lines.extend(
            textwrap.wrap(fairdesk.reading(c, run), 92, initial_indent="  ", subsequent_indent="  ")
        )
    for e in run.excluded:
        why = notice_text(e.reason) if e.reason is not None else "no reason stored"
        lines.append(f"{e.group}: not compared ({why})")
    return lines


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        res = json.load(f)
    print("\n".join(reading(res, argv[1] if len(argv) > 1 else "wer")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
