"""The echo-server experiment: N requests at once, one connection each, 100 ms on the server.

    python examples/echo_100ms.py [--requests 1000] [--delay 0.1]
                                  [--server-model both|async|threaded] [--host H --port P]

Each request opens its own native asyncio ``AsyncClient``, asks ``upper(text, delay=0.1)``
(the server waits 100 ms, like a database call, then answers upper-cased) and closes.
All N start together; every answer is checked. Runs against the embedded server in
each model (asyncio, and thread-per-connection), or once against ``--host/--port``.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import time
from contextlib import nullcontext

from dualio import AsyncClient, DualioError
from dualio.server.embedded import EmbeddedServer

SOURCE = {"threaded": {1000: 1.891, 10000: 36.851}, "async": {1000: 1.812, 10000: 20.066}}


async def one(host: str, port: int, i: int, delay: float) -> bool:
    async with AsyncClient(host, port, timeout=120.0, connect_timeout=60.0) as client:
        return await client.upper(f"request {i}", delay=delay) == f"REQUEST {i}"


async def fan_out(host: str, port: int, n: int, delay: float) -> tuple[float, int, int]:
    """Wall seconds, right answers, failed requests."""
    started = time.perf_counter()
    results = await asyncio.gather(*(one(host, port, i, delay) for i in range(n)), return_exceptions=True)
    wall = time.perf_counter() - started
    errors = [r for r in results if isinstance(r, BaseException)]
    for error in errors[:3]:
        print(f"  error: {type(error).__name__}: {error}")
    if errors and not all(isinstance(e, (DualioError, OSError)) for e in errors):
        raise next(e for e in errors if not isinstance(e, (DualioError, OSError)))
    return wall, sum(r is True for r in results), len(errors)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", "-n", type=int, default=1000)
    parser.add_argument("--delay", type=float, default=0.1, help="server-side wait per request, seconds")
    parser.add_argument("--server-model", choices=("both", "async", "threaded"), default="both")
    parser.add_argument("--host")
    parser.add_argument("--port", type=int)
    args = parser.parse_args()
    if args.requests < 1:
        parser.error("--requests must be >= 1")
    if args.delay < 0:
        parser.error("--delay must be >= 0")
    if (args.host is None) != (args.port is None):
        parser.error("give both --host and --port, or neither (embedded server)")
    n, delay = args.requests, args.delay
    models = ["async", "threaded"] if args.server_model == "both" else [args.server_model]
    if args.host is not None:
        models = ["given"]

    print(f"{n} requests at once, one connection each, upper(text, delay={delay}); client: native asyncio")
    print(f"{'server':<10}{'wall s':>9}{'right':>8}{'failed':>8}{'req/s':>9}{'source s':>10}")
    all_right = True
    for model in models:
        embedded = EmbeddedServer(model=model) if model != "given" else nullcontext()  # type: ignore[arg-type]
        with embedded as server:
            host = args.host or server.host  # type: ignore[union-attr]
            port = args.port or server.port  # type: ignore[union-attr]
            fd_limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
            if model != "given" and 2 * n + 64 > fd_limit:
                print(f"  note: client and server share this process, 2 fds a request, limit {fd_limit}:"
                      " expect 'Too many open files'; run `dualio serve` and pass --host/--port")
            wall, right, failed = asyncio.run(fan_out(host, port, n, delay))
        source = SOURCE.get(model, {}).get(n)
        shown = f"{source:.3f}" if source is not None else "-"
        print(f"{model:<10}{wall:>9.3f}{right:>8}{failed:>8}{n / wall:>9.0f}{shown:>10}")
        all_right = all_right and right == n
    print("source: MacBook Pro i7, 4 cores, socketserver threads vs asyncio Protocol server")
    if not all_right:
        print("FAILED: not every request got its own text back upper-cased")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
