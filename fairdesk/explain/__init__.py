"""The explain stage (docs/METHODS.md, "Saliency" and "Saliency grounding"): saliency curves, reference word spans and grounding.

- :mod:`.saliency`: per-frame importance of the audio for the reference transcript's
  log-probability (occlusion for any scoring backend; gradient × input and integrated
  gradients for differentiable torch backends). Pure numpy plus the backend interface.
- :mod:`.alignment`: reference word spans by forced alignment (whisper-tiny.en, CTranslate2).
- :mod:`.grounding`: grounding lift, phone-error grounding (AUROC / AP), an energy VAD and
  the speaker-balanced explain sample.
- :mod:`.store`: the ``saliency`` cache table of the project store.
- :mod:`fairdesk.jobs.explain_stage` (a pipeline stage, so in jobs/): the audit's explain
  stage (sample → saliency → word spans → per-item lift).

Nothing here imports torch, ctranslate2 or Qt at module level.
"""

from .grounding import (
    energy_vad,
    explain_sample,
    frames_in_regions,
    grounding_lift,
    phone_error_grounding,
)
from .saliency import (
    DEFAULT_FRAME_S,
    DEFAULT_WINDOW_S,
    METHODS,
    Saliency,
    compute_saliency,
    gradient_x_input,
    integrated_gradients,
    occlusion,
)

__all__ = [
    "DEFAULT_FRAME_S",
    "DEFAULT_WINDOW_S",
    "METHODS",
    "Saliency",
    "compute_saliency",
    "energy_vad",
    "explain_sample",
    "frames_in_regions",
    "gradient_x_input",
    "grounding_lift",
    "integrated_gradients",
    "occlusion",
    "phone_error_grounding",
]
