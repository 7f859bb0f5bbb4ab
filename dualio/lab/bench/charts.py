"""The lab's charts as PNG files: fan-out, throughput, word count and blob.

Every mode keeps one style (colour, marker, line) in every chart of every run,
so a mode is recognised at a glance across charts and across runs.
"""

from __future__ import annotations

import json
import math
import sys
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from dualio.lab.bench import redis_scenario, summary
from dualio.lab.bench.modes import all_modes
from dualio.lab.bench.results import Cell

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.legend import Legend

LineStyle: TypeAlias = Literal["-", "-."] | tuple[float, tuple[float, ...]]

BLOCKING: LineStyle = "-"  # sync and threads
EMULATED: LineStyle = (0, (6, 1.5))
NATIVE: LineStyle = (0, (1.5, 1.2))
PEER: LineStyle = "-."  # what a user might reach for instead of dualio


@dataclass(frozen=True)
class Style:
    colour: str
    marker: str
    line: LineStyle
    fill: str = "full"  # "none": a peer's larger hollow marker, drawn on top; "left", "top": half

    @property
    def hollow(self) -> bool:
        return self.fill == "none"

    def marker_options(self) -> dict[str, Any]:
        """Keyword arguments for a matplotlib line's markers in this style."""
        if self.hollow:
            return {"marker": self.marker, "markersize": 10, "markerfacecolor": "none",
                    "markeredgewidth": 1.6, "markeredgecolor": self.colour}
        return {"marker": self.marker, "markersize": 6.5 if self.fill == "full" else 8.5,
                "fillstyle": self.fill, "markerfacecolor": self.colour,
                "markerfacecoloralt": "white", "markeredgewidth": 0.8 if self.fill == "full" else 1.2,
                "markeredgecolor": self.colour}

    @property
    def hatch(self) -> str | None:
        return {"full": None, "none": "///"}.get(self.fill, "..")


# The modes of dualio.lab.bench.modes.all_modes, in its order. Peers are hollow and dash-dot, so
# where a dualio mode coincides with one (emulated-pool with asyncio.to_thread: the same
# executor), the filled marker shows inside the hollow one and the line between its dashes.
STYLES: dict[str, Style] = {
    "sync": Style("#1f77b4", "P", BLOCKING),
    "threads": Style("#17becf", "D", BLOCKING),
    "sync-shared": Style("#9edae5", "+", BLOCKING),
    "portal": Style("#393b79", "H", BLOCKING),
    "portal-threads": Style("#637939", "8", BLOCKING),
    "anyio-portal": Style("#6b6ecf", "3", PEER, fill="none"),
    "anyio-portal-threads": Style("#8ca252", "4", PEER, fill="none"),
    "synchronicity": Style("#843c39", "1", PEER, fill="none"),
    "synchronicity-threads": Style("#ad494a", "2", PEER, fill="none"),
    "emulated-pool": Style("#d62728", "o", EMULATED),
    "emulated-thread": Style("#ff7f0e", "^", EMULATED),
    "emulated-callback": Style("#bcbd22", "v", EMULATED),
    "native-asyncio": Style("#2ca02c", "p", NATIVE),
    "native-uvloop": Style("#0b5d1e", "h", NATIVE),
    "native-asyncio-eager": Style("#98df8a", "$e$", NATIVE),
    "native-anyio": Style("#9467bd", "<", NATIVE),
    "native-trio": Style("#e377c2", ">", NATIVE),
    "asyncio.to_thread": Style("#000000", "s", PEER, fill="none"),
    "anyio.to_thread": Style("#8c564b", "d", PEER, fill="none"),
    "asyncio-protocol": Style("#7f7f7f", "*", PEER, fill="none"),
    "trio-peer": Style("#f7b6d2", "x", PEER, fill="none"),
    "raw-socket": Style("#5254a3", "X", PEER, fill="none"),
}

# The Redis scenario's peers (dualio.lab.bench.redis_clients); its dualio modes have their
# styles above.
REDIS_PEER_STYLES: dict[str, Style] = {
    "redis-py": Style("#a50f15", "s", PEER, fill="none"),
    "redis-py-asyncio": Style("#fb6a4a", "d", PEER, fill="none"),
    "glide-sync": Style("#08519c", "^", PEER, fill="none"),
    "glide-async": Style("#6baed6", "v", PEER, fill="none"),
    "coredis": Style("#54278f", "o", PEER, fill="none"),
    "redis-py+emulated-pool": Style("#e7969c", "8", PEER, fill="none"),
    "redis-py+emulated-thread": Style("#fdae6b", "<", PEER, fill="none"),
    "redis-py+asyncio.to_thread": Style("#000000", "D", PEER, fill="none"),
    "raw-resp": Style("#5254a3", "X", PEER, fill="none"),
}
# Modes not named above (``emulated-pool-w50``, or a mode added later): colours no known mode
# has, and half-filled markers, which no known mode has.
FALLBACK_COLOURS = ("#e6ab02", "#c51b7d", "#08306b", "#fb8072", "#01665e")
FALLBACK_MARKERS = ("o", "s", "D", "^", "v", "<", ">", "p", "h", "H", "8", "d")
FALLBACK_FILLS = ("left", "top")
FALLBACK_LINES: tuple[LineStyle, ...] = (BLOCKING, EMULATED, NATIVE, (0, (4, 1.5, 1, 1.5, 1, 1.5)))


def style(mode: str) -> Style:
    """The mode's style; a name not in STYLES (``emulated-pool-w50``) gets one from its CRC-32."""
    known = STYLES.get(mode) or REDIS_PEER_STYLES.get(mode)
    if known is not None:
        return known
    code = zlib.crc32(mode.encode())
    return Style(FALLBACK_COLOURS[code % len(FALLBACK_COLOURS)],
                 FALLBACK_MARKERS[(code >> 8) % len(FALLBACK_MARKERS)],
                 FALLBACK_LINES[(code >> 16) % len(FALLBACK_LINES)],
                 FALLBACK_FILLS[(code >> 24) % len(FALLBACK_FILLS)])


POOL_MODEL = "model: ceil(N/W)·Y"
NATIVE_MODEL = "model: Y + N·c"
THREAD_MODEL = "model: F + N·c"
SEQUENTIAL_MODEL = "model: N·Y"
MODEL_LINES: dict[str, LineStyle] = {
    POOL_MODEL: (0, (8, 4)),
    NATIVE_MODEL: (0, (3, 3)),
    THREAD_MODEL: (0, (1, 2)),
    SEQUENTIAL_MODEL: (0, (8, 3, 1.5, 3)),
}
POOL_MODES = ("emulated-pool", "asyncio.to_thread", "anyio.to_thread")
FAMILIES = {mode.name: mode.family for mode in all_modes()}


def model_kind(mode: str) -> str:
    """Which model the lab gives a mode's fan-out cells (dualio.lab.bench.scenarios, bench)."""
    family = FAMILIES.get(mode)
    if family == "sync":
        return SEQUENTIAL_MODEL
    if mode in POOL_MODES or mode.startswith("emulated-pool-w"):
        return POOL_MODEL
    if family == "threads":
        return THREAD_MODEL
    return NATIVE_MODEL


def interval(cell: Cell, key: str) -> tuple[float, float] | None:
    """The (low, high) of ``key`` across a cell's rounds, if the run measured more than one."""
    found = cell.interval.get(key)
    if not found or cell.rounds == 1:
        return None
    low, high = found
    return float(low), float(high)


def spread_label(cells: Sequence[Cell]) -> str:
    """What the error bars show, e.g. "bar: range (lowest to highest) of 3 rounds"."""
    rounds = max((c.rounds or 0 for c in cells), default=0)
    if not rounds:
        return "bar: spread across rounds"
    return f"bar: {summary.method(rounds)} of {rounds} rounds"


def _value(cell: Cell, key: str) -> float | None:
    value = getattr(cell, key)
    if cell.skipped or cell.lost or not isinstance(value, (int, float)) or value <= 0:
        return None
    return float(value)


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _line(axes: Axes, mode: str, xs: Sequence[float], ys: Sequence[float], label: str | None) -> None:
    look = style(mode)
    axes.plot(xs, ys, color=look.colour, linestyle=look.line, linewidth=1.8, alpha=0.9,
              zorder=4 if look.hollow else 3, label=label, **look.marker_options())


def _error_bars(axes: Axes, mode: str, cells: Sequence[Cell], x_key: str, key: str) -> bool:
    points = [(float(getattr(c, x_key)), float(getattr(c, key)), found) for c in cells
              if (found := interval(c, key)) is not None]
    if not points:
        return False
    below = [max(0.0, y - min(low, y)) for _, y, (low, _) in points]
    above = [max(0.0, max(high, y) - y) for _, y, (_, high) in points]
    axes.errorbar([x for x, _, _ in points], [y for _, y, _ in points], yerr=[below, above],
                  fmt="none", ecolor=style(mode).colour, elinewidth=1.2, capsize=4, alpha=0.8,
                  zorder=5)
    return True


def _not_measured_marks(axes: Axes, cells: Sequence[Cell]) -> int:
    """An × at the top of the axes, in the mode's colour, per skipped cell; a ! per failed one.

    Returns how many marks the fullest column stacks."""
    stacks: dict[int, int] = {}
    rightmost = max(c.total for c in cells)
    for cell in cells:
        if not (cell.skipped or cell.lost):
            continue
        row = stacks.get(cell.total, 0)
        stacks[cell.total] = row + 1
        height = 0.965 - 0.05 * row
        colour = style(cell.mode).colour
        axes.plot([cell.total], [height], transform=axes.get_xaxis_transform(), linestyle="none",
                  marker="x" if cell.skipped else "$!$", markersize=8 if cell.skipped else 12,
                  markeredgewidth=2 if cell.skipped else 0.5,
                  color=colour, clip_on=False, zorder=6)
        left = cell.total == rightmost
        axes.annotate(f"{cell.mode}: {'skipped' if cell.skipped else 'failed'}",
                      (cell.total, height), xycoords=axes.get_xaxis_transform(),
                      xytext=(-8 if left else 8, 0), textcoords="offset points",
                      ha="right" if left else "left", va="center", fontsize=7.5, color=colour)
    return max(stacks.values(), default=0)


def _plain_log_labels(axes: Axes) -> None:
    """Log axes labelled 0.1, 1, 10, 1,000 rather than powers of ten."""
    from matplotlib.ticker import LogFormatterSciNotation

    class Plain(LogFormatterSciNotation):
        def __call__(self, x: float, pos: int | None = None) -> str:
            return f"{x:,g}" if super().__call__(x, pos) else ""

    for axis in (axes.xaxis, axes.yaxis):
        axis.set_major_formatter(Plain())
        axis.set_minor_formatter(Plain(labelOnlyBase=False))


def _room_on_top(axes: Axes, low: float, high: float, rows: int) -> None:
    """Log y limits with the top ``rows`` of marks above every point."""
    if not 0 < low < high:
        raise ValueError(f"log limits need 0 < low < high, got {low!r} and {high!r}")
    share = 0.08 + 0.05 * rows if rows else 0.05
    decades = math.log10(high / low)
    axes.set_ylim(low, high * 10 ** (decades * share / (1 - share)))


def _mode_legend(axes: Axes, modes: Sequence[str], title: str) -> Legend:
    from matplotlib.lines import Line2D

    handles = []
    for mode in modes:
        look = style(mode)
        handles.append(Line2D([], [], color=look.colour, linestyle=look.line, linewidth=1.8,
                              label=mode, **look.marker_options()))
    return axes.legend(handles=handles, title=title, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                       fontsize=8.5, title_fontsize=9, handlelength=3.2, frameon=False)


def _skip_handles(cells: Sequence[Cell]) -> list[Any]:
    from matplotlib.lines import Line2D

    handles = []
    if any(c.skipped for c in cells):
        handles.append(Line2D([], [], linestyle="none", marker="x", markeredgewidth=2, color="black",
                              label="× at the top: skipped at that N\n(note in results.md)"))
    if any(c.lost for c in cells):
        handles.append(Line2D([], [], linestyle="none", marker="$!$", markersize=12, color="black",
                              label="! at the top: calls lost or wrong\nat that N"))
    return handles


def _wall_lines(axes: Any, modes: Sequence[str], measured: Sequence[Cell]) -> tuple[list[float], bool]:
    """Each mode's wall time against N, with its spread as error bars: the values drawn
    (for the axis limits) and whether any error bar was."""
    values: list[float] = []
    bars = False
    for mode in modes:
        mine = sorted((c for c in measured if c.mode == mode), key=lambda c: c.total)
        if not mine:
            continue
        ys = [float(c.wall_s or 0.0) for c in mine]
        _line(axes, mode, [c.total for c in mine], ys, None)
        bars = _error_bars(axes, mode, mine, "total", "wall_s") or bars
        values += ys + [v for c in mine if (found := interval(c, "wall_s")) for v in found]
    return values, bars


def fanout_figure(cells: Sequence[Cell]) -> Figure | None:
    """Wall time against N per mode, log-log, each mode's model thin and dashed."""
    from matplotlib.lines import Line2D

    chosen = [c for c in cells if c.scenario == "fanout"]
    measured = [c for c in chosen if _value(c, "wall_s")]
    if not measured:
        return None
    figure = _figure(12, 7)
    axes = figure.add_subplot()
    modes = list(dict.fromkeys(c.mode for c in chosen))
    delay = measured[0].delay
    values = [delay]
    kinds: set[str] = set()
    more, bars = _wall_lines(axes, modes, measured)
    values += more
    for mode in modes:
        modelled = [c for c in measured if c.mode == mode and c.model_s]
        if modelled:
            kind = model_kind(mode)
            kinds.add(kind)
            modelled.sort(key=lambda c: c.total)
            axes.plot([c.total for c in modelled], [c.model_s or 0.0 for c in modelled],
                      color=style(mode).colour, linestyle=MODEL_LINES[kind], linewidth=1.0,
                      alpha=0.7, zorder=2)
            values += [c.model_s or 0.0 for c in modelled]
    axes.axhline(delay, color="grey", linestyle=":", linewidth=1.2, zorder=1)
    axes.annotate(f"Y = {delay:g} s", (0.01, delay), xycoords=("axes fraction", "data"),
                  xytext=(0, -3), textcoords="offset points", va="top", fontsize=8.5, color="dimgrey")
    axes.set_xscale("log")
    axes.set_yscale("log")
    ns = sorted({c.total for c in chosen})
    axes.set_xlim(ns[0] / 1.6, ns[-1] * 1.6)
    rows = _not_measured_marks(axes, chosen)
    _room_on_top(axes, min(values) / 1.4, max(values) * 1.25, rows)
    _plain_log_labels(axes)
    axes.set_xlabel("N concurrent calls")
    axes.set_ylabel("wall time, s")
    axes.set_title(f"fan-out: N concurrent calls, each waiting Y = {delay:g} s on the server",
                   loc="left")
    axes.grid(True, which="both", alpha=0.25)
    axes.add_artist(_mode_legend(axes, modes, "mode (hollow, dash-dot: not dualio)"))
    lines = [Line2D([], [], color="dimgrey", linestyle=MODEL_LINES[kind], linewidth=1.0, label=kind)
             for kind in MODEL_LINES if kind in kinds]
    lines.append(Line2D([], [], color="grey", linestyle=":", linewidth=1.2,
                        label=f"Y = {delay:g} s, the server's wait"))
    if bars:
        lines.append(Line2D([], [], color="dimgrey", marker="|", markersize=10, linestyle="none",
                            label=spread_label(measured).replace(" of ", "\nof ")))
    lines += _skip_handles(chosen)
    axes.legend(handles=lines, title="thin lines: each mode's model, its colour", loc="lower left",
                bbox_to_anchor=(1.01, 0.0), fontsize=8.5, title_fontsize=9, handlelength=3.2,
                frameon=False)
    return figure


def wordcount_figure(cells: Sequence[Cell]) -> Figure | None:
    """Wall time against N connections per mode, log-log."""
    chosen = [c for c in cells if c.scenario == "wordcount"]
    measured = [c for c in chosen if _value(c, "wall_s")]
    if not measured:
        return None
    figure = _figure(11, 6)
    axes = figure.add_subplot()
    modes = list(dict.fromkeys(c.mode for c in chosen))
    values, bars = _wall_lines(axes, modes, measured)
    axes.set_xscale("log")
    axes.set_yscale("log")
    ns = sorted({c.total for c in chosen})
    axes.set_xlim(ns[0] / 1.6, ns[-1] * 1.6)
    rows = _not_measured_marks(axes, chosen)
    _room_on_top(axes, min(values) / 1.25, max(values) * 1.25, rows)
    _plain_log_labels(axes)
    axes.set_xlabel("N connections, each streaming words")
    axes.set_ylabel("wall time, s")
    axes.set_title(f"word count: N connections, one word every {measured[0].delay:g} s each, "
                   "into one shared top-10 table", loc="left")
    axes.grid(True, which="both", alpha=0.25)
    modes_legend = _mode_legend(axes, modes, "mode")
    extra = _skip_handles(chosen)
    if bars:
        from matplotlib.lines import Line2D

        extra.append(Line2D([], [], color="dimgrey", marker="|", markersize=10, linestyle="none",
                            label=spread_label(measured).replace(" of ", "\nof ")))
    if extra:
        axes.add_artist(modes_legend)
        axes.legend(handles=extra, loc="lower left", bbox_to_anchor=(1.01, 0.0), fontsize=8.5,
                    frameon=False)
    return figure


def _bar_panels(title: str, panels: Sequence[tuple[str, Sequence[Cell]]], key: str, unit: str,
                share_x: bool) -> Figure:
    """One panel of horizontal bars per group, the same modes on every panel's rows."""
    from matplotlib.ticker import FuncFormatter

    modes = list(dict.fromkeys(c.mode for _, group in panels for c in group))
    figure = _figure(5.2 * len(panels) + 2.2, 0.42 * len(modes) + 1.9)
    grid = figure.subplots(1, len(panels), sharey=True, sharex=share_x, squeeze=False)[0]
    rows = {mode: index for index, mode in enumerate(modes)}
    reach = [max((max(v, (interval(c, key) or (0.0, 0.0))[1]) for c in group
                  if (v := _value(c, key)) is not None), default=1.0) for _, group in panels]
    if share_x:
        reach = [max(reach)] * len(reach)
    bars = any(interval(c, key) is not None for _, group in panels for c in group)
    for axes, (heading, group), longest in zip(grid, panels, reach, strict=True):
        axes.set_title(heading, loc="left", fontsize=10)
        by_mode = {c.mode: c for c in group}
        for mode, row in rows.items():
            look = style(mode)
            cell = by_mode.get(mode)
            value = None if cell is None else _value(cell, key)
            if cell is None or value is None:
                reason = ("not in this case" if cell is None else "skipped" if cell.skipped
                          else "failed: calls lost or wrong" if cell.lost else "not measured")
                axes.text(longest * 0.01, row, reason, va="center", fontsize=8, color="dimgrey",
                          style="italic")
                continue
            axes.barh(row, value, height=0.7, color=look.colour, alpha=0.45 if look.hollow else 0.85,
                      edgecolor=look.colour, linewidth=1.2, hatch=look.hatch)
            found = interval(cell, key)
            end = value
            if found is not None:
                low, high = found
                axes.errorbar([value], [row], xerr=[[max(0.0, value - low)], [max(0.0, high - value)]],
                              fmt="none", ecolor="black", elinewidth=1.1, capsize=3)
                end = max(value, high)
            axes.text(end + longest * 0.015, row, f"{value:,.0f}" if value >= 100 else f"{value:,.1f}",
                      va="center", fontsize=8)
        axes.set_xlim(0, longest * 1.22)
        axes.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}"))
        axes.set_xlabel(unit + (f"; {spread_label(group)}" if bars else ""))
        axes.grid(True, axis="x", alpha=0.25)
        axes.tick_params(axis="y", length=0)
    first = grid[0]
    first.set_yticks(range(len(modes)), modes, fontsize=9)
    first.invert_yaxis()
    if any(style(mode).hollow for mode in modes):
        title += " (hatched: not dualio)"
    figure.suptitle(title, x=0.01, ha="left", fontsize=11.5)
    return figure


def throughput_figure(cells: Sequence[Cell]) -> Figure | None:
    """Calls per second per mode: one in flight, and many in flight."""
    chosen = [c for c in cells if c.scenario == "throughput"]
    if not any(_value(c, "ops_per_s") for c in chosen):
        return None
    cases = list(dict.fromkeys(c.case for c in chosen))
    panels = [(_case_heading(case), [c for c in chosen if c.case == case]) for case in cases]
    return _bar_panels("throughput: small calls with no server wait, calls per second", panels,
                       "ops_per_s", "calls/s", share_x=False)


def _case_heading(case: str) -> str:
    if case in ("sequential", redis_scenario.SEQUENTIAL):
        return "sequential: one call in flight"
    for prefix in ("concurrent c=", redis_scenario.CONCURRENT):
        if case.startswith(prefix):
            return f"concurrent: {case.removeprefix(prefix)} calls in flight"
    return case


def blob_figure(cells: Sequence[Cell]) -> Figure | None:
    """MB/s of 1 MiB answers per mode, one panel per server model."""
    chosen = [c for c in cells if c.scenario == "blob"]
    if not any(_value(c, "mb_per_s") for c in chosen):
        return None
    servers = list(dict.fromkeys(c.server for c in chosen))
    panels = []
    for server in servers:
        mine = [c for c in chosen if c.server == server]
        cases = ", ".join(dict.fromkeys(c.case for c in mine))
        panels.append((f"{server} server: {cases}", mine))
    return _bar_panels("blob: 1 MiB answers, every byte checked; MB/s per mode, one panel per "
                       "server model", panels, "mb_per_s", "MB/s", share_x=True)


def _redis_get_panels(cells: Sequence[Cell], key: str) -> list[tuple[str, Sequence[Cell]]] | None:
    """The Redis scenario's GET cases, a panel each; None when none measured ``key``."""
    chosen = [c for c in cells if c.scenario == redis_scenario.SCENARIO
              and c.case.startswith((redis_scenario.SEQUENTIAL, redis_scenario.CONCURRENT))]
    if not any(_value(c, key) for c in chosen):
        return None
    cases = list(dict.fromkeys(c.case for c in chosen))
    return [(_case_heading(case), [c for c in chosen if c.case == case]) for case in cases]


def redis_figure(cells: Sequence[Cell]) -> Figure | None:
    """GETs per second against redis-server: dualio's faces beside the peers."""
    panels = _redis_get_panels(cells, "ops_per_s")
    return None if panels is None else _bar_panels(
        "redis: GET of a 16-byte value on redis-server, calls per second", panels, "ops_per_s", "calls/s",
        share_x=False)


def redis_cpu_figure(cells: Sequence[Cell]) -> Figure | None:
    """The client's CPU per GET against redis-server: what the machine pays per call."""
    panels = _redis_get_panels(cells, "client_cpu_us")
    return None if panels is None else _bar_panels(
        "redis: the client process's CPU per GET (every thread), µs", panels, "client_cpu_us",
        "µs per call", share_x=True)


CHARTS: tuple[tuple[str, str, Callable[[Sequence[Cell]], Figure | None]], ...] = (
    ("fanout", "fanout.png", fanout_figure),
    ("throughput", "throughput.png", throughput_figure),
    ("wordcount", "wordcount.png", wordcount_figure),
    ("blob", "blob.png", blob_figure),
    ("redis", "redis.png", redis_figure),
    ("redis", "redis-cpu.png", redis_cpu_figure),
)


def write_all(folder: Path, cells: Sequence[Cell]) -> tuple[list[str], list[str]]:
    """Draw each chart whose scenario has measured cells into ``folder``.

    Returns the file names written and a one-line note per chart not drawn."""
    wanted = [chart for chart in CHARTS if any(c.scenario == chart[0] for c in cells)]
    if not wanted:
        return [], []
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return [], ["charts skipped: matplotlib is not installed (pip install 'dualio[lab]')"]
    written: list[str] = []
    notes: list[str] = []
    for scenario, name, draw in wanted:
        try:
            figure = draw(cells)
        except Exception as exc:  # a chart that cannot be drawn must not cost the run its results.md
            notes.append(f"{name} not drawn: {type(exc).__name__}: {exc}")
            continue
        if figure is None:
            notes.append(f"{name} not drawn: no measured {scenario} cells")
            continue
        # "tight": the legends outside the axes are part of the picture.
        figure.savefig(folder / name, dpi=110, bbox_inches="tight", pad_inches=0.15)
        written.append(name)
    return written, notes


def load_cells(path: Path) -> list[Cell]:
    """The cells of a ``results.json``, keys this version of Cell does not know left out."""
    known = {f.name for f in fields(Cell)}
    data = json.loads(path.read_text())
    return [Cell(**{k: v for k, v in cell.items() if k in known}) for cell in data["cells"]]


def main(argv: Sequence[str]) -> int:
    """``python -m dualio.lab.bench.charts RESULTS_JSON [FOLDER]``: redraw a run's charts."""
    if len(argv) not in (1, 2):
        print("usage: python -m dualio.lab.bench.charts RESULTS_JSON [FOLDER]", file=sys.stderr)
        return 2
    source = Path(argv[0])
    folder = Path(argv[1]) if len(argv) == 2 else source.parent
    try:
        cells = load_cells(source)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"charts: cannot read {source}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    if not folder.is_dir():
        print(f"charts: {folder} is not a folder", file=sys.stderr)
        return 2
    written, notes = write_all(folder, cells)
    for note in notes:
        print(note)
    print(f"wrote {', '.join(written) or 'nothing'} in {folder}/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
