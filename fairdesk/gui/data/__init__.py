"""The Datasets tab: open a project or the demo, browse datasets and their items, the
folders their audio is read from, and the import dialog (every format of ``fairdesk import``).
"""
