"""Widgets and styles that every part of the window shares: the colours and fonts
(:mod:`.theme`), a scroll area that fits small screens (:mod:`.fit_scroll`), a tab page built
when first shown (:mod:`.lazy_tab`), a sorting, filtering table model over a DataFrame
(:mod:`.table_model`) and a layout of one to three columns (:mod:`.card_columns`).

They import nothing else of :mod:`fairdesk.gui`.
"""
