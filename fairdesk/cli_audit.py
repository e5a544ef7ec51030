"""Sub-commands of the audit pipeline (filled as the pipeline lands)."""


def add_commands(sub):
    return None
