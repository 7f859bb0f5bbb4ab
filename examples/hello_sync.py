"""First contact with the blocking face: every method once, each result printed.

    python examples/hello_sync.py [--delay 0.2] [--words 5] [--blob-size 65536] [--host H --port P]

Starts an embedded server when no address is given.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from contextlib import nullcontext

from dualio.server.embedded import EmbeddedServer
from dualio_sync import Client, DualioError, ServerStats


def brief(stats: ServerStats) -> str:
    return f"open={stats.connections_open} served={stats.requests_served} errors={stats.errors}"


def tour(client: Client, delay: float, words: int, blob_size: int) -> list[tuple[str, Callable[[], str]]]:
    """One (label, call) pair per method of the service; each call returns what to print."""

    def sleep() -> str:
        client.sleep(delay)
        return "returned"

    return [
        ('echo(b"hello")', lambda: repr(client.echo(b"hello"))),
        (f'upper("slow", delay={delay})', lambda: repr(client.upper("slow", delay=delay))),
        (f"sleep({delay})", sleep),
        (f"blob({blob_size}, seed=7)", lambda: f"{len(client.blob(blob_size, seed=7))} bytes, verified"),
        (f"words({words}, wait=0.01)", lambda: " ".join(client.words(words, wait=0.01))),
        ("stats()", lambda: brief(client.stats())),
        ("ping()", lambda: f"{client.ping() * 1e6:.0f} us round trip"),
    ]


def show(label: str, text: str, seconds: float) -> None:
    text = text if len(text) <= 46 else text[:43] + "..."
    print(f"{label:<28}{text:<48}{seconds * 1000:>8.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
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
        print(f"dualio_sync.Client -> {host}:{port}")
        print(f"{'call':<28}{'result':<48}{'ms':>8}")
        try:
            with Client(host, port) as client:
                for label, call in tour(client, args.delay, args.words, args.blob_size):
                    started = time.perf_counter()
                    result = call()
                    show(label, result, time.perf_counter() - started)
        except DualioError as exc:
            print(f"failed: {type(exc).__name__}: {exc}")
            return 1
    print("all 7 methods ok")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
