"""Field recording: prompt lists, recording sessions, the crash-safe recorder and the signal
processing its views draw (envelope, spectrogram).

sounddevice is imported only when a device is opened.
"""
