"""The Record tab: record new speakers prompt by prompt (input level, speaker form, quota per
group), accept takes into a dataset, and its offscreen screenshot.
"""
