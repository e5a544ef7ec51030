"""Reports and exports of finished runs: HTML/PDF reports, charts, tables, Praat and ELAN.

Nothing here imports Qt; matplotlib draws with its Agg/SVG backends. Entry points (what the
CLI and the GUI call):

- :func:`fairdesk.reports.html.write_report` (HTML, optional PDF and figures) and
  :func:`fairdesk.reports.html.build_report` (the HTML text);
- :func:`fairdesk.reports.charts.report_charts` / :func:`~fairdesk.reports.charts.save_chart`
  / :func:`~fairdesk.reports.charts.save_figures` (PNG and SVG of each chart);
- :mod:`fairdesk.reports.tables` (CSV/Parquet of items, groups, comparisons; the odds-ratio
  table of ``fairdesk regress``);
- :mod:`fairdesk.reports.praat` and :mod:`fairdesk.reports.elan` (TextGrid and EAF export,
  and the import of corrected transcripts back as annotations).
"""
