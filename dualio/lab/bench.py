"""``dualio bench``: run the lab's scenarios against the reference server."""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import platform
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path

from dualio.lab import models as model_runs
from dualio.lab import report
from dualio.lab.goals import evaluate, print_goals
from dualio.lab.modes import Mode, all_modes
from dualio.lab.operations import WordCount
from dualio.lab.results import Cell, check_server, fill
from dualio.lab.sampler import PeakSampler
from dualio.lab.scenarios import (
    SCENARIOS,
    Job,
    Plan,
    blob,
    echo,
    fanout,
    native_model,
    overhead,
    throughput,
    wordcount,
)
from dualio.lab.server_process import ServerProcess, ServerProcessError
from dualio.server.limits import raise_fd_limit
from dualio_sync import Client, DualioError

_BUILDERS: dict[str, Callable[[Plan, list[Mode], list[str]], Iterator[Job]]] = {
    "throughput": throughput,
    "overhead": overhead,
    "fanout": fanout,
    "echo": echo,
    "wordcount": wordcount,
    "blob": blob,
}
BOTH_SERVER_MODELS = ("echo", "blob")


class BenchError(Exception):
    """A one-line reason the bench cannot run."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scenario", default="all",
                        help=f"comma-separated: {', '.join(SCENARIOS)}, or all")
    parser.add_argument("--modes", default="all", help="comma-separated mode names, or all")
    parser.add_argument("--quick", action="store_true", help="a run of about a minute")
    parser.add_argument("--workers", type=int, default=None,
                        help="also measure an emulated pool of W workers")
    parser.add_argument("--ns", default=None, help="fan-out sizes, e.g. 10,100,1000")
    parser.add_argument("--delay", type=float, default=None, help="fan-out server delay Y, s")
    parser.add_argument("--server-model", choices=("async", "threaded", "both"), default="both",
                        help="server model(s) for the echo and blob scenarios (others use async)")
    parser.add_argument("--host", default=None, help="use a running server instead of starting one")
    parser.add_argument("--port", type=int, default=7878)
    parser.add_argument("--out", default="results", help="folder for the results")


def _choose(args: argparse.Namespace) -> tuple[list[str], list[Mode], Plan]:
    scenarios = list(SCENARIOS) if args.scenario == "all" else args.scenario.split(",")
    unknown = [s for s in scenarios if s not in SCENARIOS]
    if unknown:
        raise BenchError(f"unknown scenario {', '.join(unknown)}; choose from {', '.join(SCENARIOS)}")
    if args.workers is not None and args.workers < 1:
        raise BenchError("--workers must be >= 1")
    modes = all_modes(args.workers)
    if args.modes != "all":
        names = args.modes.split(",")
        known = {m.name for m in modes}
        bad = [n for n in names if n not in known]
        if bad:
            raise BenchError(f"unknown mode {', '.join(bad)}; choose from {', '.join(sorted(known))}")
        modes = [m for m in modes if m.name in names]
    plan = Plan.quick() if args.quick else Plan.full()
    if args.ns is not None:
        try:
            ns = tuple(int(n) for n in args.ns.split(","))
        except ValueError:
            raise BenchError(f"--ns must be comma-separated integers, not {args.ns!r}") from None
        if any(n <= 0 for n in ns):
            raise BenchError("every N in --ns must be > 0")
        plan = dataclasses.replace(plan, fanout_ns=ns)
    if args.delay is not None:
        if not 0 <= args.delay <= 60:
            raise BenchError("--delay must be in 0..60 seconds")
        plan = dataclasses.replace(plan, fanout_delay=args.delay)
    return scenarios, modes, plan


def run(args: argparse.Namespace) -> int:
    try:
        scenarios, modes, plan = _choose(args)
    except BenchError as exc:
        print(f"dualio bench: {exc}", file=sys.stderr)
        return 2
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(args.out) / f"bench-{stamp}"
    out.mkdir(parents=True, exist_ok=True)
    cells: list[Cell] = []
    meta = {
        "command": " ".join(["dualio bench", *sys.argv[2:]]) if len(sys.argv) > 1 else "dualio bench",
        "python": platform.python_version(), "machine": platform.machine(),
        "cpus": __import__("os").cpu_count(), "quick": args.quick, "scenarios": scenarios,
    }
    raise_fd_limit()
    # SIGTERM unwinds like Ctrl-C, so the servers this run started are stopped too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    models_wanted = ["async", "threaded"] if args.server_model == "both" else [args.server_model]
    if not any(s in BOTH_SERVER_MODELS for s in scenarios) and "async" in models_wanted:
        models_wanted = ["async"]
    with ExitStack() as stack:
        servers: dict[str, ServerProcess | None] = {}
        addresses: dict[str, tuple[str, int]] = {}
        try:
            if args.host is None:
                for model in models_wanted:
                    process = stack.enter_context(ServerProcess(model))
                    servers[model] = process
                    addresses[model] = (process.host, process.port)
            else:
                models_wanted = ["external"]
                servers["external"] = None
                addresses["external"] = (args.host, args.port)
            stats = {name: stack.enter_context(Client(*address, timeout=10, connect_timeout=5))
                     for name, address in addresses.items()}
        except (ServerProcessError, DualioError) as exc:
            print(f"dualio bench: cannot reach the server: {exc}", file=sys.stderr)
            return 2
        meta["servers"] = {name: f"{h}:{p}" for name, (h, p) in addresses.items()}
        cells = _run_jobs(scenarios, modes, plan, models_wanted, addresses, stats, servers)
        if "models" in scenarios:
            main_server = models_wanted[0]
            cells += _run_models(plan, *addresses[main_server], main_server)
    goals = evaluate(cells)
    report.print_tables(cells, [s for s in SCENARIOS if s in scenarios])
    print_goals(goals)
    chart_note = report.fanout_chart(out / "fanout.png", cells) if "fanout" in scenarios else ""
    meta["goals"] = [goal.__dict__ for goal in goals]
    report.write_json(out / "results.json", cells, meta)
    (out / "results.md").write_text(report.markdown(cells, [s for s in SCENARIOS if s in scenarios]))
    if chart_note:
        print(chart_note)
    for cell in (c for c in cells if c.limited):
        print(f"limit: {cell.scenario} {cell.case} {cell.mode} ({cell.server}): {cell.limited} of "
              f"{cell.total} calls stopped: {cell.note}")
    lost = [c for c in cells if c.lost]
    chart = ", fanout.png" if "fanout" in scenarios and not chart_note else ""
    print(f"\nresults written to {out}/ (results.json, results.md{chart})")
    if lost:
        print(f"\n!!! {len(lost)} measurements LOST OR MISROUTED CALLS — see the red rows:",
              file=sys.stderr)
        for cell in lost:
            print(f"!!!   {cell.scenario} {cell.case} {cell.mode}: errors={cell.errors} "
                  f"wrong={cell.wrong} {cell.note}", file=sys.stderr)
        return 1
    return 0


def _progress(total: int) -> tuple[Callable[[str], None], Callable[[], None]]:
    try:
        from rich.progress import Progress
    except ImportError:
        count = [0]

        def step_plain(label: str) -> None:
            count[0] += 1
            print(f"[{count[0]}/{total}] {label}", file=sys.stderr, flush=True)

        return step_plain, lambda: None
    progress = Progress(transient=True)
    progress.start()
    task = progress.add_task("lab", total=total)

    def step(label: str) -> None:
        progress.update(task, description=label[:60])
        progress.advance(task)

    return step, progress.stop


def _run_jobs(
    scenarios: Sequence[str], modes: list[Mode], plan: Plan, server_models: list[str],
    addresses: dict[str, tuple[str, int]], stats: dict[str, Client],
    servers: dict[str, ServerProcess | None],
) -> list[Cell]:
    jobs = [job for name in SCENARIOS if name in _BUILDERS and name in scenarios
            for job in _BUILDERS[name](plan, modes, server_models)]
    cells: list[Cell] = []
    step, done = _progress(len(jobs))
    per_call: dict[str, float] = {}
    try:
        for job in jobs:
            cell, mode = job.cell, job.mode
            step(f"{cell.scenario} {cell.case} {mode.name} ({job.server})")
            cells.append(cell)
            if cell.skipped:
                continue
            missing = mode.missing()
            if missing:
                cell.skipped, cell.note = True, f"skipped: {missing}"
                continue
            process = servers[job.server]
            if process is not None and not process.alive:
                cell.errors, cell.note = job.work.total, "the server process died"
                continue
            if cell.scenario == "fanout" and mode.name in per_call and not cell.model_s:
                cell.model_s = native_model(cell.total, cell.delay, per_call[mode.name])
            stats_client = stats[job.server]
            try:
                before = stats_client.stats(timeout=10)
                server_cpu = None if process is None else process.cpu_seconds()
                with PeakSampler() as peak:
                    baseline = peak.rss
                    outcome = mode.run(*addresses[job.server], job.work, job.op)
                fill(cell, outcome, peak.threads, peak.rss, baseline, job.payload_bytes,
                     job.connections)
                if server_cpu is not None and outcome.latencies:
                    server_used = process.cpu_seconds()  # type: ignore[union-attr]
                    if server_used is not None:
                        cell.server_cpu_us = (server_used - server_cpu) / len(outcome.latencies) * 1e6
                check_server(cell, before, stats_client.stats(timeout=10), job.work)
                if isinstance(job.op, WordCount):
                    _check_words(cell, job.op)
            except Exception as exc:  # one failed cell must not lose the others
                cell.errors = max(cell.errors, 1)
                cell.note = f"{type(exc).__name__}: {exc}"
                if isinstance(exc, DualioError) and stats_client.closed:
                    break
            if cell.scenario == "throughput" and cell.case.startswith("concurrent") and cell.ops_per_s:
                per_call[mode.name] = 1 / cell.ops_per_s
    finally:
        done()
    return cells


def _check_words(cell: Cell, op: WordCount) -> None:
    expected = cell.total * op.count
    if not cell.errors and op.counted != expected:
        cell.errors += 1
        cell.note = f"counted {op.counted} words, expected {expected}"
    elif not cell.note:
        top = ", ".join(f"{word} {n}" for word, n in op.top[:3])
        cell.note = f"{op.counted} words; top: {top} …"


def _run_models(plan: Plan, host: str, port: int, server: str) -> list[Cell]:
    cells: list[Cell] = []
    for model in model_runs.MODELS:
        print(f"models: {model} ...", file=sys.stderr, flush=True)
        io_cell = Cell("models", "I/O-bound", model, server, plan.models_calls,
                       plan.models_calls, plan.models_delay)
        cpu_cell = Cell("models", "CPU-bound", model, server, plan.models_calls,
                        plan.models_calls, 0.0)
        cells += [cpu_cell, io_cell]
        reason = model_runs.missing(model)
        if reason:
            for cell in (cpu_cell, io_cell):
                cell.skipped, cell.note = True, f"skipped: {reason}"
            continue
        result = model_runs.measure(model, host, port, plan.models_calls, plan.models_delay)
        if "error" in result:
            for cell in (cpu_cell, io_cell):
                cell.errors, cell.note = 1, str(result["error"])
            continue
        cpu_cell.wall_s = float(result["cpu_s"])  # type: ignore[arg-type]
        io_cell.wall_s = float(result["io_s"])  # type: ignore[arg-type]
        for cell in (cpu_cell, io_cell):
            cell.ops_per_s = cell.total / cell.wall_s if cell.wall_s else None
            if not result["ok"]:
                cell.wrong = 1
                cell.note = "a result did not check out"
        if model == "sequential":
            io_cell.model_s = plan.models_calls * plan.models_delay
    return cells
