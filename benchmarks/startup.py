"""How fast the app opens: process start to the home screen drawn, headless.

    python benchmarks/startup.py [--runs N]

Each run is a fresh interpreter (`sys.executable -c ...`) that starts `ArenaApp` headless with a
temporary database path and settings file, waits until `HomeScreen` is mounted and has been
painted once, prints the wall-clock time and exits at once. The figure is that time minus the
moment just before the parent started the process, so interpreter start-up, imports, settings,
CSS and the first paint all count. The median of N runs is compared with the target. The CPU
time the child used until then (user + system) is shown too: on a busy machine the wall-clock
figure grows with the load average (printed), the CPU time hardly does.

The child also reports which heavy parts have not been loaded at that point: litellm, the
solver's word index (`engines.solver.index`), the SQLite store (`arena.store`, `sqlite3`,
`sqlite_utils`, and whether the database was opened), openskill and the match runner. None of
them is needed to show the menu; each is imported when a screen first needs it.

Run from the project's root with the project installed. Targets are for a 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 600

# module name -> what it stands for
HEAVY_MODULES = {
    "litellm": "litellm (model calls)",
    "engines.solver.index": "solver word index",
    "engines.solver": "solver",
    "arena.store": "event store module",
    "sqlite3": "sqlite3",
    "sqlite_utils": "sqlite_utils",
    "openskill": "openskill (ratings)",
    "arena.runner": "match runner",
}

CHILD = r"""
import asyncio, json, os, sys, time
from pathlib import Path

from screens.app import ArenaApp

folder = Path(sys.argv[1])
app = ArenaApp(db=folder / "arena.db", settings_file=folder / "settings.yaml")
heavy = json.loads(sys.argv[2])

async def wait_for_home(pilot):
    from screens.home import HomeScreen

    while not (isinstance(app.screen, HomeScreen) and app.screen.is_mounted):
        await asyncio.sleep(0.001)
    painted = asyncio.get_running_loop().create_future()
    app.screen.call_after_refresh(lambda: painted.set_result(time.time()))
    ready = await painted
    cpu = os.times()
    report = {
        "ready": ready,
        "cpu_ms": (cpu.user + cpu.system) * 1000,
        "loaded": {name: name in sys.modules for name in heavy},
        "store_opened": app._store is not None,
        "db_file_created": (folder / "arena.db").exists(),
    }
    print(json.dumps(report), flush=True)
    os._exit(0)

app.run(headless=True, auto_pilot=wait_for_home)
"""


def one_run(folder: Path) -> dict:
    env = dict(os.environ)
    env["ARENA_DB"] = str(folder / "arena.db")
    env["ARENA_SETTINGS"] = str(folder / "settings.yaml")
    started = time.time()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder), json.dumps(list(HEAVY_MODULES))],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    if done.returncode != 0 or not done.stdout.strip():
        raise RuntimeError(f"the app did not start: {done.stderr.decode()[-800:]}")
    report = json.loads(done.stdout.decode().strip().splitlines()[-1])
    report["ms"] = (report["ready"] - started) * 1000
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=9, help="processes to time")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        one_run(Path(tmp))  # warm the file system cache (bytecode, CSS)
        reports = [one_run(Path(tmp)) for _ in range(args.runs)]
    times = sorted(report["ms"] for report in reports)
    median = statistics.median(times)
    last = reports[-1]

    cpu = statistics.median(report["cpu_ms"] for report in reports)
    print(
        f"Python {sys.version.split()[0]}, {args.runs} processes, headless, "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    print(f"{'what':44} {'ms':>8} {'min':>8} {'max':>8} {'target':>8}  result")
    verdict = "PASS" if median <= TARGET_MS else "MISS"
    print(
        f"{'process start -> home screen painted':44} {median:8.0f} {times[0]:8.0f} "
        f"{times[-1]:8.0f} {'<= ' + str(TARGET_MS):>8}  {verdict}"
    )
    print(f"{'  CPU time of the process until then':44} {cpu:8.0f}")
    print()
    print("Not loaded when the home screen is ready (expected: all):")
    for name, label in HEAVY_MODULES.items():
        loaded = last["loaded"][name]
        print(f"  {label:28} {name:24} {'LOADED' if loaded else 'not imported'}")
    print(
        f"  {'database':28} {'Store.open':24} "
        f"{'OPENED' if last['store_opened'] or last['db_file_created'] else 'not opened'}"
    )


if __name__ == "__main__":
    main()
