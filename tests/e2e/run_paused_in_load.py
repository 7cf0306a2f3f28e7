"""`gpuvalue run`, paused once right after the first source's load committed, for the kill test.

Run as ``python tests/e2e/run_paused_in_load.py MARKER SECONDS <gpuvalue arguments>``: it writes its
process id to MARKER at that point, then sleeps SECONDS, so that a test can SIGKILL a real run at a
known point of its load. The pause wraps the load stage's per-source store from outside; the
product carries no hook for it.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path


def main() -> None:
    marker, seconds, argv = Path(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]
    from gpuvalue.flows import stages

    store = stages._store
    paused: list[bool] = []

    def store_then_pause(*args, **kwargs):
        rows = store(*args, **kwargs)
        if not paused:
            paused.append(True)
            marker.write_text(str(os.getpid()), encoding="utf-8")
            time.sleep(seconds)
        return rows

    stages._store = store_then_pause
    from gpuvalue.flows.cli import main as cli_main

    sys.argv = ["gpuvalue", *argv]
    cli_main()


if __name__ == "__main__":
    main()
