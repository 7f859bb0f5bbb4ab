"""First contact with the async face: every method once, each result printed.

    python examples/hello_async.py [--backend asyncio|trio] [--transport native|emulated]
                                   [--delay 0.2] [--words 5] [--blob-size 65536] [--host H --port P]

Runs on asyncio by default (through anyio.run, so ``--backend trio`` is the same code).
Starts an embedded server when no address is given.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Awaitable, Callable
from contextlib import nullcontext

import anyio

from dualio import AsyncClient, DualioError, ServerStats
from dualio.server.embedded import EmbeddedServer


def brief(stats: ServerStats) -> str:
    return f"open={stats.connections_open} served={stats.requests_served} errors={stats.errors}"


def tour(
    client: AsyncClient, delay: float, words: int, blob_size: int
) -> list[tuple[str, Callable[[], Awaitable[str]]]]:
    """One (label, call) pair per method of the service; each call returns what to print."""

    async def echo() -> str:
        return repr(await client.echo(b"hello"))

    async def upper() -> str:
        return repr(await client.upper("slow", delay=delay))

    async def sleep() -> str:
        await client.sleep(delay)
        return "returned"

    async def blob() -> str:
        return f"{len(await client.blob(blob_size, seed=7))} bytes, verified"

    async def stream() -> str:
        return " ".join([word async for word in client.words(words, wait=0.01)])

    async def stats() -> str:
        return brief(await client.stats())

    async def ping() -> str:
        return f"{await client.ping() * 1e6:.0f} us round trip"

    return [
        ('echo(b"hello")', echo), (f'upper("slow", delay={delay})', upper), (f"sleep({delay})", sleep),
        (f"blob({blob_size}, seed=7)", blob), (f"words({words}, wait=0.01)", stream),
        ("stats()", stats), ("ping()", ping),
    ]


async def run(args: argparse.Namespace, host: str, port: int) -> None:
    async with AsyncClient(host, port, transport=args.transport) as client:
        print(f"{client!r} on {args.backend}")
        print(f"{'call':<28}{'result':<48}{'ms':>8}")
        for label, call in tour(client, args.delay, args.words, args.blob_size):
            started = time.perf_counter()
            text = await call()
            text = text if len(text) <= 46 else text[:43] + "..."
            print(f"{label:<28}{text:<48}{(time.perf_counter() - started) * 1000:>8.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    parser.add_argument("--transport", choices=("native", "emulated"), default="native")
    parser.add_argument("--delay", type=float, default=0.2, help="server-side delay of upper and sleep")
    parser.add_argument("--words", type=int, default=5, help="how many words to stream")
    parser.add_argument("--blob-size", type=int, default=65536, help="bytes asked of blob()")
    parser.add_argument("--host")
    parser.add_argument("--port", type=int)
    args = parser.parse_args()
    if args.delay < 0:
        parser.error("--delay must be >= 0")
    if args.words < 1 or args.blob_size < 1:
        parser.error("--words and --blob-size must be >= 1")
    if (args.host is None) != (args.port is None):
        parser.error("give both --host and --port, or neither (embedded server)")

    embedded = EmbeddedServer() if args.host is None else nullcontext()
    with embedded as server:
        host = args.host or server.host  # type: ignore[union-attr]
        port = args.port or server.port  # type: ignore[union-attr]
        try:
            anyio.run(run, args, host, port, backend=args.backend)
        except DualioError as exc:
            print(f"failed: {type(exc).__name__}: {exc}")
            return 1
    print("all 7 methods ok")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
