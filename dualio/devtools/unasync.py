"""Generate the blocking twins of async code: the calls every face makes, each
protocol's methods (the service's, Redis's), and the loop that runs a call's procedure.

    python -m dualio.devtools.unasync          # rewrite the generated files
    python -m dualio.devtools.unasync --check  # exit 1 if a generated file differs from
                                               # its source, or a substitution matched nothing

The substitutions are whole words, applied in order. One that no longer matches
anything is an error too: it means the source changed shape and the rules
should be read again.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

Substitutions = list[tuple[str, str]]

CALLS: Substitutions = [
    (r"\bawait (\w+)\.aclose\(\)", r"\1.close()"),
    (r"\basync for\b", "for"),
    (r"\basync def\b", "def"),
    (r"\bawait ", ""),
    (r"\bAsyncCalls\b", "Calls"),
    (r"\bAsyncTransport\b", "BlockingTransport"),
    (r"\bAsyncGenerator\[(\w+), None\]", r"Generator[\1, None, None]"),
    (r"\bAsyncGenerator\b", "Generator"),
]
"""The calls every face makes (dualio/face_calls.py)."""
FACE: Substitutions = [
    (r"\bfrom dualio\.face_calls\b", "from dualio_sync.face_calls"),
    (r"\basync def\b", "def"),
    (r"\bawait ", ""),
    (r"\bAsyncCalls\b", "Calls"),
    (r"\bAsyncServiceMethods\b", "ServiceMethods"),
    (r"\bAsyncIterator\b", "Iterator"),
]
"""The service methods of protocol v1 (dualio/service_methods.py)."""
REDIS: Substitutions = [
    (r"\bfrom dualio\.face_calls\b", "from dualio_sync.face_calls"),
    (r"\basync def\b", "def"),
    (r"\bawait ", ""),
    (r"\bAsyncCalls\b", "Calls"),
    (r"\bAsyncRedisCommands\b", "RedisCommands"),
    (r"\bAsyncSubscription\b", "Subscription"),
    (r"\bAsyncGenerator\[(.+?), None\]", r"Generator[\1, None, None]"),
    (r"\bimport AsyncGenerator, Callable,", "import Callable, Generator,"),
    (r"\basync for\b", "for"),
    (r"\b__aenter__\b", "__enter__"),
    (r"\b__aexit__\b", "__exit__"),
    (r"\b__aiter__\b", "__iter__"),
    (r"\b__anext__\b", "__next__"),
    (r"\baclose\b", "close"),
    (r"\basync with\b", "with"),
]
"""The Redis commands (dualio/redis/commands.py)."""
DRIVER: Substitutions = [
    (r"\bAsyncGenerator, Awaitable, ", ""),
    (r"\bAsyncGenerator\[(\w+), None\]", r"Generator[\1, None, None]"),
    (r"\bAwaitable\[None\]", "None"),
    (r"\basync def\b", "def"),
    (r"\bawait ", ""),
]

# source -> generated, with its docstring (which replaces the source's) and its substitutions
FILES: dict[str, tuple[str, str, Substitutions]] = {
    "dualio/face_calls.py": (
        "dualio_sync/face_calls.py",
        '"""The calls every blocking face makes, whatever the protocol.\n\n'
        "GENERATED from dualio/face_calls.py by dualio/devtools/unasync.py: do not edit.\n"
        'Edit the source, then run ``python -m dualio.devtools.unasync``.\n"""\n',
        CALLS,
    ),
    "dualio/service_methods.py": (
        "dualio_sync/service_methods.py",
        '"""The service methods of the blocking face.\n\n'
        "GENERATED from dualio/service_methods.py by dualio/devtools/unasync.py: do not edit.\n"
        'Edit the source, then run ``python -m dualio.devtools.unasync``.\n"""\n',
        FACE,
    ),
    "dualio/redis/commands.py": (
        "dualio_sync/redis/commands.py",
        '"""The Redis commands of the blocking face, and ``redis://`` URLs.\n\n'
        "GENERATED from dualio/redis/commands.py by dualio/devtools/unasync.py: do not edit.\n"
        'Edit the source, then run ``python -m dualio.devtools.unasync``.\n"""\n',
        REDIS,
    ),
    "transports/async_driver.py": (
        "transports/blocking/driver.py",
        '"""Running a call\'s procedure (:mod:`dualio_transports.wire.procedure`) from a thread.\n\n'
        "GENERATED from transports/async_driver.py by dualio/devtools/unasync.py: do not edit.\n"
        'Edit the source, then run ``python -m dualio.devtools.unasync``.\n"""\n',
        DRIVER,
    ),
}

_DOCSTRING = re.compile(r'\A""".*?"""\n', re.DOTALL)


def generate(source: str, docstring: str, substitutions: Substitutions = FACE) -> tuple[str, list[str]]:
    """The generated text, and the substitutions that matched nothing."""
    body, found = _DOCSTRING.subn("", source, count=1)
    if not found:
        raise SystemExit("the source must start with a module docstring")
    unused = []
    for pattern, replacement in substitutions:
        body, count = re.subn(pattern, replacement, body)
        if count == 0:
            unused.append(pattern)
    return docstring + body, unused


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, don't write")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this one)")
    args = parser.parse_args(argv)
    failed = False
    for source_name, (target_name, docstring, substitutions) in FILES.items():
        source, target = args.root / source_name, args.root / target_name
        generated, unused = generate(source.read_text(), docstring, substitutions)
        for pattern in unused:
            print(f"{source_name}: the substitution {pattern!r} matched nothing", file=sys.stderr)
            failed = True
        current = target.read_text() if target.exists() else ""
        if current == generated:
            continue
        if args.check:
            diff = difflib.unified_diff(
                generated.splitlines(keepends=True), current.splitlines(keepends=True),
                f"{target_name} (as generated)", f"{target_name} (on disk)",
            )
            sys.stderr.write("".join(diff))
            print(f"{target_name} differs from what {source_name} generates: "
                  "edit the source and run python -m dualio.devtools.unasync", file=sys.stderr)
            failed = True
        else:
            target.write_text(generated)
            print(f"wrote {target_name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
