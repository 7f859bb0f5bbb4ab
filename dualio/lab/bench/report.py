"""The run's results for people and programs: tables on the terminal, results.json,
results.md, and the fan-out chart as PNG."""

from __future__ import annotations

import contextlib
import json
import math
import os
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dualio.lab.bench import summary
from dualio.lab.bench.goals import Goal
from dualio.lab.bench.results import Cell

WIDTH = 100
# What the terminal shows; the files have every column. Metrics in SPREAD show "median ±x%".
TERMINAL_COLUMNS = (
    ("case", "case"), ("mode", "mode"), ("server", "server"), ("wall_s", "wall s"),
    ("model_s", "model s"), ("ratio", "ratio"), ("ops_per_s", "ops/s"), ("mb_per_s", "MB/s"),
    ("p50_ms", "p50 ms"), ("client_cpu_us", "client µs/op"), ("server_cpu_us", "server µs/op"),
    ("kb_per_conn", "KiB/conn"), ("new_connections", "new conns"), ("rounds", "K"), ("lost", "lost"),
    ("limited", "limited"),
)
SPREAD = ("wall_s", "ratio", "ops_per_s", "mb_per_s")
# Dropped first, in this order, when a table would be wider than WIDTH.
OPTIONAL = ("server_cpu_us", "p50_ms", "model_s", "kb_per_conn", "new_connections", "client_cpu_us",
            "mb_per_s", "ratio")
LABELS = ("case", "mode", "server")

MARKDOWN_COLUMNS = (
    ("case", "case"), ("mode", "mode"), ("server", "server"), ("rounds", "K"), ("wall_s", "wall s"),
    ("model_s", "model s"), ("ratio", "ratio"), ("ops_per_s", "ops/s"), ("p50_ms", "p50 ms"),
    ("p99_ms", "p99 ms"), ("client_cpu_us", "client CPU µs/op"), ("server_cpu_us", "server CPU µs/op"),
    ("mb_per_s", "MB/s"), ("kb_per_conn", "KiB/conn"), ("new_connections", "new conns"),
    ("peak_threads", "threads"),
    ("peak_rss_mb", "RSS MB"), ("server_rss_mb", "server RSS MB"), ("errors", "errors"),
    ("wrong", "wrong"), ("limited", "limited"), ("note", "note"),
)


def _text(value: Any, key: str) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        if key == "ops_per_s":
            return f"{value:,.0f}"
        if key == "ratio":
            return f"{value:.2f}"
        return f"{value:.3f}" if value < 100 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def value_text(cell: Cell, key: str) -> str:
    """A cell's value as shown: ``12,345 ±4%`` for a metric with a spread over rounds."""
    if key == "lost":
        return _text(cell.errors + cell.wrong, key)
    value = getattr(cell, key)
    text = _text(value, key)
    if key not in SPREAD or value is None or key not in cell.interval or cell.rounds < 2:
        return text
    half = summary.relative_half_width(float(value), cell.interval[key])
    if half is None:
        return text
    percent = half * 100
    if percent < 0.05:
        return f"{text} ±0%"
    return f"{text} ±{percent:.0f}%" if percent >= 1 else f"{text} ±{percent:.1f}%"


def spread_note() -> str:
    return (f"±: half the spread of the rounds, as % of the median: the bootstrap 95% CI of the "
            f"median for {summary.BOOTSTRAP_MIN_ROUNDS}+ rounds, the whole range for fewer")


def _layout(cells: Sequence[Cell], repeat: int) -> tuple[list[tuple[str, str]], list[list[str]], str]:
    """Columns, rows and a title suffix for one scenario's measured cells, at most WIDTH wide."""
    columns = list(TERMINAL_COLUMNS)
    suffix = ""
    servers = {c.server for c in cells}
    if len(servers) == 1:
        columns = [c for c in columns if c[0] != "server"]
        suffix = f" (server: {servers.pop()})"
    if all(c.rounds == repeat for c in cells):
        columns = [c for c in columns if c[0] != "rounds"]
    if not any(c.lost for c in cells):
        columns = [c for c in columns if c[0] != "lost"]
    if not any(c.limited for c in cells):
        columns = [c for c in columns if c[0] != "limited"]
    columns = [(key, title) for key, title in columns
               if key in LABELS or key in ("rounds", "lost", "limited")
               or any(getattr(c, key) is not None for c in cells)]

    def table() -> tuple[list[list[str]], int]:
        rows = [[value_text(c, key) for key, _ in columns] for c in cells]
        widths = [max(len(title), *(len(r[i]) for r in rows)) for i, (_, title) in enumerate(columns)]
        return rows, sum(widths) + 2 * (len(widths) - 1)

    rows, width = table()
    for key in OPTIONAL:
        if width <= WIDTH:
            break
        if any(k == key for k, _ in columns):
            columns = [c for c in columns if c[0] != key]
            rows, width = table()
    return columns, rows, suffix


def table_lines(cells: Sequence[Cell], scenario: str, repeat: int, colour: bool = False) -> list[str]:
    """One scenario's table for the terminal: measured cells, then one line per skipped one."""
    chosen = [c for c in cells if c.scenario == scenario]
    measured = [c for c in chosen if not c.skipped]
    lines: list[str] = []
    if measured:
        columns, rows, suffix = _layout(measured, repeat)
        widths = [max(len(title), *(len(r[i]) for r in rows)) for i, (_, title) in enumerate(columns)]

        def join(values: Sequence[str]) -> str:
            return "  ".join(v.ljust(w) if key in LABELS else v.rjust(w)
                             for v, w, (key, _) in zip(values, widths, columns, strict=True)).rstrip()

        lines.append(f"{scenario}{suffix}")
        lines.append(join([title for _, title in columns]))
        lines.append("  ".join("─" * w for w in widths))
        for cell, row in zip(measured, rows, strict=True):
            text = join(row)
            style = "31;1" if cell.lost else "33" if cell.limited else ""
            lines.append(f"\x1b[{style}m{text}\x1b[0m" if colour and style else text)
    else:
        lines.append(scenario)
    several = len({c.server for c in chosen}) > 1
    for cell in chosen:
        if cell.skipped:
            server = f" ({cell.server})" if several else ""
            lines.append(f"  {cell.case} {cell.mode}{server}: {cell.note}"[:WIDTH])
    return lines


def print_tables(cells: Sequence[Cell], scenarios: Sequence[str], repeat: int, colour: bool = False) -> None:
    for scenario in scenarios:
        if any(c.scenario == scenario for c in cells):
            print()
            print("\n".join(table_lines(cells, scenario, repeat, colour)))
    if repeat > 1:
        print()
        print("\n".join(textwrap.wrap(f"{spread_note()}. K: rounds, where not {repeat}.", WIDTH,
                                       subsequent_indent="   ")))


def markdown_table(cells: Sequence[Cell]) -> list[str]:
    """Cells as one Markdown table, every column that has a value (errors and wrong always)."""
    columns = [(key, title) for key, title in MARKDOWN_COLUMNS
               if key in ("errors", "wrong") or any(getattr(c, key) not in (None, "") for c in cells)]
    out = ["| " + " | ".join(title for _, title in columns) + " |",
           "|" + "|".join("---" for _ in columns) + "|"]
    for cell in cells:
        out.append("| " + " | ".join(value_text(cell, key).replace("|", "/") for key, _ in columns) + " |")
    return out


def goals_table(goals: Sequence[Goal]) -> list[str]:
    out = ["| goal | target | median | low | high | verdict | from |", "|---|---|---|---|---|---|---|"]
    for goal in goals:
        numbers = [_text(v, "ratio") if v is not None else "-" for v in (goal.median, goal.low, goal.high)]
        out.append(f"| {goal.name} | {goal.target_text} | " + " | ".join(numbers)
                   + f" | {goal.verdict} | {goal.detail} |")
    return out


def metadata_lines(meta: dict[str, Any]) -> list[str]:
    python, system, machine = meta.get("python", {}), meta.get("os", {}), meta.get("machine", {})
    packages = ", ".join(f"{name} {version}" for name, version in meta.get("packages", {}).items()
                         if version) or "none"
    commit = meta.get("git_commit") or "not a git checkout"
    if meta.get("git_changed"):
        commit += " (with uncommitted changes)"
    return [
        f"- command: `{meta.get('command', '')}`",
        f"- started {meta.get('started')}, took {_text(meta.get('duration_s'), 'wall_s')} s"
        + (" — **partial: interrupted before the end**" if meta.get("partial") else ""),
        f"- dualio {meta.get('dualio_version')}, commit {commit}",
        f"- {python.get('implementation')} {python.get('version')} on {system.get('platform')}",
        f"- CPU: {machine.get('cpu_model')}, {machine.get('logical_cpus')} logical",
        f"- packages: {packages}",
        f"- rounds per cell: {meta.get('repeat')} (fewer where the K column says so); "
        + spread_note(),
    ]


def markdown(cells: Sequence[Cell], scenarios: Sequence[str], meta: dict[str, Any] | None = None,
             goals: Sequence[Goal] = (), charts: Sequence[str] = ()) -> str:
    """The run as Markdown: title, metadata, goals, charts, then one table per scenario."""
    parts: list[str] = []
    if meta is not None:
        parts += [f"# dualio lab results, {meta.get('started')}", "", *metadata_lines(meta), ""]
    if goals:
        parts += ["## Goals", "", *goals_table(goals), ""]
    if charts:
        parts += ["## Charts", ""]
        parts += [f"![{Path(name).stem}]({name})" for name in charts]
        parts.append("")
    if meta is not None:
        parts += ["## Cells", ""]
    for scenario in scenarios:
        chosen = [c for c in cells if c.scenario == scenario]
        if not chosen:
            continue
        parts.append(f"### {scenario}\n")
        parts += markdown_table(chosen)
        parts.append("")
    return "\n".join(parts)


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float made None: JSON has no NaN or infinity."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``:
    an interrupted write leaves the old file or none, never half of one."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()


def results_document(cells: Sequence[Cell], meta: dict[str, Any], goals: Sequence[Goal],
                     schema_version: int) -> dict[str, Any]:
    document = {"schema_version": schema_version, "meta": meta,
                "goals": [goal.to_json() for goal in goals], "cells": [c.to_json() for c in cells]}
    return dict(_finite(document))


def write_json(path: Path, document: dict[str, Any]) -> None:
    write_atomic(path, json.dumps(document, indent=2, allow_nan=False) + "\n")

