"""Constants shared by every layer (pure: importing this drags in no device library)."""

#: Working sample rate of every model and signal-processing step (Hz).
SAMPLE_RATE = 16_000

#: At most this many items in one analysis run (docs/METHODS.md, "Run cap").
MAX_RUN_ITEMS = 20_000

#: Speaker-bootstrap resamples of the annotators' agreement: ``fairdesk agreement``'s
#: default, and the number the report and the Results view show
#: (docs/METHODS.md, "References from several annotators").
AGREEMENT_BOOTSTRAP = 2000

#: The streaming policies that re-decode the audio so far (any backend with ``transcribe``),
#: and the one that records an engine's own partial results
#: (docs/METHODS.md, "Incremental recognition"). Here, so that ``fairdesk --help`` offers them without loading the
#: incremental package; :mod:`fairdesk.incremental` names them ``POLICIES`` and ``NATIVE``.
REDECODING_POLICIES = (
    "concatenation",
    "sliding",
    "sliding-literal",
    "local-agreement",
    "local-agreement-norm",
)
NATIVE_POLICY = "native"
