"""Start-up cost: ``agi --help`` against a bare ``python -c "import click"``, as whole processes.

Each run starts one process of each, in turn (the order alternates from run to run), so both
see the same machine load; a run's ratio is agi's time over the baseline's in that run. Prints
the medians and the median ratio (goal: at most 2×), of wall time and of CPU time (user +
system of the process: steadier than wall time on a shared machine). ``agi --help`` runs what
the ``agi`` console script runs (``from agi_core.cli.main import main; main()``) with this
interpreter and environment, so installed entry-point plugins load as they would for a user
(``AGI_LOAD_PLUGINS=""`` leaves them out).

Bytecode is cached for both, as for an installed package: ``PYTHONDONTWRITEBYTECODE`` is
dropped and ``PYTHONPYCACHEPREFIX`` points at a temporary folder that the warm-up runs fill.
``--from-source`` measures a checkout that writes no bytecode instead (``PYTHONDONTWRITEBYTECODE=1``,
as this project's development environment sets): agi-core is compiled on every run, click is not.

Usage::

    python benchmarks/startup.py [--runs 20] [--from-source] [--json]
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

AGI_HELP = [sys.executable, "-c", "import sys; from agi_core.cli.main import main; sys.exit(main())", "--help"]
IMPORT_CLICK = [sys.executable, "-c", "import click"]


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one process, start to exit (it must succeed)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited with {process.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def measure(runs: int, *, from_source: bool = False) -> dict[str, float | int | str]:
    """Medians of ``runs`` paired runs, after one unmeasured warm-up of each (bytecode, the file cache)."""
    with tempfile.TemporaryDirectory(prefix="agi-startup-") as cache:
        env = dict(os.environ)
        if from_source:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = cache
        timed(AGI_HELP, env), timed(IMPORT_CLICK, env)
        agi: list[tuple[float, float]] = []
        click: list[tuple[float, float]] = []
        for run in range(runs):
            if run % 2:
                click.append(timed(IMPORT_CLICK, env))
                agi.append(timed(AGI_HELP, env))
            else:
                agi.append(timed(AGI_HELP, env))
                click.append(timed(IMPORT_CLICK, env))
    result: dict[str, float | int | str] = {"runs": runs, "bytecode": "none" if from_source else "cached"}
    for index, kind in enumerate(("wall", "cpu")):
        result[f"agi_help_{kind}_median_s"] = round(statistics.median(a[index] for a in agi), 4)
        result[f"import_click_{kind}_median_s"] = round(statistics.median(c[index] for c in click), 4)
        ratios = [a[index] / c[index] for a, c in zip(agi, click, strict=True) if c[index] > 0]
        result[f"{kind}_ratio_median"] = round(statistics.median(ratios), 2) if ratios else 0.0
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20, help="paired runs (default 20)")
    parser.add_argument("--from-source", action="store_true", help="write no bytecode: agi-core compiles every run")
    parser.add_argument("--json", action="store_true", help="print exactly one JSON object")
    args = parser.parse_args(argv)
    result = measure(args.runs, from_source=args.from_source)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"start-up, whole processes, {args.runs} paired runs, bytecode {result['bytecode']} (goal: ratio <= 2)")
    for kind in ("wall", "cpu"):
        print(
            f"  {kind:4}: agi --help {result[f'agi_help_{kind}_median_s']} s, "
            f"python -c 'import click' (baseline) {result[f'import_click_{kind}_median_s']} s, "
            f"ratio {result[f'{kind}_ratio_median']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
