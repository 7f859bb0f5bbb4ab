"""The lab's charts: every chart drawn from cells, one stable style per mode."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from itertools import combinations
from pathlib import Path

import pytest

from dualio.lab.bench import charts, redis_clients
from dualio.lab.bench.modes import all_modes
from dualio.lab.bench.results import Cell

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
Y = 0.05


def with_interval(cell: Cell, key: str, low: float, high: float, rounds: int = 3) -> Cell:
    # setattr: works whether or not this version of Cell declares the fields.
    found = dict(getattr(cell, "interval", None) or {})
    found[key] = (low, high)
    setattr(cell, "interval", found)  # noqa: B010
    setattr(cell, "rounds", rounds)  # noqa: B010
    return cell


def fanout_cell(mode: str, n: int, wall: float | None, model: float | None = None) -> Cell:
    return Cell("fanout", f"N={n}", mode, "async", n, n, Y, wall_s=wall, model_s=model)


def sample_cells() -> list[Cell]:
    """A small run: a skipped cell, two coinciding modes, a mode no style names, intervals."""
    cells: list[Cell] = []
    for n in (10, 100, 1000):
        pool = -(-n // 6) * Y
        sync = fanout_cell("sync", n, n * Y if n < 1000 else None, n * Y)
        if n == 1000:
            sync.skipped, sync.note = True, "skipped: predicted 50 s > budget 6 s"
        native = fanout_cell("native-asyncio", n, Y + n * 2e-5, Y + n * 1.8e-5)
        with_interval(native, "wall_s", Y + n * 1.5e-5, Y + n * 3e-5)
        cells += [
            sync,
            fanout_cell("emulated-pool", n, pool * 1.01, pool),
            fanout_cell("asyncio.to_thread", n, pool * 1.01, pool),  # the same as emulated-pool
            fanout_cell("emulated-pool-w50", n, -(-n // 50) * Y * 1.02, -(-n // 50) * Y),
            native,
        ]
    for case, inflight in (("sequential", 1), ("concurrent c=100", 100)):
        for mode, rate in (("sync", 12_000.0), ("native-asyncio", 13_000.0), ("asyncio-protocol", 14_000.0),
                           ("emulated-pool-w50", 4_000.0)):
            if mode == "sync" and inflight > 1:
                continue
            cell = Cell("throughput", case, mode, "async", 1000, inflight, 0.0, wall_s=1000 / rate,
                        ops_per_s=rate * inflight ** 0.5)
            if mode == "native-asyncio":
                with_interval(cell, "ops_per_s", rate * 0.9, rate * 1.1)
            cells.append(cell)
    for n in (100, 1000):
        for mode, extra in (("threads", 2e-4), ("native-asyncio", 1e-4)):
            cells.append(Cell("wordcount", f"N={n}", mode, "async", n, n, 0.01, wall_s=0.1 + n * extra))
    for server in ("async", "threaded"):
        for mode, rate in (("sync", 900.0), ("native-asyncio", 1500.0)):
            cell = Cell("blob", "40×1MiB c=20", mode, server, 40, 20, 0.0, mb_per_s=rate)
            cells.append(with_interval(cell, "mb_per_s", rate * 0.95, rate * 1.04))
    return cells


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, f"{path.name} is not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_write_all_draws_each_scenario_with_measured_cells(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    written, notes = charts.write_all(tmp_path, sample_cells())
    assert written == ["fanout.png", "throughput.png", "wordcount.png", "blob.png"]
    assert notes == []
    for name in written:
        width, height = png_size(tmp_path / name)
        assert 700 <= width <= 2500 and 250 <= height <= 1500, (name, width, height)
        assert (tmp_path / name).stat().st_size > 20_000


def test_a_scenario_without_measured_cells_gets_a_note_not_a_chart(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    skipped = fanout_cell("sync", 1000, None)
    skipped.skipped = True
    overhead = Cell("overhead", "zero-delay call", "sync", "async", 10, 1, 0.0, wall_s=0.01)
    written, notes = charts.write_all(tmp_path, [skipped, overhead])
    assert written == []
    assert notes == ["fanout.png not drawn: no measured fanout cells"]
    assert list(tmp_path.iterdir()) == []


def test_a_chart_that_cannot_be_drawn_is_a_note_and_the_others_are_drawn(tmp_path: Path) -> None:
    """A results.json written before rounds that measured nothing were left out of a cell's
    spread may hold a wall time of 0 s, which a log axis cannot show: that chart becomes a
    note, and the run's other charts (and its results.md) are still written."""
    pytest.importorskip("matplotlib")
    cells = sample_cells()
    native = next(c for c in cells if c.scenario == "fanout" and c.mode == "native-asyncio")
    with_interval(native, "wall_s", 0.0, 0.2)
    written, notes = charts.write_all(tmp_path, cells)
    assert written == ["throughput.png", "wordcount.png", "blob.png"]
    assert len(notes) == 1 and notes[0].startswith("fanout.png not drawn: ValueError: log limits"), notes


def test_without_matplotlib_one_note_and_nothing_drawn(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    written, notes = charts.write_all(tmp_path, sample_cells())
    assert written == [] and len(notes) == 1 and "matplotlib is not installed" in notes[0]
    assert list(tmp_path.iterdir()) == []
    assert charts.write_all(tmp_path, []) == ([], [])


def legend_texts(figure: object) -> list[str]:
    from matplotlib.legend import Legend

    axes = figure.axes[0]  # type: ignore[attr-defined]
    return [text.get_text() for child in axes.get_children() if isinstance(child, Legend)
            for text in child.get_texts()]


def test_fanout_chart_names_every_mode_model_and_mark() -> None:
    pytest.importorskip("matplotlib")
    cells = sample_cells()
    figure = charts.fanout_figure(cells)
    assert figure is not None
    texts = legend_texts(figure)
    for mode in ("sync", "emulated-pool", "asyncio.to_thread", "emulated-pool-w50", "native-asyncio"):
        assert mode in texts
    assert {"model: ceil(N/W)·Y", "model: Y + N·c", "model: N·Y"} <= set(texts)
    assert f"Y = {Y:g} s, the server's wait" in texts
    assert any(text.startswith("× at the top: skipped") for text in texts)
    assert any(text.startswith("bar: ") for text in texts)  # native-asyncio's interval
    axes = figure.axes[0]
    annotations = [child.get_text() for child in axes.texts]
    assert "sync: skipped" in annotations
    skip_marks = [line for line in axes.get_lines() if line.get_marker() == "x"]
    assert [list(line.get_xdata()) for line in skip_marks] == [[1000]]
    assert skip_marks[0].get_color() == charts.style("sync").colour


def test_coinciding_modes_stay_visible_in_the_fanout_chart() -> None:
    pytest.importorskip("matplotlib")
    figure = charts.fanout_figure(sample_cells())
    assert figure is not None
    by_colour = {line.get_color(): line for line in figure.axes[0].get_lines() if line.get_marker() != "None"}
    pool = by_colour[charts.style("emulated-pool").colour]
    peer = by_colour[charts.style("asyncio.to_thread").colour]
    assert list(pool.get_ydata()) == list(peer.get_ydata())  # the data coincide
    assert peer.get_zorder() > pool.get_zorder()  # the hollow marker drawn over the filled one
    assert peer.get_markerfacecolor() == "none" and peer.get_markersize() > pool.get_markersize()
    assert peer.get_marker() != pool.get_marker() and peer.get_linestyle() != pool.get_linestyle()


def test_every_known_mode_has_its_own_style() -> None:
    names = [mode.name for mode in all_modes()]
    assert set(charts.STYLES) == set(names), "a mode in modes.py needs a style in charts.STYLES"
    looks = [charts.style(name) for name in names]
    assert len({look.colour for look in looks}) == len(names)
    assert len({look.marker for look in looks}) == len(names)
    # Any two modes that draw the same points differ in marker and in line or fill.
    for one, other in combinations(looks, 2):
        assert one.marker != other.marker
    pool, peer = charts.style("emulated-pool"), charts.style("asyncio.to_thread")
    assert pool.line != peer.line and pool.fill != peer.fill


def test_every_mode_of_the_redis_chart_has_a_colour_of_its_own() -> None:
    redis_modes = [mode.name for mode in redis_clients.redis_modes()]
    assert set(charts.REDIS_PEER_STYLES) == {m.name for m in redis_clients.redis_modes() if m.peer}
    assert all(name in charts.STYLES for name in redis_modes if name not in charts.REDIS_PEER_STYLES)
    looks = [charts.style(name) for name in redis_modes]
    assert len({look.colour for look in looks}) == len(redis_modes)
    assert all(charts.style(m.name).hollow for m in redis_clients.redis_modes() if m.peer)


def test_an_unknown_mode_gets_a_style_no_known_mode_has() -> None:
    known = {(look.colour, look.marker, look.fill) for look in charts.STYLES.values()}
    for name in ("emulated-pool-w50", "emulated-pool-w7", "some-future-mode"):
        look = charts.style(name)
        assert look == charts.style(name)
        assert look.colour not in {k.colour for k in charts.STYLES.values()}
        assert look.fill not in {"full", "none"}  # half-filled: never a known mode's marker
        assert (look.colour, look.marker, look.fill) not in known
    assert charts.style("emulated-pool-w50") != charts.style("emulated-pool-w7")


STYLE_NAMES = ["sync", "emulated-pool", "asyncio.to_thread", "emulated-pool-w50", "emulated-pool-w8",
               "something-new"]


@pytest.mark.parametrize("seed", ["0", "12345"])
def test_styles_are_the_same_in_a_fresh_process(seed: str) -> None:
    run = subprocess.run(
        [sys.executable, "-c",
         "import json, sys; from dualio.lab.bench.charts import style; "
         "print(json.dumps([repr(style(n)) for n in sys.argv[1:]]))", *STYLE_NAMES],
        capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONHASHSEED": seed},
        check=True,
    )
    assert json.loads(run.stdout) == [repr(charts.style(name)) for name in STYLE_NAMES]


def test_model_kinds_follow_the_modes() -> None:
    for mode in ("sync", "portal", "anyio-portal", "synchronicity"):
        assert charts.model_kind(mode) == charts.SEQUENTIAL_MODEL
    for mode in ("emulated-pool", "emulated-pool-w50", "asyncio.to_thread", "anyio.to_thread"):
        assert charts.model_kind(mode) == charts.POOL_MODEL
    for mode in ("native-asyncio", "emulated-callback", "trio-peer"):
        assert charts.model_kind(mode) == charts.NATIVE_MODEL
    for mode in ("threads", "portal-threads", "anyio-portal-threads", "synchronicity-threads"):
        assert charts.model_kind(mode) == charts.THREAD_MODEL  # F + N·c, F the thread floor
    for mode in all_modes(workers=50):
        if mode.workers and mode.family != "sync":
            assert charts.model_kind(mode.name) == charts.POOL_MODEL, mode.name


def test_interval_reads_tuples_and_json_lists() -> None:
    cell = fanout_cell("sync", 10, 0.5)
    assert charts.interval(cell, "wall_s") is None
    with_interval(cell, "wall_s", 0.4, 0.6)
    assert charts.interval(cell, "wall_s") == (0.4, 0.6)
    setattr(cell, "interval", {"wall_s": [0.45, 0.55]})  # noqa: B010  # as read back from JSON
    assert charts.interval(cell, "wall_s") == (0.45, 0.55)
    assert charts.interval(cell, "ops_per_s") is None
    setattr(cell, "rounds", 1)  # noqa: B010  # one round: no spread to show
    assert charts.interval(cell, "wall_s") is None


def test_redraw_from_results_json(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    cells = [c.to_json() for c in sample_cells()]
    cells[0]["a_key_from_a_later_version"] = 1
    source = tmp_path / "results.json"
    source.write_text(json.dumps({"meta": {}, "cells": cells}))
    loaded = charts.load_cells(source)
    assert [c.mode for c in loaded] == [c["mode"] for c in cells]
    assert charts.main([str(source)]) == 0
    assert (tmp_path / "fanout.png").read_bytes()[:8] == PNG_SIGNATURE


@pytest.mark.parametrize("content", [None, "not json", '{"cells": [{"mode": "sync"}]}'])
def test_redraw_from_a_bad_file_is_one_line(tmp_path: Path, content: str | None,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "results.json"
    if content is not None:
        source.write_text(content)
    assert charts.main([str(source)]) == 2
    error = capsys.readouterr().err
    assert error.startswith("charts: cannot read") and error.count("\n") == 1
