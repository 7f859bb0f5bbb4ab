"""The client's own CPU per call, with no server: both faces against a fake peer.

    python -m dualio.lab.instructions.client_cost [--calls 20000] [--rounds 7] [--in-flight 100]

A server, a kernel and a scheduler make loopback timings noisy and mix their
cost into the client's. Here the peer is fake: it answers in the client's own
thread, from the request's header, with work that costs next to nothing and is
the same for dualio and for the *raw* loop beside it (the least a client can do:
write a frame, wait, read a frame, match its id). So ``dualio − raw`` is what
dualio's own Python costs per call; each figure is process CPU time per call, the
median of ``--rounds`` interleaved rounds, with the spread (min..max).

- **sync**: ``dualio_sync.Client.echo`` over the blocking transport, on a fake
  socket whose readiness is a real pipe (so ``poll`` works as on a socket, and a
  pipe write and read stand for the kernel's part, paid by the raw loop too).
- **native, sequential** and **native, N in flight**: ``AsyncClient.echo`` over
  the asyncio fast path, on a fake ``asyncio.Transport`` that hands each answer
  to the protocol on the next loop pass, as a socket would.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from dataclasses import dataclass

from dualio.lab.instructions.call_loops import native_dualio, native_raw, sync_dualio, sync_raw

CLOCK = time.process_time


# -- rounds ------------------------------------------------------------------------------

@dataclass
class Figure:
    name: str
    raw: list[float]
    dualio: list[float]

    def own(self) -> list[float]:
        return sorted(d - r for d, r in zip(self.dualio, self.raw, strict=True))

    def line(self) -> str:
        def us(values: list[float]) -> str:
            med = statistics.median(values) * 1e6
            return f"{med:6.2f} ({min(values) * 1e6:5.2f}..{max(values) * 1e6:5.2f})"
        return f"{self.name:<28} {us(self.raw)}  {us(self.dualio)}  {us(self.own())}"


def measure(calls: int, rounds: int, in_flight: int) -> list[Figure]:
    figures = [Figure("sync", [], []), Figure("native, sequential", [], []),
               Figure(f"native, {in_flight} in flight", [], [])]
    for _ in range(rounds):  # interleaved: each round measures every figure, raw then dualio
        figures[0].raw.append(sync_raw(calls, CLOCK))
        figures[0].dualio.append(sync_dualio(calls, CLOCK))
        figures[1].raw.append(asyncio.run(native_raw(calls, 1, CLOCK)))
        figures[1].dualio.append(asyncio.run(native_dualio(calls, 1, CLOCK)))
        figures[2].raw.append(asyncio.run(native_raw(calls, in_flight, CLOCK)))
        figures[2].dualio.append(asyncio.run(native_dualio(calls, in_flight, CLOCK)))
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dualio.lab.instructions.client_cost",
        description="the client's own CPU per call, no server",
    )
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--in-flight", type=int, default=100)
    args = parser.parse_args(argv)
    if args.calls < args.in_flight or args.rounds < 1 or args.in_flight < 1:
        parser.error("need --rounds >= 1, --in-flight >= 1 and --calls >= --in-flight")
    figures = measure(args.calls, args.rounds, args.in_flight)
    print(f"client CPU per call, µs: median (min..max) of {args.rounds} rounds of {args.calls} calls")
    print(f"{'':<28} {'raw loop':<21}  {'dualio':<21}  {'dualio - raw (own)':<21}")
    for figure in figures:
        print(figure.line())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
