"""The Results tab: a run's header, verdict cards, group charts and radar, the comparisons,
confusion matrices, word positions and phone confusions, systems, the recording plan of an
underpowered comparison, and the regression and model-based tabs.
"""
