"""The Audit tab: choose the model, datasets, filters and statistics settings, start a run,
see a refusal by the minimums, and the table of the project's stored runs.
"""
