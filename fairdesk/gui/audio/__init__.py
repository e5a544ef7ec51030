"""Listening and audio devices: the player (waveform envelope, the word strip and saliency
overlays, click a word to hear it), the decoded-audio cache and prefetch behind it, and the
pickers of the input and output devices shared by every player and the Record tab.
"""
