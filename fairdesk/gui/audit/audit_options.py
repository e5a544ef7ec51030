"""The Audit panel's option and statistics fields
(:class:`fairdesk.gui.audit.audit_panel.AuditPanel`): built here onto the panel, so the panel
module holds its behaviour and stays small."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QSpinBox,
)

from .refusal_view import ITEMS_FIELD, SPEAKERS_FIELD

__all__ = [
    "REFERENCE_TEXTS",
    "add_option_widgets",
    "fill_reference_texts",
    "statistics_box",
    "supports_model_based",
]

#: The References choices (``--reference-text``) every dataset offers, then one per annotator.
REFERENCE_TEXTS = (
    ("newest version (latest)", "latest"),
    ("imported text", "imported"),
    ("adjudicated versions", "adjudicated"),
    ("resample the annotators' versions", "resample"),
)


def supports_model_based() -> bool:
    """Whether this fairdesk's audit job takes ``model_based`` (``audit --model-based``)."""
    import dataclasses

    from ...jobs.audit import AuditRequest

    return any(f.name == "model_based" for f in dataclasses.fields(AuditRequest))


def add_option_widgets(panel) -> None:
    """The extra stages' check boxes, the explain sample and the statistics' fields, as
    attributes of ``panel`` (``representation``, ``explain``, ``model_based``,
    ``explain_n``, ``n_boot``, ``alpha``, ``min_items``, ``min_speakers``,
    ``include_missing``, ``scaling``)."""
    panel.representation = QCheckBox("Representation (silhouette, leakage)")
    panel.representation.setToolTip(
        "Embed every item with the model's encoder: silhouette of the groups and a "
        'speaker-grouped probe\'s leakage (docs/METHODS.md, "Representation")'
    )
    panel.explain = QCheckBox("Explain (saliency, grounding lift)")
    panel.explain.setToolTip(
        "Occlusion saliency on a speaker-balanced sample and the grounding lift per "
        'group (docs/METHODS.md, "Saliency grounding"); several seconds per item on a CPU'
    )
    panel.model_based = QCheckBox("Model-based (mixed Poisson of word errors)")
    panel.model_based.setToolTip(
        "Also fit the mixed-effects Poisson regression of word errors with a speaker "
        "random intercept per grouping column, and say whether it agrees with the "
        "bootstrap (issue 17; shown in Results ▸ Regression)"
    )
    panel.model_based.setVisible(supports_model_based())
    panel.reference_text = QComboBox()
    panel.reference_text.setToolTip(
        "Which reference text the audit scores: the newest version by anyone (the default, "
        "as before), the imported text, the adjudicated versions (disagreeing items without "
        "adjudication left out and listed), one annotator's versions, or resample: every "
        "bootstrap replicate draws one annotator's version per item, so the intervals include "
        'their disagreement (docs/METHODS.md, "References from several annotators")'
    )
    fill_reference_texts(panel, [])
    panel.explain_n = QSpinBox()
    panel.explain_n.setRange(1, 200)
    panel.explain_n.setValue(12)
    panel.explain_n.setSuffix(" items per group")
    panel.n_boot = QSpinBox()
    panel.n_boot.setRange(200, 20000)
    panel.n_boot.setSingleStep(200)
    panel.n_boot.setValue(2000)
    panel.alpha = QDoubleSpinBox()
    panel.alpha.setRange(0.001, 0.5)
    panel.alpha.setDecimals(3)
    panel.alpha.setSingleStep(0.01)
    panel.alpha.setValue(0.05)
    panel.min_items = QSpinBox()
    panel.min_items.setRange(1, 100000)
    panel.min_items.setValue(30)
    panel.min_speakers = QSpinBox()
    panel.min_speakers.setRange(1, 10000)
    panel.min_speakers.setValue(5)
    panel.include_missing = QCheckBox("Include missing values as a group")
    panel.include_missing.setToolTip(
        "Items with no value for a grouping column (empty, only spaces, a list) form a "
        "tested group named (missing), never the default reference. Off: they are a "
        "descriptive row (count, value, CI), not compared, and the corpus value includes "
        'them (docs/METHODS.md, "Missing values")'
    )
    panel.scaling = QCheckBox("Small-cluster scaling (speaker scheme)")
    panel.scaling.setChecked(True)
    panel.scaling.setToolTip(
        "Widen the speaker scheme's intervals by √(k/(k−1)), k = speakers on that side, "
        "which the plain speaker bootstrap needs with few speakers; the two-way scheme "
        'is not scaled (docs/METHODS.md, "Small numbers of speakers"). On by default.'
    )


def fill_reference_texts(panel, annotators) -> None:
    """The References choices: the fixed ones, then ``NAME's versions`` per annotator of the
    dataset; the current choice kept when the new dataset offers it, else ``latest``."""
    box = panel.reference_text
    old = box.currentData()
    box.blockSignals(True)
    box.clear()
    for label, value in REFERENCE_TEXTS:
        box.addItem(label, value)
    for name in annotators:
        box.addItem(f"{name}'s versions", f"annotator:{name}")
    i = box.findData(old) if old else -1
    box.setCurrentIndex(max(0, i))
    box.blockSignals(False)


def statistics_box(panel) -> tuple[QGroupBox, QFormLayout]:
    """The "Statistics" group of the panel's fields (made by :func:`add_option_widgets`)."""
    stats = QGroupBox("Statistics")
    f2 = QFormLayout(stats)
    f2.addRow("Bootstrap resamples", panel.n_boot)
    f2.addRow("Significance level α (Holm)", panel.alpha)
    f2.addRow(ITEMS_FIELD, panel.min_items)
    f2.addRow(SPEAKERS_FIELD, panel.min_speakers)
    f2.addRow("", panel.scaling)
    return stats, f2
