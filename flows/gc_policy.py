"""How often gpuvalue's processes (a command, and the Prefect server a run starts) collect garbage.

Python collects its youngest generation every 700 new objects. A run allocates millions (parsed
pages, records, Prefect's task runs) and frees nearly all of them by reference counting, so the
collector's passes find little: a replay run made 1,270 of them, 1.9-2.1 s of its time, and the
Prefect server's imports 658 more. Every 20,000 objects they are 35 passes and 0.75 s in the run,
for about 10 MB more at the peak, and 22 passes in the server's imports, which take 5.2-6.2 s
instead of 6.3-7.0 s.
"""

from __future__ import annotations

import gc

GC_FIRST_THRESHOLD = 20_000
GC_OLDER_THRESHOLDS = (20, 20)  # passes of one generation before the next older one is collected


def collect_garbage_less_often() -> None:
    gc.set_threshold(GC_FIRST_THRESHOLD, *GC_OLDER_THRESHOLDS)
