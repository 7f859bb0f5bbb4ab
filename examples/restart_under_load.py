"""Users keep calling while the server is killed and restarted: what the client does about it.

    python examples/restart_under_load.py [--users 50] [--seconds 20] [--restart-after 5] [--down 2]
                                          [--clients shared|per-user] [--timeout 5] [--attempts 5]

Starts ``dualio serve`` on a free port, runs ``--users`` threads that call ``echo`` and
``upper`` with payloads nobody else sends, kills the server (SIGKILL) after
``--restart-after`` seconds and starts it again on the same port ``--down`` seconds
later. By default the users share one ``dualio_sync.Client`` (it is thread-safe and
multiplexes their calls on one connection, so one reconnect serves them all);
``--clients per-user`` gives each user a client of its own (one connection each, all
reconnecting at once, with jitter).

At the end it prints the calls answered, those failed by error type, the calls in
flight when the server died and what became of them, misrouted answers (someone
else's), lost calls (neither answered nor failed with a typed dualio error: another
exception, or still hanging well past their timeout), and the time from the server's
return to the first call answered after it. Exits 1 if a call was lost or misrouted,
or if no call succeeded after the restart.
"""

from __future__ import annotations

import argparse
import random
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from dualio_sync import Client, DualioError, RetryPolicy

HANG_GRACE = 5.0  # seconds past its timeout after which a call still waiting counts as lost


def free_port() -> int:
    """A port nobody listens on, outside the ephemeral range (no outgoing connection of
    this machine is given it while the server is down)."""
    rng = random.Random()
    while True:
        port = rng.randrange(20000, 32000)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port


def start_server(port: int) -> subprocess.Popen[str]:
    """``dualio serve`` on ``port``, once it listens."""
    process = subprocess.Popen(
        [sys.executable, "-m", "dualio", "serve", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    process.stdout.close()
    if not line.startswith("listening on "):
        process.kill()
        raise RuntimeError(f"the server did not start on port {port} (exit {process.wait()})")
    return process


@dataclass
class User:
    """One user's calls and what became of them."""

    n: int
    client: Client
    ok: list[float] = field(default_factory=list)  # when each answer arrived
    failed: Counter[str] = field(default_factory=Counter)
    misrouted: list[str] = field(default_factory=list)
    untyped: list[str] = field(default_factory=list)  # lost: not a dualio error
    spans: list[tuple[float, float, str]] = field(default_factory=list)  # (start, end, outcome)
    calling_since: float | None = None  # set while a call is out

    def run(self, until: float, delay: float) -> None:
        i = 0
        while time.monotonic() < until:
            i += 1
            text = f"user {self.n} call {i} {random.getrandbits(64):x}"
            begun = self.calling_since = time.monotonic()
            try:
                if i % 2:
                    right = self.client.echo(text.encode(), delay=delay) == text.encode()
                else:
                    answer = self.client.upper(text, delay=delay)
                    right = answer == text.upper()
                outcome = "ok" if right else "misrouted"
            except DualioError as exc:
                outcome = type(exc).__name__
            except Exception as exc:
                outcome = "untyped"
                self.untyped.append(f"{type(exc).__name__}: {exc}")
            ended = time.monotonic()
            self.calling_since = None
            self.spans.append((begun, ended, outcome))
            if outcome == "ok":
                self.ok.append(ended)
            elif outcome == "misrouted":
                self.misrouted.append(text)
            elif outcome != "untyped":
                self.failed[outcome] += 1


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--users", type=int, default=50, help="concurrent user threads")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the users call")
    parser.add_argument("--restart-after", type=float, default=5.0, help="kill the server after this")
    parser.add_argument("--down", type=float, default=2.0, help="seconds before it is started again")
    parser.add_argument("--clients", choices=("shared", "per-user"), default="shared",
                        help="one Client for all users (default), or one each")
    parser.add_argument("--timeout", type=float, default=5.0, help="each call's timeout")
    parser.add_argument("--attempts", type=int, default=RetryPolicy().attempts,
                        help="retries after the first try (RetryPolicy.attempts; default: no count, "
                             "as many as each call's timeout allows)")
    parser.add_argument("--delay", type=float, default=0.01, help="server-side delay of each call")
    args = parser.parse_args()
    if args.users < 1:
        parser.error("--users must be >= 1")
    if args.seconds <= 0 or args.restart_after <= 0 or args.timeout <= 0:
        parser.error("--seconds, --restart-after and --timeout must be > 0")
    if args.down < 0 or args.delay < 0 or (args.attempts is not None and args.attempts < 0):
        parser.error("--down, --delay and --attempts must be >= 0")
    if args.restart_after + args.down >= args.seconds:
        parser.error("--restart-after + --down must be less than --seconds")

    port = free_port()
    retry = RetryPolicy(attempts=args.attempts)
    server = start_server(port)
    clients: list[Client] = []
    try:
        def new_client() -> Client:
            client = Client("127.0.0.1", port, timeout=args.timeout, retry=retry)
            clients.append(client)
            return client

        shared = new_client() if args.clients == "shared" else None
        users = [User(n, shared or new_client()) for n in range(args.users)]
        began = time.monotonic()
        until = began + args.seconds
        threads = [
            threading.Thread(target=user.run, args=(until, args.delay), name=f"user-{user.n}", daemon=True)
            for user in users
        ]
        for thread in threads:
            thread.start()

        time.sleep(max(0.0, began + args.restart_after - time.monotonic()))
        server.kill()
        server.wait()
        killed_at = time.monotonic()
        time.sleep(args.down)
        server = start_server(port)
        back_at = time.monotonic()

        # Every call ends within its timeout (plus what a reconnect may add): one still
        # out long after that is lost.
        deadline = until + args.timeout + HANG_GRACE
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        hung = [user for user in users if user.calling_since is not None]
    finally:
        for client in clients:
            try:
                client.close()
            except DualioError:
                pass
        server.kill()
        server.wait()

    ok = sum(len(user.ok) for user in users)
    failed: Counter[str] = Counter()
    for user in users:
        failed.update(user.failed)
    misrouted = [text for user in users for text in user.misrouted]
    untyped = [text for user in users for text in user.untyped]
    lost = len(untyped) + len(hung)
    in_flight = [
        outcome for user in users for begun, ended, outcome in user.spans if begun <= killed_at < ended
    ]
    rescued = sum(1 for outcome in in_flight if outcome == "ok")
    after = [ended for user in users for ended in user.ok if ended > back_at]
    first_after = min(after) - back_at if after else None

    kind = "one shared Client" if args.clients == "shared" else f"{args.users} Clients (one per user)"
    print(f"restart_under_load: {args.users} users, {kind}, {args.seconds:g} s, timeout {args.timeout:g} s, "
          f"RetryPolicy(attempts={args.attempts})")
    print(f"server on 127.0.0.1:{port}: killed at {killed_at - began:.2f} s, "
          f"back at {back_at - began:.2f} s (down {back_at - killed_at:.2f} s)")
    print(f"{'calls ok':<28}{ok:>8}")
    print(f"{'calls failed':<28}{sum(failed.values()):>8}")
    for name, count in failed.most_common():
        print(f"  {name:<26}{count:>8}")
    print(f"{'in flight when killed':<28}{len(in_flight):>8}  ({rescued} answered after a retry, "
          f"{len(in_flight) - rescued} failed)")
    print(f"{'misrouted':<28}{len(misrouted):>8}")
    print(f"{'lost':<28}{lost:>8}")
    for text in untyped[:5]:
        print(f"  untyped error: {text}")
    for user in hung[:5]:
        assert user.calling_since is not None
        print(f"  user {user.n}: a call still out after {time.monotonic() - user.calling_since:.1f} s")
    for text in misrouted[:5]:
        print(f"  misrouted: {text}")
    if first_after is None:
        print("first success after the return: none")
    else:
        print(f"first success after the return: {first_after:.3f} s")
    if misrouted or lost or first_after is None:
        print("result: FAILED")
        return 1
    print("result: OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
