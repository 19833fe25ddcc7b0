"""What a web test needs before it can run. Each returns why it cannot (the
test prints "skipped: <why>" and exits 77), or None."""
import os
import shutil


def no_web_build(path):
    """`path`, a file the web build makes, is missing."""
    if os.path.exists(path):
        return None
    return f"no web build ({path}); scripts/web.sh --build-only makes one"


def no_program(program, what):
    """`program` (node, chromium) is not on PATH."""
    return None if shutil.which(program) else f"no {what}"


def skip(*reasons):
    """The first reason among `reasons` printed as a skip: 77, else None (run the test)."""
    for why in reasons:
        if why:
            print(f"skipped: {why}")
            return 77
    return None
