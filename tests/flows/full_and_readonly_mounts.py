"""Runs gpuvalue commands against a warehouse on a small tmpfs that is full, then read-only, and
prints what each said as JSON: started by tests/flows/test_environment_failures.py inside
``unshare -rm`` (a mount namespace of its own, so the mounts vanish with it, no root needed).

    python full_and_readonly_mounts.py MOUNT_POINT DB CSV
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path


def gpuvalue(*args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "gpuvalue.flows.cli", *args], capture_output=True, text=True,
                          timeout=300)
    return {"args": list(args), "code": done.returncode, "stdout": done.stdout, "stderr": done.stderr}


def main() -> None:
    mount, source_db, csv = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    size = source_db.stat().st_size
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size + 4 * 1024 * 1024}", "tmpfs", str(mount)], check=True)
    db = mount / "gpuvalue.duckdb"
    shutil.copy(source_db, db)
    results = {"before": db.read_bytes() == source_db.read_bytes()}
    filler = mount / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)  # fill the disk to its last byte, unbuffered
    for chunk in (65536, 1):
        try:
            while True:
                os.write(fd, b"\0" * chunk)
        except OSError:
            pass
    os.close(fd)
    full = []
    full.append(gpuvalue("import", "listings", csv, "--source", "full", "--db", str(db)))
    full.append(gpuvalue("rematch", "--db", str(db)))
    full.append(gpuvalue("run", "--replay", "--db", str(db)))
    full.append(gpuvalue("backup", "--db", str(db), "--out", str(mount / "bk")))
    results["full"] = full
    results["full_left"] = sorted(p.name for p in mount.iterdir())
    filler.unlink()
    results["after_full"] = gpuvalue("check", "--db", str(db))
    results["after_full_same"] = db.read_bytes() == source_db.read_bytes()
    subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
    readonly = []
    readonly.append(gpuvalue("import", "listings", csv, "--source", "ro", "--db", str(db)))
    readonly.append(gpuvalue("rematch", "--db", str(db)))
    readonly.append(gpuvalue("run", "--replay", "--db", str(db)))
    readonly.append(gpuvalue("backup", "--db", str(db), "--out", str(mount / "bk")))
    readonly.append(gpuvalue("run", "--replay", "--db", str(mount / "new" / "gpuvalue.duckdb")))
    results["readonly"] = readonly
    results["readonly_left"] = sorted(p.name for p in mount.iterdir())
    results["after_readonly"] = gpuvalue("check", "--db", str(db))
    results["after_readonly_same"] = db.read_bytes() == source_db.read_bytes()
    print(json.dumps(results))


if __name__ == "__main__":
    os.environ.pop("PREFECT_API_URL", None)
    main()
