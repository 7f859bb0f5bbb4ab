"""The failover harness (dualio/lab/failover.py), which ``make chaos`` and ``dualio bench
--scenario cluster`` run: a primary SIGKILLed under calls in flight, a tenth of them given
up at random, on a real Redis Cluster and through real sentinels. No reply may reach the
wrong caller, no call fails (each has 5 s, the failover takes 1-3 s), the calls succeed
again after the promotion, and what the client does to recover is bounded."""

from __future__ import annotations

import os
import shutil

import pytest

from dualio.lab import failover
from dualio.lab.common.redis_sets import NOT_INSTALLED_CLUSTER

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(shutil.which("redis-server") is None or shutil.which("redis-cli") is None,
                       reason=NOT_INSTALLED_CLUSTER),
]


@pytest.mark.parametrize("client", ["dualio-blocking", "dualio-asyncio"])
def test_a_killed_cluster_primary_under_load(client: str) -> None:
    tally = failover.run(client, "cluster", inflight=30, chaos=True, seed=3)
    assert tally.calls > 1000
    assert tally.wrong == 0
    assert dict(tally.errors) == {}, tally.error_samples
    assert tally.given_up > 0
    assert tally.recovered is not None and tally.recovered < 3.0  # about 0.1 s here
    assert tally.connections <= 6  # one: the promoted replica's
    assert tally.map_reads <= 10  # two or three: one a second at most


def test_a_primary_killed_behind_sentinels_under_load() -> None:
    tally = failover.run("dualio-trio", "sentinel", inflight=30, chaos=True, seed=4)
    assert tally.calls > 1000
    assert tally.wrong == 0
    assert dict(tally.errors) == {}, tally.error_samples
    assert tally.recovered is not None and tally.recovered < 5.0  # about 1 s: the sentinels name it late


def test_the_table_names_every_run() -> None:
    tallies = [failover.Tally("sentinel", "glide-async", skipped="valkey-glide has no Sentinel support"),
               failover.Tally("cluster", "dualio-blocking", calls=10, recovered=0.1)]
    text = failover.table(tallies)
    assert "| sentinel | glide-async | valkey-glide has no Sentinel support |" in text
    assert "| cluster | dualio-blocking |" in text and "+0.10" in text


def test_what_glide_s_core_writes_to_standard_error_is_kept_out_of_the_output_and_counted(
    capfd: pytest.CaptureFixture[str],
) -> None:
    with failover._stderr_kept("glide-sync"):
        os.write(2, b"Error executing command: one\nError executing command: two\n")
    with failover._stderr_kept("dualio-blocking"):
        os.write(2, b"ours\n")
    out, err = capfd.readouterr()
    assert "Error executing" not in err and "Error executing" not in out and err == "ours\n"
    assert "glide-sync's core wrote 2 lines to standard error" in out
