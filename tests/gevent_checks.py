"""The blocking ``Client`` under ``gevent.monkey.patch_all()``, in a process of its own.

    python tests/gevent_checks.py HOST PORT

Patching must come before anything else is imported, so this runs apart from pytest
(tests/test_gevent.py starts it). Each check prints ``ok NAME: ...`` or
``FAIL NAME: ...``; the exit status is 0 only when every check passed.
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import random  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import gevent  # noqa: E402

from dualio_sync import Client, DualioTimeout  # noqa: E402
from dualio_transports.dualio_protocol.methods import word_at  # noqa: E402

WAIT = 0.1  # what each call waits on the server
LIMIT = 3.0  # well under 500 x WAIT: the waits overlap


class CheckFailed(Exception):
    pass


def expect(condition: bool, why: str) -> None:
    if not condition:
        raise CheckFailed(why)


def waiting_call(client: Client, n: int) -> str | None:
    """A call that waits WAIT on the server and answers something only this greenlet can
    check: ``sleep`` (answers None) or ``echo`` of its own payload."""
    if n % 2:
        payload = b"greenlet %d" % n
        answer = client.echo(payload, delay=WAIT)
        return None if answer == payload else f"{n}: {answer!r}"
    answered = client.sleep(WAIT)
    return None if answered is None else f"{n}: sleep answered {answered!r}"


def run_all(greenlets: list[gevent.Greenlet[..., str | None]], limit: float) -> list[str]:
    """Join, then the problems: wrong answers, errors, greenlets still running."""
    gevent.joinall(greenlets, timeout=limit + 10)
    problems = []
    for g in greenlets:
        if not g.dead:
            problems.append("still running")
            g.kill()
        elif g.exception is not None:
            problems.append(f"{type(g.exception).__name__}: {g.exception}")
        elif g.value is not None:
            problems.append(g.value)
    return problems


def shared_client(host: str, port: int) -> str:
    with Client(host, port, timeout=10) as client:
        before = client.stats().connections_total
        started = time.perf_counter()
        greenlets = [gevent.spawn(waiting_call, client, n) for n in range(500)]
        problems = run_all(greenlets, LIMIT)
        took = time.perf_counter() - started
        expect(problems == [], f"{len(problems)} of 500 wrong: {problems[:3]}")
        expect(took < LIMIT, f"500 calls of {WAIT} s took {took:.2f} s")
        expect(client.stats().connections_total == before, "the shared client opened more connections")
    return f"500 greenlets, one Client: {took:.2f} s"


def client_per_greenlet(host: str, port: int) -> str:
    def own_client(n: int) -> str | None:
        with Client(host, port, timeout=10) as client:
            return waiting_call(client, n)

    started = time.perf_counter()
    problems = run_all([gevent.spawn(own_client, n) for n in range(100)], LIMIT)
    took = time.perf_counter() - started
    expect(problems == [], f"{len(problems)} of 100 wrong: {problems[:3]}")
    expect(took < LIMIT, f"100 clients each waiting {WAIT} s took {took:.2f} s")
    return f"100 greenlets, a Client each: {took:.2f} s"


def streams(host: str, port: int) -> str:
    count, wait = 20, 0.01
    expected = [word_at(i) for i in range(count)]

    def read(client: Client, n: int) -> str | None:
        got = list(client.words(count, wait=wait))
        return None if got == expected else f"stream {n}: {got}"

    with Client(host, port, timeout=10) as client:
        started = time.perf_counter()
        problems = run_all([gevent.spawn(read, client, n) for n in range(100)], LIMIT)
        took = time.perf_counter() - started
        expect(problems == [], f"{len(problems)} of 100 streams wrong: {problems[:3]}")
        expect(took < LIMIT, f"100 streams of {count} words {wait} s apart took {took:.2f} s")
    return f"100 streams of {count} words on one Client, every word in order: {took:.2f} s"


def call_timeout(host: str, port: int) -> str:
    with Client(host, port, timeout=10) as client:
        conn = client._conn
        others = [gevent.spawn(waiting_call, client, n) for n in range(50)]  # share the connection
        started = time.perf_counter()
        try:
            client.sleep(5, timeout=0.2)
        except DualioTimeout:
            took = time.perf_counter() - started
        else:
            raise CheckFailed("sleep(5) with timeout=0.2 returned")
        expect(0.18 < took < 3.0, f"the timeout was raised after {took:.2f} s")
        problems = run_all(others, LIMIT)
        expect(problems == [], f"calls beside the timed-out one: {problems[:3]}")
        expect(client.echo(b"after") == b"after", "the next call got a wrong answer")
        expect(client._conn is conn and not client.closed, "the connection was replaced")
    return f"DualioTimeout after {took:.2f} s, the connection kept"


def interrupted(host: str, port: int) -> str:
    """``gevent.Timeout`` (and ``Greenlet.kill``) interrupt a waiting call at any point:
    alone, beside other calls, and holding the reader role."""
    with Client(host, port, timeout=10) as client:
        conn = client._conn
        before = client.stats().connections_total
        took = []
        for round_ in range(3):
            others = [gevent.spawn(waiting_call, client, n) for n in range(round_ * 50)]
            started = time.perf_counter()
            try:
                with gevent.Timeout(0.2):
                    client.echo(b"interrupted", delay=1.0)
            except gevent.Timeout:
                took.append(time.perf_counter() - started)
            else:
                raise CheckFailed("echo(delay=1.0) inside gevent.Timeout(0.2) returned")
            expect(0.18 < took[-1] < 3.0, f"interrupted after {took[-1]:.2f} s")
            problems = run_all(others, LIMIT)
            expect(problems == [], f"calls beside the interrupted one: {problems[:3]}")
            answer = client.echo(b"next %d" % round_)
            expect(answer == b"next %d" % round_, f"the next call got {answer!r}")

        rng = random.Random(7)

        def maybe_interrupted(n: int) -> str | None:
            """Interrupted at a random moment, or answered: then with its own payload."""
            payload = b"maybe %d" % n
            with gevent.Timeout(rng.uniform(0, 2 * WAIT), False):
                answer = client.echo(payload, delay=WAIT)
                return None if answer == payload else f"{n}: {answer!r}"
            return "interrupted"

        outcomes = run_all([gevent.spawn(maybe_interrupted, n) for n in range(300)], LIMIT)
        stopped = outcomes.count("interrupted")
        wrong = [outcome for outcome in outcomes if outcome != "interrupted"]
        expect(wrong == [], f"answers under random interruptions: {wrong[:3]}")
        expect(0 < stopped <= 300, f"{stopped} of 300 interrupted: the interruptions missed")
        problems = run_all([gevent.spawn(waiting_call, client, n) for n in range(100)], LIMIT)
        expect(problems == [], f"after random interruptions: {problems[:3]}")

        stream = gevent.spawn(lambda: list(client.words(1000, wait=0.01)))
        gevent.sleep(0.1)
        stream.kill()  # GreenletExit in the middle of a stream
        expect(stream.dead, "the killed stream still runs")
        gevent.sleep(1.1)  # the late answers of the interrupted calls arrive, and are dropped
        answers = [client.upper(f"late {n}") for n in range(5)]
        expect(answers == [f"LATE {n}" for n in range(5)], f"after late answers: {answers}")
        expect(client._conn is conn and not client.closed,
               f"the connection was replaced (it ended with {conn.failure!r})")
        expect(client.stats().connections_total == before, "a new connection was opened")
    return (f"interrupted after {', '.join(f'{t:.2f}' for t in took)} s; {stopped} of 300 interrupted "
            "at random moments; the connection kept, no misrouted answer")


CHECKS: dict[str, Callable[[str, int], str]] = {
    "shared client": shared_client,
    "client per greenlet": client_per_greenlet,
    "streams": streams,
    "timeout": call_timeout,
    "gevent.Timeout": interrupted,
}


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[1].isdigit():
        print("usage: python tests/gevent_checks.py HOST PORT", file=sys.stderr)
        return 2
    host, port = argv[0], int(argv[1])
    expect(monkey.is_module_patched("socket") and monkey.is_module_patched("threading"),
           "gevent did not patch socket and threading")
    failed = 0
    for name, check in CHECKS.items():
        try:
            print(f"ok {name}: {check(host, port)}", flush=True)
        except Exception as exc:
            failed += 1
            print(f"FAIL {name}: {type(exc).__name__}: {exc}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
