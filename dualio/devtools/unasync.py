"""Generate the blocking twins of async code: the calls every face makes, each
protocol's methods (the service's, Redis's), and the loop that runs a call's procedure.

    python -m dualio.devtools.unasync          # rewrite the generated files
    python -m dualio.devtools.unasync --check  # exit 1 if a generated file differs from
                                               # its source, or a rule matched nothing

One list of rules (:data:`RULES`), whole words applied in order, makes every file of the
blocking face from its async source, constructors and packages included; what only the
async face takes is one TypedDict (``AsyncOnly``), which the rules remove. A rule that no
longer matches anything in any source is an error too: it means the sources changed shape
and the rules should be read again.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from dualio import unasync
from dualio.unasync import Plan, Substitutions, run

ROOT = Path(__file__).resolve().parents[2]

OWN_RULES: Substitutions = [
    # imports: the async face's modules, and what only its code names
    (r"\bfrom dualio\.face_calls\b", "from dualio_sync.face_calls"),
    (r"\bfrom dualio\.face_connection\b", "from dualio_sync.face_connection"),
    (r"\bfrom dualio\.service_methods\b", "from dualio_sync.service_methods"),
    (r"\bfrom dualio\.redis\.commands\b", "from dualio_sync.redis.commands"),
    (r"\bfrom dualio\.redis\.methods\b", "from dualio_sync.redis.methods"),
    (r"\bfrom dualio\.redis\.watch\b", "from dualio_sync.redis.watch"),
    (r"\bfrom dualio\.redis\.lock\b", "from dualio_sync.redis.lock"),
    (r"\bfrom dualio\.redis\.method_support\b", "from dualio_sync.redis.method_support"),
    (r"\bfrom dualio\.redis\.client\b", "from dualio_sync.redis.client"),
    (r"\bfrom dualio\.redis\.cluster\b", "from dualio_sync.redis.cluster"),
    (r"\bfrom dualio\.redis\.sentinel\b", "from dualio_sync.redis.sentinel"),
    (r"^from anyio import Lock, sleep\n", "from threading import Lock\nfrom time import sleep\n"),
    (r"\bfrom dualio_transports\.policy\.together_async import together_async as together\b",
     "from dualio_transports.policy.together import together"),
    (r"\bfrom dualio_transports\.policy\.wakeup_async import WakeupAsync as Wakeup\b",
     "from dualio_transports.policy.wakeup import Wakeup"),
    (r"\bfrom dualio\.client\b", "from dualio_sync.client"),
    (r"^from dualio_transports\.emulation\.\w+ import [\w, ]+\n", ""),
    (r"^    \"(emulate_async|AwaitableCallback|EventedCallback|AsyncOnly)\",\n", ""),
    (r"\bimport AsyncGenerator, Awaitable, Callable, Iterable,", "import Callable, Generator, Iterable,"),
    (r"\bimport AsyncGenerator, Awaitable, Callable, Sequence\b", "import Callable, Generator, Sequence"),
    (r"\bimport AsyncGenerator, Awaitable, ", "import "),
    # the faces' names
    (r"\bAsyncCalls\b", "Calls"),
    (r"\bAsyncTransport\b", "BlockingTransport"),
    (r"\bAsyncServiceMethods\b", "ServiceMethods"),
    (r"\bAsyncRedisCommands\b", "RedisCommands"),
    (r"\bAsyncMethods\b", "Methods"),
    (r"\bAsyncMethodSupport\b", "MethodSupport"),
    (r"\bAsyncScript\b", "Script"),
    (r"\bAsyncWatch\b", "Watch"),
    (r"\bAsyncClusterWatch\b", "ClusterWatch"),
    (r"\bAsyncClusterSubscription\b", "ClusterSubscription"),
    (r"\bAsyncLock\b", "Lock"),
    (r"\bAsyncSubscription\b", "Subscription"),
    (r"\bAsyncClient\b", "Client"),
]
"""What only dualio's own faces need, each rule matching something, before the rules every
author's face gets (:data:`dualio.unasync.RULES`: the toolkit, ``AsyncOnly``, coroutines)."""
RULES: Substitutions = OWN_RULES + unasync.RULES
"""The one list of rules that makes the blocking face from the async one: whole words,
applied in order (multi-line), to every generated file."""


def _docstring(what: str, source: str) -> str:
    return (f'"""{what}\n\nGENERATED from {source} by dualio/devtools/unasync.py: do not edit.\n'
            'Edit the source, then run ``python -m dualio.devtools.unasync``.\n"""\n')


# source -> generated, with the docstring that replaces the source's
FILES: dict[str, tuple[str, str]] = {
    "dualio/face_calls.py": (
        "dualio_sync/face_calls.py",
        _docstring("The calls every blocking face makes, whatever the protocol.", "dualio/face_calls.py"),
    ),
    "dualio/service_methods.py": (
        "dualio_sync/service_methods.py",
        _docstring("The service methods of the blocking face.", "dualio/service_methods.py"),
    ),
    "dualio/client.py": (
        "dualio_sync/client.py",
        _docstring('The blocking face: ``with Client(host, port) as c: c.echo(b"hi")``.', "dualio/client.py"),
    ),
    "dualio/toolkit.py": (
        "dualio_sync/toolkit.py",
        _docstring("Your protocol on dualio's blocking face: everything a protocol's author needs, "
                   "in one module\n(docs/extending.md).", "dualio/toolkit.py"),
    ),
    "dualio/__init__.py": (
        "dualio_sync/__init__.py",
        _docstring("dualio's blocking face: ``from dualio_sync import Client``.", "dualio/__init__.py"),
    ),
    "dualio/redis/commands.py": (
        "dualio_sync/redis/commands.py",
        _docstring("The Redis commands of the blocking face, and ``redis://`` URLs.",
                   "dualio/redis/commands.py"),
    ),
    "dualio/redis/method_support.py": (
        "dualio_sync/redis/method_support.py",
        _docstring("What the blocking face's Redis command methods stand on.",
                   "dualio/redis/method_support.py"),
    ),
    "dualio/redis/methods.py": (
        "dualio_sync/redis/methods.py",
        _docstring("Every Redis command a typed method of the blocking face.", "dualio/redis/methods.py"),
    ),
    "dualio/redis/watch.py": (
        "dualio_sync/redis/watch.py",
        _docstring("Optimistic transactions on the blocking face: WATCH on a connection of its own.",
                   "dualio/redis/watch.py"),
    ),
    "dualio/redis/lock.py": (
        "dualio_sync/redis/lock.py",
        _docstring('A lock on one Redis server, blocking face: ``with r.lock("report", lease=10):``.',
                   "dualio/redis/lock.py"),
    ),
    "dualio/redis/cluster.py": (
        "dualio_sync/redis/cluster.py",
        _docstring('Redis Cluster, blocking face: ``with RedisCluster("127.0.0.1", 7000) as rc: '
                   'rc.set("k", "v")``.', "dualio/redis/cluster.py"),
    ),
    "dualio/redis/sentinel.py": (
        "dualio_sync/redis/sentinel.py",
        _docstring('Redis Sentinel, blocking face: ``Redis(sentinels=[("127.0.0.1", 26379)], '
                   'service_name="mymaster")``.', "dualio/redis/sentinel.py"),
    ),
    "dualio/redis/client.py": (
        "dualio_sync/redis/client.py",
        _docstring('The blocking Redis face: ``with Redis() as r: r.set("k", "v")``.',
                   "dualio/redis/client.py"),
    ),
    "dualio/redis/__init__.py": (
        "dualio_sync/redis/__init__.py",
        _docstring("dualio's blocking Redis face: ``from dualio_sync.redis import Redis`` (docs/redis.md).",
                   "dualio/redis/__init__.py"),
    ),
    "transports/async_driver.py": (
        "transports/blocking/driver.py",
        _docstring("Running a call's procedure (:mod:`dualio_transports.wire.procedure`) from a thread.",
                   "transports/async_driver.py"),
    ),
}

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, don't write")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this one)")
    args = parser.parse_args(argv)
    root: Path = args.root
    files = {root / source: root / target for source, (target, _) in FILES.items()}
    docstrings = {root / source: docstring for source, (_, docstring) in FILES.items()}
    plan = Plan(files, RULES, OWN_RULES, lambda path, _: docstrings[path])
    return run(plan, check=args.check, root=root)


if __name__ == "__main__":
    raise SystemExit(main())
