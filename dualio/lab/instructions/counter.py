"""Instructions per call, counted by valgrind's callgrind: exact, whatever else the machine does.

    python -m dualio.lab.instructions [FIGURE ...] [--calls 400] [--json FILE]
    python -m dualio.lab.instructions --annotate FIGURE

Time per call on a shared 2-core machine spreads by 10-20 % between rounds; the
instructions a process executes do not depend on what else the machine does. Each
figure runs one of :mod:`dualio.lab.instructions.call_loops` on its fake peer, under
``valgrind --tool=callgrind``, four times: N calls, 2N, N, 2N. The loop reads a
marker (``os.getpgrp``) just before its first call and just after its last, and
callgrind dumps its counts at every marker (``--dump-before=os_getpgrp``), so each
loop's count has no start-up, set-up or teardown in it. ``(2N − N) / N`` twice gives
two estimates of instructions per call; they must agree within 1 % (``SPREAD``),
or the figure fails as not deterministic rather than giving a false verdict. The
process runs with ``PYTHONHASHSEED=0``, the collector off, and a switch interval
long enough that no thread is preempted on a timer.

The ``redis-*`` figures are GETs of a 16-byte value through the Redis faces, on a fake
RESP3 peer; ``python -m dualio.lab.instructions.real_redis`` counts the same calls against
a real redis-server it starts (reported, never gated).

Figures are spread over two callgrind processes run at once. ``--annotate FIGURE`` prints
the C functions that cost that figure the most instructions per call (callgrind_annotate,
self and inclusive), beside its raw loop's, sorted by the difference.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import functools
import gc
import importlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

CALLS = 400
"""N: each figure's loops run N and 2N calls (requests, for the server), twice."""
SPREAD = 0.01
"""Two estimates of one figure further apart than this are not deterministic."""
MARKER = "os_getpgrp"
"""The C function behind ``os.getpgrp``: callgrind dumps its counts when it is entered."""
PROCESSES = 2
"""Callgrind processes run at once, each with its share of the figures."""
ATTEMPTS = 3
"""Times a figure is counted before its estimates' disagreement fails it."""
COMMAND = "dualio.lab.instructions"
"""The module the measured processes run (``python -m``), with ``--child``."""


@dataclass(frozen=True)
class Figure:
    name: str
    what: str
    floor: str | None  # the raw loop beside it; None for a raw loop itself
    loop: str  # a function of dualio.lab.instructions.call_loops: (calls, *args, clock) -> per call
    args: tuple[object, ...] = ()
    deterministic: bool = True  # False: threads race for each answer; reported, never judged
    spread: float = SPREAD  # how far apart its two estimates may be
    ours: bool = True  # False: what dualio is compared with (asyncio.to_thread); reported, never judged
    seconds: float = 3.0  # about how long its loops take under callgrind (N = 400): balances the processes
    threads: bool = False  # its calls cross threads: runs after its process's figures that do not
    module: str = "dualio.lab.instructions.call_loops"  # where its loop is

    @property
    def is_floor(self) -> bool:
        return self.floor is None

    def run(self, calls: int, clock: Callable[[], float]) -> float:
        loop = getattr(importlib.import_module(self.module), self.loop)
        if inspect.iscoroutinefunction(loop):
            return float(asyncio.run(loop(calls, *self.args, clock)))
        return float(loop(calls, *self.args, clock))


FIGURES = {figure.name: figure for figure in (
    Figure("sync", "Client.echo, blocking transport", "sync-raw", "sync_dualio"),
    Figure("sync-raw", "send, poll, recv, match the id", None, "sync_raw"),
    Figure("native", "AsyncClient.echo, asyncio fast path, 1 in flight", "native-raw", "native_dualio", (1,)),
    Figure("native-raw", "asyncio Protocol, a future per call", None, "native_raw", (1,)),
    Figure("native-100", "AsyncClient.echo, asyncio fast path, 100 in flight", "native-100-raw",
           "native_dualio", (100,)),
    Figure("native-100-raw", "asyncio Protocol, 100 in flight", None, "native_raw", (100,)),
    Figure("trio-100", "AsyncClient.echo on trio, 100 in flight", "trio-100-raw", "trio_dualio", (100,),
           seconds=6),
    Figure("trio-100-raw", "hand-written trio client (a reader task, a writer task), 100 in flight",
           None, "trio_raw", (100,)),
    # A thread starts and ends per call: whether the last one has finished exiting when the
    # next starts (its stack back in the C library's cache) depends on time. Its estimates
    # spread by up to 2 % (seven runs: 0.03-2.1 %); the loops' averages by 0.5 % of their median.
    Figure("emulated-thread", "AsyncClient emulated, a thread per call", "emulated-raw",
           "emulated_dualio", ("thread",), spread=0.025, seconds=35, threads=True),
    Figure("emulated-pool", "AsyncClient emulated, one pooled worker", "emulated-raw",
           "emulated_dualio", ("pool",), seconds=20, threads=True),
    Figure("emulated-callback", "AsyncClient emulated, worker writes, reader answers", "emulated-raw",
           "emulated_dualio", ("callback",), deterministic=False, seconds=33, threads=True),
    Figure("emulated-raw", "the raw blocking call in run_in_executor", None, "emulated_raw",
           seconds=14, threads=True),
    Figure("to-thread", "asyncio.to_thread(Client.echo), one pooled worker", "emulated-raw",
           "to_thread_dualio", ours=False, seconds=15, threads=True),
    Figure("portal", "Client(transport='portal').echo", "portal-raw", "portal_dualio",
           seconds=14, threads=True),
    Figure("portal-raw", "a raw asyncio call begun by call_soon_threadsafe, a lock waited on", None,
           "portal_raw", seconds=10, threads=True),
    Figure("server-1", "reference server (async model) per request, 1 frame per read", "server-1-raw",
           "server_dualio", (1,)),
    Figure("server-1-raw", "minimal protocol-v1 server, 1 frame per read", None, "server_raw", (1,)),
    Figure("server-100", "reference server (async model) per request, 100 frames per read",
           "server-100-raw", "server_dualio", (100,)),
    Figure("server-100-raw", "minimal protocol-v1 server, 100 frames per read", None, "server_raw", (100,)),
    # Under callgrind about a millisecond passes between a GET's reply and the next GET, as long
    # as the connection waits before it reads what a silent server may have sent (the idle
    # check, IDLE_CHECK_AFTER): whether it reads first depends on time. Its estimates spread
    # by up to 0.8 % (0.0 % and 98,556 per call with no idle read at all).
    Figure("redis-sync", "dualio_sync.redis.Redis.get, blocking transport", "redis-sync-raw",
           "redis_sync_dualio"),
    Figure("redis-sync-raw", "send GET, poll, recv, read the bulk string", None, "redis_sync_raw"),
    Figure("redis-native", "dualio.redis.Redis.get, asyncio fast path, 1 in flight", "redis-native-raw",
           "redis_native_dualio", (1,)),
    Figure("redis-native-raw", "asyncio Protocol, a future per GET, answered in order", None,
           "redis_native_raw", (1,)),
    Figure("redis-native-100", "dualio.redis.Redis.get, asyncio fast path, 100 in flight",
           "redis-native-100-raw", "redis_native_dualio", (100,)),
    Figure("redis-native-100-raw", "asyncio Protocol, 100 GETs in flight", None, "redis_native_raw", (100,)),
    Figure("redis-sync-pipeline", "dualio_sync.redis.Redis.pipeline of 100 GETs, per GET", "redis-sync-raw",
           "redis_sync_pipeline_dualio"),
    Figure("redis-native-pipeline", "dualio.redis.Redis.pipeline of 100 GETs, asyncio fast path, per GET",
           "redis-native-100-raw", "redis_native_pipeline_dualio"),
)}
NAMES = tuple(FIGURES)
GATED = tuple(name for name, figure in FIGURES.items()
              if figure.deterministic and figure.ours and not figure.is_floor)
"""The figures the gate judges (and its baseline holds): dualio's own, not the raw floors,
not what dualio is compared with, not the callback emulation whose threads race for each
answer."""


class NotDeterministic(RuntimeError):
    """Two estimates of one figure disagree by more than SPREAD."""


class ValgrindMissing(RuntimeError):
    """valgrind is not on the PATH."""


# -- the measured process ------------------------------------------------------------------

def _mark() -> float:
    os.getpgrp()
    return 0.0


def child(names: list[str], calls: int, figures: Mapping[str, Figure] = FIGURES) -> None:
    """Run each figure's loops (N, 2N, N, 2N) and print, as JSON, which callgrind dump
    holds each loop: the k-th marker triggers dump k, holding what ran since marker k-1."""
    sys.setswitchinterval(100.0)  # threads switch when they block, never on a timer
    marks = 0

    def clock() -> float:
        nonlocal marks
        marks += 1
        return _mark()

    plan: dict[str, list[tuple[int, int]]] = {}
    for name in names:
        figure = figures[name]
        figure.run(2 * calls, clock)  # the loops that follow find the heap as grown as it gets
        loops = []
        for n in (calls, 2 * calls, calls, 2 * calls):
            gc.collect()
            gc.disable()
            figure.run(n, clock)
            gc.enable()
            loops.append((n, marks))  # the marker after the loop's last call
        plan[name] = loops
    _mark()  # the last loop's dump is followed by one more, so every loop's dump is numbered
    print(json.dumps(plan))


# -- the measuring process -----------------------------------------------------------------

@dataclass(frozen=True)
class Count:
    name: str
    per_call: float
    estimates: tuple[float, float]
    attempt: int = 1  # how many times it was counted before its estimates agreed

    @property
    def spread(self) -> float:
        a, b = self.estimates
        return abs(a - b) / min(a, b)


def _dump_total(path: Path) -> int:
    with path.open() as lines:
        for line in lines:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError(f"{path}: no totals line")


def valgrind() -> str:
    found = shutil.which("valgrind")
    if found is None:
        raise ValgrindMissing("valgrind is not installed (Debian: apt-get install valgrind)")
    return found


def _start(
    names: list[str], calls: int, out: Path, env: dict[str, str] | None = None, module: str = COMMAND
) -> subprocess.Popen[str]:
    """``python -m module --child names`` (a module whose main calls :func:`child`) under callgrind."""
    env = {**os.environ, **(env or {}), "PYTHONHASHSEED": "0"}
    command = [
        valgrind(), "--tool=callgrind", f"--dump-before={MARKER}", "--collect-systime=no",
        f"--callgrind-out-file={out}", "-q",
        sys.executable, "-m", module, "--child", ",".join(names), "--calls", str(calls),
    ]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _split(names: list[str]) -> list[list[str]]:
    """Figures in PROCESSES groups of about equal work: the longest first, each to the
    group with the least so far; in each group, the figures in their given order, those
    whose calls cross threads last. What ran before a loop in its process moves its count
    a little (the allocator's state), so the same figures always share a process and the
    groups never depend on the machine. After a figure with threads that state depends on
    how its threads took turns, which differs from run to run: server-1 counted 61,457
    (estimates 0.01 % apart) after figures without threads, and 61,564 and 61,622
    (0.15-0.20 % apart) after emulated-thread."""
    groups: list[list[str]] = [[] for _ in range(min(PROCESSES, len(names)))]
    loads = [0.0] * len(groups)
    for name in sorted(names, key=lambda name: -FIGURES[name].seconds):
        least = loads.index(min(loads))
        groups[least].append(name)
        loads[least] += FIGURES[name].seconds
    return [sorted(group, key=lambda name: (FIGURES[name].threads, names.index(name))) for group in groups]


def _loops(
    folder: Path, groups: list[list[str]], calls: int, env: dict[str, str] | None = None,
    module: str = COMMAND,
) -> Iterator[tuple[str, list[tuple[int, Path]]]]:
    """Run each group of figures in a callgrind process of its own, all at once; yield each
    figure's loops as (calls, the dump that counted them)."""
    started = [(group, folder / f"callgrind.{i}") for i, group in enumerate(groups)]
    procs = [_start(group, calls, out, env, module) for group, out in started]
    for (group, out), proc in zip(started, procs, strict=True):
        stdout, stderr = proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"callgrind run of {group} failed ({proc.returncode}):\n{stderr[-3000:]}")
        plan: dict[str, list[list[int]]] = json.loads(stdout.strip().splitlines()[-1])
        for name, loops in plan.items():
            yield name, [(n, Path(f"{out}.{dump}")) for n, dump in loops]


def _compile_first() -> None:
    """Byte-compile the project before it runs under callgrind: on a fresh clone the
    measured processes would otherwise compile every module, 50 times slower there."""
    root = Path(__file__).resolve().parents[3]
    for package in ("dualio", "dualio_sync", "transports"):
        compileall.compile_dir(root / package, quiet=2)


def run(names: list[str], calls: int = CALLS, *, env: dict[str, str] | None = None) -> dict[str, Count]:
    """Instructions per call of each named figure; ``env`` is added to the measured
    processes' environment.

    A figure whose two estimates disagree is counted again, with the figures it shares a
    process with, up to ATTEMPTS times in all. Where a figure's threads hand work to each
    other, which one runs after a blocking system call depends on time: now and then one
    loop takes the slower hand-off more often than the loop beside it. Counted again, it
    agrees."""
    counts: dict[str, Count] = {}
    _compile_first()
    groups = _split(names)
    noisy: dict[str, NotDeterministic] = {}
    for attempt in range(1, ATTEMPTS + 1):
        noisy = {}
        with tempfile.TemporaryDirectory(prefix="dualio-callgrind-") as scratch:
            for name, loops in _loops(Path(scratch), groups, calls, env):
                if name in counts:
                    continue
                totals = [(n, _dump_total(dump)) for n, dump in loops]
                try:
                    figure = FIGURES[name]
                    counts[name] = count(name, totals, check=figure.deterministic, attempt=attempt,
                                         spread=figure.spread)
                except NotDeterministic as exc:
                    noisy[name] = exc
        if not noisy:
            return {name: counts[name] for name in names}
        groups = [group for group in groups if any(name in noisy for name in group)]
    raise next(iter(noisy.values()))


def count(
    name: str, totals: list[tuple[int, int]], *, check: bool = True, attempt: int = 1, spread: float = SPREAD
) -> Count:
    """Instructions per call from four loops' totals (N, 2N, N, 2N calls): two estimates,
    which ``check`` wants within ``spread`` of each other."""
    (n1, a), (n2, b), (n3, c), (n4, d) = totals
    estimates = ((b - a) / (n2 - n1), (d - c) / (n4 - n3))
    result = Count(name, sum(estimates) / 2, estimates, attempt)
    if check and result.spread > spread:
        counted = f"counted {attempt} times, the last " if attempt > 1 else ""
        raise NotDeterministic(
            f"{name}: {counted}two runs gave {estimates[0]:,.0f} and {estimates[1]:,.0f} instructions "
            f"per call ({result.spread:.1%} apart, more than {spread:.1%}): something "
            "non-deterministic runs in the loop (a timer, hashing, the collector, threads)"
        )
    return result


def table(counts: dict[str, Count], figures: Mapping[str, Figure] = FIGURES) -> str:
    lines = [f"{'figure':<20} {'instr/call':>11} {'raw floor':>10} {'× raw':>6} {'spread':>7}  what"]
    for name, count in counts.items():
        figure = figures[name]
        floor = counts.get(figure.floor) if figure.floor else None
        raw = f"{floor.per_call:>10,.0f}" if floor else f"{'':>10}"
        ratio = f"{count.per_call / floor.per_call:>6.2f}" if floor else f"{'':>6}"
        what = figure.what if count.attempt == 1 else f"{figure.what} (counted {count.attempt} times)"
        lines.append(f"{name:<20} {count.per_call:>11,.0f} {raw} {ratio} {count.spread:>7.2%}  {what}")
    return "\n".join(lines)


# -- where the instructions go ---------------------------------------------------------------

_FUNCTION = re.compile(r"^\s*([\d,]+)\s+(?:\([\s\d.]+%\)\s+)?(.+?)(?:\s+\[.*\])?$")


def _functions(dump: Path, inclusive: bool) -> dict[str, int]:
    """Each C function's instructions in one dump, self or inclusive. A function on the
    stack when the dump was taken (``main`` down to the marker's caller, the interpreter's
    ``_PyEval_EvalFrameDefault`` among them) shows the whole dump's total: left out, and in
    the self view with all its recursion levels (``name'2``), whose self counts it shares."""
    annotate = shutil.which("callgrind_annotate")
    if annotate is None:
        raise ValgrindMissing("callgrind_annotate is not installed (it comes with valgrind)")
    text = subprocess.run(
        [annotate, f"--inclusive={'yes' if inclusive else 'no'}", "--threshold=100", "--auto=no", str(dump)],
        capture_output=True, text=True, check=True,
    ).stdout
    total = _dump_total(dump)
    costs: dict[str, int] = {}
    on_stack: set[str] = set()
    for line in text.split("file:function", 1)[1].splitlines():
        match = _FUNCTION.match(line)
        if match is None:
            continue
        cost = int(match.group(1).replace(",", ""))
        function = match.group(2).rsplit(":", 1)[-1]
        if not inclusive:
            function = function.split("'", 1)[0]
        if cost >= total:
            on_stack.add(function)
        else:
            costs[function] = costs.get(function, 0) + cost
    return {function: cost for function, cost in costs.items() if function not in on_stack}


def _switch(switches: Iterator[Callable[[], None]]) -> float:
    next(switches)()
    return 0.0


def python_calls(name: str, calls: int = CALLS) -> dict[str, float]:
    """Python-level function calls per call of a figure's loop (cProfile's exact call counts,
    2N − N, of the thread that runs the loop): which Python code the instructions pay for."""
    import cProfile
    import pstats

    figure = FIGURES[name]
    counted: list[dict[str, int]] = []
    for n in (calls, 2 * calls):
        profile = cProfile.Profile()
        switches = iter((profile.enable, profile.disable))
        figure.run(n, functools.partial(_switch, switches))
        stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
        counted.append({f"{Path(file).name}:{line}({fn})" if line else fn: entry[1]
                        for (file, line, fn), entry in stats.items()})
    short, long = counted
    return {fn: (long.get(fn, 0) - short.get(fn, 0)) / calls for fn in set(short) | set(long)}


def annotate(name: str, calls: int = CALLS, top: int = 20) -> str:
    """Where one figure's instructions go: C functions per call, self and inclusive, beside
    its raw loop's, sorted by the difference; then its Python-level calls per call."""
    floor = FIGURES[name].floor
    costs: dict[tuple[str, bool], dict[str, float]] = {}
    totals: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="dualio-callgrind-") as scratch:
        groups = [[name]] if floor is None else [[name], [floor]]
        for each, loops in _loops(Path(scratch), groups, calls):
            (n1, short), (n2, long) = loops[:2]
            totals[each] = (_dump_total(long) - _dump_total(short)) / (n2 - n1)
            for inclusive in (False, True):
                a, b = _functions(short, inclusive), _functions(long, inclusive)
                costs[each, inclusive] = {fn: (b.get(fn, 0) - a.get(fn, 0)) / (n2 - n1)
                                          for fn in set(a) | set(b)}
    lines = [f"{name}: {totals[name]:,.0f} instructions per call"
             + (f", {floor}: {totals[floor]:,.0f}" if floor else "")]
    for inclusive in (False, True):
        mine = costs[name, inclusive]
        raw = costs[floor, inclusive] if floor else {}
        rows = sorted(set(mine) | set(raw), key=lambda fn: mine.get(fn, 0) - raw.get(fn, 0), reverse=True)
        kind = "inclusive (the function and what it calls)" if inclusive else "self (the function alone)"
        lines += ["", f"{kind}, per call, top {top} by {name} − {floor or 'nothing'}:",
                  f"{name:>12} {floor or '':>14} {'difference':>11}  function"]
        for fn in rows[:top]:
            lines.append(f"{mine.get(fn, 0):>12,.0f} {raw.get(fn, 0):>14,.0f} "
                         f"{mine.get(fn, 0) - raw.get(fn, 0):>11,.0f}  {fn}")
    called = {fn: count for fn, count in python_calls(name, calls).items() if count >= 0.5}
    lines.append("")
    lines.append(f"Python-level calls per call of {name} (cProfile's call counts, the loop's thread): "
                 f"{sum(called.values()):,.0f}")
    for fn, count in sorted(called.items(), key=lambda item: (-item[1], item[0])):
        lines.append(f"{count:>8.1f}  {fn}")
    return "\n".join(lines)


# -- the gate ---------------------------------------------------------------------------

TOLERANCE = 0.03
"""A judged figure more than this above its baseline fails the gate; more than this
below it asks for the baseline to be ratcheted down."""


def baseline_key() -> str:
    """Baselines are kept per implementation and Python version: ``cpython-3.11``."""
    return f"{sys.implementation.name}-{sys.version_info.major}.{sys.version_info.minor}"


def read_baseline(path: Path) -> dict[str, float] | None:
    """The running Python's baseline figures in ``path``, or None if it has none."""
    if not path.exists():
        return None
    entry = json.loads(path.read_text()).get(baseline_key())
    return None if entry is None else {name: float(value) for name, value in entry["figures"].items()}


def write_baseline(path: Path, counts: dict[str, Count], calls: int) -> None:
    """Set the running Python's entry in ``path``, keeping the other Pythons' entries."""
    kept = json.loads(path.read_text()) if path.exists() else {}
    kept[baseline_key()] = {
        "python": sys.version.split()[0],
        "calls": calls,
        "figures": {name: round(count.per_call) for name, count in counts.items()},
    }
    path.write_text(json.dumps(dict(sorted(kept.items())), indent=2) + "\n")


@dataclass(frozen=True)
class Verdict:
    report: str
    regressed: list[str]  # judged figures more than TOLERANCE above the baseline
    improved: list[str]  # judged figures more than TOLERANCE below it


def judge(baseline: dict[str, float], counts: dict[str, Count]) -> Verdict:
    """Every figure beside its baseline. Judged: dualio's deterministic figures; the raw
    floors and the racing callback emulation are shown, never judged."""
    lines = [f"{'figure':<20} {'baseline':>10} {'now':>10} {'change':>8}  verdict"]
    regressed, improved = [], []
    for name, count in counts.items():
        figure = FIGURES[name]
        was = baseline.get(name)
        judged = not figure.is_floor and figure.deterministic and was is not None
        change = "" if was is None else f"{count.per_call / was - 1:>+8.1%}"
        verdict = "not judged" if not judged else "ok"
        if judged and was is not None:
            if count.per_call > was * (1 + TOLERANCE):
                verdict = f"REGRESSED (more than {TOLERANCE:.0%} above the baseline)"
                regressed.append(name)
            elif count.per_call < was * (1 - TOLERANCE):
                verdict = "faster: ratchet the baseline (make perf-baseline)"
                improved.append(name)
        baseline_text = "" if was is None else f"{was:,.0f}"
        lines.append(f"{name:<20} {baseline_text:>10} {count.per_call:>10,.0f} {change:>8}  {verdict}")
    return Verdict("\n".join(lines), regressed, improved)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dualio.lab.instructions",
        description="instructions per call, counted by callgrind, on fake peers",
    )
    parser.add_argument("figures", nargs="*", metavar="FIGURE",
                        help=f"any of {', '.join(NAMES)} (default: all)")
    parser.add_argument("--calls", type=int, default=CALLS, help="N: each loop runs N and 2N calls, twice")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--write-baseline", type=Path, metavar="FILE",
                        help="set this Python's entry of a baseline file (tests/perf/instructions.json)")
    parser.add_argument("--annotate", metavar="FIGURE", help="where one figure's instructions go")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.calls < 100 or args.calls % 100:
        parser.error("--calls must be a multiple of 100 (the 100-in-flight figures)")
    asked = [*args.figures, *([args.annotate] if args.annotate else [])]
    unknown = [name for name in asked if name not in NAMES]
    if unknown:
        parser.error(f"unknown figure {unknown[0]!r}: choose from {', '.join(NAMES)}")
    if args.write_baseline and (args.figures or args.annotate):
        parser.error("--write-baseline measures the gate's figures: name none")
    if args.child:
        child(args.child.split(","), args.calls)
        return 0
    try:
        if args.annotate:
            print(annotate(args.annotate, args.calls))
            return 0
        default = GATED if args.write_baseline else NAMES
        counts = run(list(args.figures or default), args.calls)
    except (ValgrindMissing, NotDeterministic) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"instructions per call (callgrind; (2N − N) / N with N = {args.calls}, twice; "
          f"{sys.implementation.name} {sys.version.split()[0]})")
    print(table(counts))
    if args.json:
        args.json.write_text(json.dumps({name: c.per_call for name, c in counts.items()}, indent=2) + "\n")
    if args.write_baseline:
        write_baseline(args.write_baseline, counts, args.calls)
        print(f"wrote {baseline_key()} to {args.write_baseline}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
