# PyInstaller runtime hook (runs before fairdesk): libraries that the Python wrappers look up
# with ctypes.util.find_library (sounddevice's PortAudio) are found in the bundle first, so
# the bundle works on a system without them. Only Windows gets this from PyInstaller itself.
import ctypes.util
import glob
import os
import sys

_system_find_library = ctypes.util.find_library
_BUNDLED = ("portaudio",)


def _bundle_first(name):
    if name in _BUNDLED:
        hits = sorted(glob.glob(os.path.join(sys._MEIPASS, f"lib{name}.so*")))
        if hits:
            return hits[0]
    return _system_find_library(name)


ctypes.util.find_library = _bundle_first
