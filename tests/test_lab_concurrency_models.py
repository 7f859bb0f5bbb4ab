"""The lab's ``models`` scenario: the source's five rows under its names and with its
set-up (a process per task, the default thread pool for asyncio's CPU work), two
labelled pool rows beside them, every result checked, against the real server."""

from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from typing import cast

import pytest

from dualio.lab.bench import concurrency_models
from tests.conftest import ServerProcess

pytestmark = pytest.mark.timeout(120)

CALLS = 3
DELAY = 0.05


def where(seed: int) -> tuple[int, int, str]:
    """Who ran a task: (seed, process id, thread name)."""
    return seed, os.getpid(), threading.current_thread().name


def test_the_source_rows_come_first_under_the_source_names() -> None:
    assert concurrency_models.MODELS[:5] == ("sequential", "threads", "processes", "gevent", "asyncio")
    extras = concurrency_models.MODELS[5:]
    assert extras == (f"processes (pool of {concurrency_models.POOL_WORKERS})", "asyncio + process pool")
    assert set(concurrency_models.NOTES) == set(concurrency_models.MODELS)
    assert all(concurrency_models.NOTES[m].startswith("source set-up") for m in concurrency_models.MODELS[:5])
    assert all(concurrency_models.NOTES[m].startswith("not in the source") for m in extras)


@pytest.mark.parametrize("model", concurrency_models.MODELS)
def test_each_model_runs_both_workloads_and_checks_them(server: ServerProcess, model: str) -> None:
    if concurrency_models.missing(model):
        pytest.skip(concurrency_models.missing(model))
    result = concurrency_models.measure(model, *server.address, CALLS, DELAY)
    assert "error" not in result, result
    assert result["model"] == model and result["ok"] is True
    cpu_s, io_s = result["cpu_s"], result["io_s"]
    assert isinstance(cpu_s, float) and isinstance(io_s, float)
    assert cpu_s > 0
    assert io_s >= (CALLS * DELAY if model == "sequential" else DELAY)


def test_the_cpu_work_is_checked() -> None:
    expected = [concurrency_models.cpu_expected(i) for i in range(2)]
    assert [concurrency_models.cpu_task(i) for i in range(2)] == expected
    right = [concurrency_models.cpu_expected(i) for i in range(3)]
    assert concurrency_models._checked(right, [True] * 3)
    assert not concurrency_models._checked([right[0], right[1] + 1, right[2]], [True] * 3)
    assert not concurrency_models._checked(right[::-1], [True] * 3)
    assert not concurrency_models._checked(right, [True, None, True])  # a task that died


def test_one_process_per_task() -> None:
    ran = concurrency_models.one_process_each(where, [(i,) for i in range(5)])
    assert [r[0] for r in ran if r] == list(range(5))
    pids = {r[1] for r in ran if r}
    assert len(pids) == 5 and os.getpid() not in pids
    assert multiprocessing.active_children() == []


def test_a_process_that_dies_gives_no_result() -> None:
    assert concurrency_models.one_process_each(os._exit, [(3,), (4,)]) == [None, None]


def test_one_process_per_task_is_bounded() -> None:
    with pytest.raises(ValueError, match="limited to 200 tasks, asked for 201"):
        concurrency_models.one_process_each(where, [(i,) for i in range(201)])
    assert multiprocessing.active_children() == []  # refused before starting any
    result = concurrency_models.measure("processes", "127.0.0.1", 1, 201, 0.0)
    assert result == {"error": "processes: one process per task is limited to 200 tasks, asked for 201"}


def test_one_thread_per_task() -> None:
    barrier = threading.Barrier(4, timeout=10)  # all four alive at once: four threads

    def meet(seed: int) -> tuple[int, int]:
        barrier.wait()
        return seed, threading.get_ident()

    ran = concurrency_models.one_thread_each(meet, [(i,) for i in range(4)])
    assert [r[0] for r in ran if r] == list(range(4))
    assert len({r[1] for r in ran if r}) == 4


def test_asyncio_cpu_work_goes_to_the_default_thread_pool_or_the_process_pool(
    server: ServerProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(concurrency_models, "cpu_task", where)
    (_, values), (_, answers) = concurrency_models._asyncio(*server.address, 4, 0.0, None)
    assert list(answers) == [True] * 4
    ran = cast(list[tuple[int, int, str]], list(values))
    assert [seed for seed, _, _ in ran] == list(range(4))
    assert {pid for _, pid, _ in ran} == {os.getpid()}
    assert all(name.startswith("asyncio_") for _, _, name in ran)  # the default executor's threads
    with ProcessPoolExecutor(2, mp_context=concurrency_models.process_context()) as pool:
        (_, values), _ = concurrency_models._asyncio(*server.address, 4, 0.0, pool)
    ran = cast(list[tuple[int, int, str]], list(values))
    assert [seed for seed, _, _ in ran] == list(range(4))
    assert os.getpid() not in {pid for _, pid, _ in ran}


@pytest.mark.parametrize(
    ("model", "calls", "delay", "says"),
    [("nope", 3, 0.1, "unknown model 'nope'"), ("threads", 0, 0.1, "calls must be >= 1"),
     ("threads", 3, -1.0, "delay >= 0"), ("threads", 3, float("nan"), "delay >= 0")],
    ids=["unknown-model", "no-calls", "negative-delay", "nan-delay"],
)
def test_bad_arguments_are_an_error_result(model: str, calls: int, delay: float, says: str) -> None:
    result = concurrency_models.measure(model, "127.0.0.1", 1, calls, delay)
    assert set(result) == {"error"} and says in str(result["error"]), result
