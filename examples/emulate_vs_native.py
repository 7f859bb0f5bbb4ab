"""N concurrent sleep(Y) calls through each async mode: native vs emulated.

    python examples/emulate_vs_native.py [--calls 1000] [--seconds 0.1] [--host H --port P]

Starts an embedded server when no address is given. The model beside each
pool row is ceil(N / W) * Y: W workers each hold one call for its whole round trip.
"""

from __future__ import annotations

import argparse
import functools
import math
import threading
import time
from contextlib import nullcontext
from typing import Any

import anyio

from dualio import AsyncClient
from dualio.server.embedded import EmbeddedServer
from dualio_transports.emulation.adapter import default_workers


async def fan_out(host: str, port: int, calls: int, seconds: float, **mode: Any) -> tuple[float, int]:
    peak = threading.active_count()
    async with AsyncClient(host, port, timeout=max(60.0, calls * seconds), **mode) as client:
        started = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for _ in range(calls):
                tg.start_soon(client.sleep, seconds)
        elapsed = time.perf_counter() - started
        peak = max(peak, threading.active_count())
    return elapsed, peak


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=0.1)
    parser.add_argument("--host")
    parser.add_argument("--port", type=int)
    args = parser.parse_args()
    if args.calls < 1 or args.seconds <= 0:
        parser.error("--calls must be >= 1 and --seconds > 0")
    if (args.host is None) != (args.port is None):
        parser.error("give --host and --port together, or neither for an embedded server")
    n, y = args.calls, args.seconds
    modes: list[tuple[str, dict[str, Any], int | None]] = [
        ("native", {"transport": "native"}, None),
        (f"pool W={default_workers()} (default executor)", {"transport": "emulated"}, default_workers()),
        ("pool W=50", {"transport": "emulated", "max_workers": 50}, 50),
        ("thread", {"transport": "emulated", "emulation": "thread"}, None),
        ("callback", {"transport": "emulated", "emulation": "callback"}, None),
    ]
    with EmbeddedServer() if args.host is None else nullcontext() as server:
        host = args.host if server is None else server.host
        port = args.port if server is None else server.port
        print(f"{n} concurrent sleep({y}) calls, server {host}:{port}")
        print(f"{'mode':<34}{'wall s':>9}{'model s':>9}{'ratio':>7}")
        for name, mode, workers in modes:
            elapsed = anyio.run(functools.partial(fan_out, host, port, n, y, **mode))[0]
            model = math.ceil(n / workers) * y if workers else y
            print(f"{name:<34}{elapsed:>9.3f}{model:>9.3f}{elapsed / model:>7.2f}")


if __name__ == "__main__":
    main()
