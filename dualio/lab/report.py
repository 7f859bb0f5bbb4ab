"""Tables on the terminal, results as JSON, the fan-out chart as PNG."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dualio.lab.results import Cell

COLUMNS = (
    ("case", "case"), ("mode", "mode"), ("server", "server"), ("wall_s", "wall s"), ("model_s", "model s"),
    ("ratio", "ratio"), ("ops_per_s", "ops/s"), ("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"),
    ("client_cpu_us", "client CPU µs/op"), ("server_cpu_us", "server CPU µs/op"),
    ("mb_per_s", "MB/s"), ("kb_per_conn", "KiB/conn"),
    ("peak_threads", "threads"), ("peak_rss_mb", "RSS MB"), ("errors", "errors"),
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
    return str(value)


def rows(cells: Sequence[Cell]) -> list[list[str]]:
    return [[_text(getattr(cell, key), key) for key, _ in COLUMNS] for cell in cells]


def print_tables(cells: Sequence[Cell], scenarios: Sequence[str]) -> None:
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        for scenario in scenarios:
            print(f"\n== {scenario} ==")
            print(" | ".join(title for _, title in COLUMNS))
            for row in rows([c for c in cells if c.scenario == scenario]):
                print(" | ".join(row))
        return
    console = Console()
    if not console.is_terminal:
        console = Console(width=220)
    for scenario in scenarios:
        chosen = [c for c in cells if c.scenario == scenario]
        if not chosen:
            continue
        table = Table(title=scenario, title_justify="left")
        for key, title in COLUMNS:
            table.add_column(title, justify="left" if key in ("case", "mode", "server", "note") else "right",
                             overflow="fold", max_width=48 if key == "note" else None)
        for cell, row in zip(chosen, rows(chosen), strict=True):
            style = ("bold red" if cell.lost else "yellow" if cell.limited
                     else "dim" if cell.skipped else None)
            table.add_row(*row, style=style)
        console.print(table)


def write_json(path: Path, cells: Sequence[Cell], meta: dict[str, Any]) -> None:
    path.write_text(json.dumps({"meta": meta, "cells": [c.to_json() for c in cells]}, indent=2))


def fanout_chart(path: Path, cells: Sequence[Cell]) -> str:
    """Wall time against N per mode, log-log, models dashed. Returns a note if not drawn."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "chart skipped: matplotlib is not installed (pip install 'dualio[lab]')"
    measured = [c for c in cells if c.scenario == "fanout" and c.wall_s and not c.skipped]
    if not measured:
        return "chart skipped: no fan-out measurements"
    figure, axes = plt.subplots(figsize=(10, 6.5))
    modes = list(dict.fromkeys(c.mode for c in measured))
    colours = plt.colormaps["tab20"]
    for index, mode in enumerate(modes):
        mine = sorted((c for c in measured if c.mode == mode), key=lambda c: c.total)
        colour = colours(index % 20)
        axes.plot([c.total for c in mine], [c.wall_s or 0.0 for c in mine], marker="o", color=colour,
                  label=mode)
        modelled = [c for c in mine if c.model_s]
        if modelled:
            axes.plot([c.total for c in modelled], [c.model_s or 0.0 for c in modelled], linestyle="--",
                      color=colour, alpha=0.7)
    delay = measured[0].delay
    axes.axhline(delay, color="grey", linestyle=":", label=f"Y = {delay} s")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("N concurrent calls")
    axes.set_ylabel("wall time, s")
    axes.set_title(f"fan-out: N calls each waiting {delay} s on the server "
                   "(dashed: model ceil(N/W)·Y or Y + N·c)")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8, ncol=2)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return ""


MARKDOWN_COLUMNS = (
    ("case", "case"), ("mode", "mode"), ("server", "server"), ("wall_s", "wall s"),
    ("model_s", "model s"), ("ratio", "ratio"), ("ops_per_s", "ops/s"), ("p50_ms", "p50 ms"),
    ("p99_ms", "p99 ms"), ("client_cpu_us", "client CPU µs/op"), ("server_cpu_us", "server CPU µs/op"),
    ("mb_per_s", "MB/s"), ("kb_per_conn", "KiB/conn"),
    ("peak_threads", "threads"), ("peak_rss_mb", "RSS MB"), ("errors", "errors"),
    ("wrong", "wrong"), ("limited", "limited"), ("note", "note"),
)


def markdown(cells: Sequence[Cell], scenarios: Sequence[str]) -> str:
    """The run's tables as Markdown, one per scenario, empty columns left out."""
    parts: list[str] = []
    for scenario in scenarios:
        chosen = [c for c in cells if c.scenario == scenario]
        if not chosen:
            continue
        columns = [(key, title) for key, title in MARKDOWN_COLUMNS
                   if key in ("errors", "wrong") or any(getattr(c, key) not in (None, "") for c in chosen)]
        parts.append(f"### {scenario}\n")
        parts.append("| " + " | ".join(title for _, title in columns) + " |")
        parts.append("|" + "|".join("---" for _ in columns) + "|")
        for cell in chosen:
            parts.append("| " + " | ".join(_text(getattr(cell, key), key).replace("|", "/")
                                           for key, _ in columns) + " |")
        parts.append("")
    return "\n".join(parts)
