"""The lab's placement: servers on the first core, the lab on the others, models unpinned."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from dualio.lab.bench.placement import Placement

pytestmark = pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="placement needs sched_setaffinity and two cores",
)


def test_servers_and_client_get_disjoint_cores_and_models_get_them_all() -> None:
    every = set(os.sched_getaffinity(0))
    placement = Placement()
    assert placement.server == {min(every)} and placement.client == every - {min(every)}
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        placement.pin_server(child.pid)
        assert os.sched_getaffinity(child.pid) == placement.server
    finally:
        child.kill()
        child.wait()
    try:
        placement.for_scenario("throughput")
        assert os.sched_getaffinity(0) == placement.client
        placement.for_scenario("models")
        assert os.sched_getaffinity(0) == every
        placement.for_scenario("fanout")
        assert os.sched_getaffinity(0) == placement.client
    finally:
        placement.release()
    assert os.sched_getaffinity(0) == every
    assert placement.describe() == {
        "pinned": True, "server_cpus": [min(every)], "client_cpus": sorted(every - {min(every)}),
        "unpinned_scenarios": ["models"],
    }


def test_no_pin_leaves_everything_where_it_was() -> None:
    before = os.sched_getaffinity(0)
    placement = Placement(enabled=False)
    placement.for_scenario("throughput")
    placement.pin_server(os.getpid())
    assert os.sched_getaffinity(0) == before
    assert placement.describe() == {"pinned": False}
