"""The Items tab: a run's items ranked worst first, and for the selected one its aligned
reference and hypothesis, player, saliency overlay, pitfall flags and every system's
prediction; the item table's columns (shared with the Datasets view).
"""
