"""The "is async worth it" experiment: 100 responses of 1 MiB, 50 in flight (ab -n 100 -c 50).

    python examples/blob.py [--requests 100] [--concurrency 50] [--size 1048576]
                            [--server-model both|async|threaded] [--client both|threads|asyncio]
                            [--host H --port P]

Every response is ``blob(size, seed=i)``, checked byte for byte on arrival. Clients:
``threads`` = C threads, each with its own ``Client`` (its own connection), taking the
next request number until all are done, like ab's C connections; ``asyncio`` = one
native ``AsyncClient``, C requests in flight on its one connection. The threaded server
serves one connection's requests one after another, so asyncio against it is the
single-threaded sync server of the source. Starts embedded servers unless given an address.
"""

from __future__ import annotations

import argparse
import asyncio
import threading
import time
from contextlib import nullcontext

from dualio import AsyncClient, DualioError
from dualio.server.embedded import EmbeddedServer
from dualio_sync import Client

SOURCE = ("source (Node.js, 1 MiB of /dev/urandom): async server 10.519 s, sync 14.188 s,"
          " 10-process cluster 10.331 s")


def with_threads(host: str, port: int, n: int, size: int, concurrency: int) -> int:
    """Returns the number of verified responses."""
    lock = threading.Lock()
    next_seed = iter(range(n))
    done: list[int] = []
    errors: list[BaseException] = []

    def connection() -> None:
        with Client(host, port, timeout=120.0) as client:
            while True:
                with lock:
                    seed = next(next_seed, None)
                if seed is None:
                    return
                try:
                    if len(client.blob(size, seed=seed)) == size:  # verify=True checks every byte
                        done.append(seed)
                except DualioError as exc:
                    errors.append(exc)

    threads = [threading.Thread(target=connection) for _ in range(min(concurrency, n))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for error in errors[:3]:
        print(f"  error: {type(error).__name__}: {error}")
    return len(done)


async def with_asyncio(host: str, port: int, n: int, size: int, concurrency: int) -> int:
    in_flight = asyncio.Semaphore(concurrency)

    async with AsyncClient(host, port, timeout=120.0) as client:

        async def one(seed: int) -> bool:
            async with in_flight:
                return len(await client.blob(size, seed=seed)) == size

        results = await asyncio.gather(*(one(i) for i in range(n)), return_exceptions=True)
    for error in [r for r in results if isinstance(r, BaseException)][:3]:
        print(f"  error: {type(error).__name__}: {error}")
    return sum(r is True for r in results)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", "-n", type=int, default=100)
    parser.add_argument("--concurrency", "-c", type=int, default=50)
    parser.add_argument("--size", type=int, default=1 << 20, help="bytes per response")
    parser.add_argument("--server-model", choices=("both", "async", "threaded"), default="both")
    parser.add_argument("--client", choices=("both", "threads", "asyncio"), default="both")
    parser.add_argument("--host")
    parser.add_argument("--port", type=int)
    args = parser.parse_args()
    if args.requests < 1 or args.concurrency < 1 or args.size < 1:
        parser.error("--requests, --concurrency and --size must be >= 1")
    if args.size > 16 * 1024 * 1024 - 64:
        parser.error("--size must fit in one frame (16 MiB)")
    if (args.host is None) != (args.port is None):
        parser.error("give both --host and --port, or neither (embedded server)")
    n, c, size = args.requests, args.concurrency, args.size
    models = ["async", "threaded"] if args.server_model == "both" else [args.server_model]
    models = ["given"] if args.host is not None else models
    clients = ["threads", "asyncio"] if args.client == "both" else [args.client]

    print(f"{n} x blob({size}) verified, {c} in flight")
    print(f"{'server':<10}{'client':<10}{'wall s':>9}{'ok':>6}{'MiB/s':>9}")
    all_ok = True
    for model in models:
        embedded = EmbeddedServer(model=model) if model != "given" else nullcontext()  # type: ignore[arg-type]
        with embedded as server:
            host = args.host or server.host  # type: ignore[union-attr]
            port = args.port or server.port  # type: ignore[union-attr]
            for kind in clients:
                started = time.perf_counter()
                if kind == "threads":
                    ok = with_threads(host, port, n, size, c)
                else:
                    ok = asyncio.run(with_asyncio(host, port, n, size, c))
                wall = time.perf_counter() - started
                print(f"{model:<10}{kind:<10}{wall:>9.3f}{ok:>6}{n * size / wall / 2**20:>9.1f}")
                all_ok = all_ok and ok == n
    print(SOURCE)
    if not all_ok:
        print("FAILED: not every response arrived intact")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
