"""Rebuild ``wikipedia_gpus.csv`` from a voidful/gpu-info-api ``gpu.json``.

Usage: ``python -m gpuvalue.scrapers.data.build_wikipedia_extract <gpu.json> [<out.csv>]``.
The extract is shipped so the catalog needs no network; rebuilding it is a maintenance
step, run when a newer ``gpu.json`` is taken.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gpuvalue.scrapers.sources.wikipedia import EXTRACT_PATH, normalize_voidful_records, rows_to_csv

HEADER = """\
# Wikipedia GPU lists, normalised. Derived from voidful/gpu-info-api@03a6b34a8cc7b761a0b70a5956a478c76062e6ec:gpu.json (2025-06-16),
# which scrapes Wikipedia's "List of Nvidia graphics processing units" and "List of AMD graphics processing units".
# Licence: CC BY-SA 4.0; authors: Wikipedia contributors. See wikipedia_gpus.ATTRIBUTION.md.
"""


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    data = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    out = Path(argv[2]) if len(argv) == 3 else EXTRACT_PATH
    rows = normalize_voidful_records(data)
    out.write_text(HEADER + rows_to_csv(rows), encoding="utf-8")
    print(f"{len(rows)} rows -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
