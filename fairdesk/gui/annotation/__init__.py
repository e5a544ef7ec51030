"""Editing a transcript: the tone-mark palette editor, the annotation panel that saves an
item's reference per annotator, and the annotator's name field (used by the Items view, the
Datasets view and the Record tab).
"""
