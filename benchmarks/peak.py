"""The peak resident memory of this process, for the benchmarks that print one."""

from __future__ import annotations

import resource
from pathlib import Path


def peak_mb() -> float:
    """This process's peak resident memory in MB. VmHWM, not ru_maxrss: the latter survives exec,
    so a child started from a big benchmark would report its parent's peak."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
