"""evbench-scan's version is evbench's, written in one place: the project()
line of the top-level CMakeLists.txt. The install copies it into
_version.py beside this file (cmake/EvbenchInstall.cmake); in the source tree
it is read from CMakeLists.txt."""
import os
import re


def version():
    try:
        from ._version import VERSION
        return VERSION
    except ImportError:
        pass
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "CMakeLists.txt")
    try:
        with open(top) as f:
            match = re.search(r"^project\(evbench\s+VERSION\s+([0-9][0-9.]*)", f.read(), re.M)
    except OSError:
        match = None
    return match.group(1) if match else "unknown"
