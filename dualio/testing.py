"""The contract suite for your protocol's faces, on every transport, as pytest cases.

Subclass :class:`ContractSuite` in a test module (its name must start with ``Test``), say
how to start your server and give a few sample calls; pytest then runs every case below
once per transport of both faces (the blocking face's calls from worker threads)::

    class TestMyProtocol(ContractSuite):
        async_face, sync_face = AsyncMyClient, MyClient
        server = ServerCommand(lambda port: ["my-server", "--port", str(port)])
        samples = (Sample("hello", lambda c: c.hello("x"), b"x"),)

        @staticmethod
        def prepare(client, n): return client.put(f"k{n}", f"v{n}")   # before unique()

        @staticmethod
        def unique(client, n): return client.get(f"k{n}")            # its answer: answer(n)

        @staticmethod
        def answer(n): return f"v{n}".encode()

Each face's class is called as ``face(host, port, timeout=..., connect_timeout=...,
retry=..., transport=..., **async_only)``, which a face built on ``dualio.toolkit`` with
those keyword arguments accepts; override :meth:`ContractSuite.connect` otherwise. A
sample's call returns an awaitable on the async face and the answer on the blocking one:
the same expression, which is the point (the same API on both faces).

The cases: the samples; 200 concurrent calls, each checked to get its own answer;
storms of calls cancelled at random moments (async transports), after which every answer
still reaches its own call; faults of the network between client and server (a proxy:
resets, a black hole, a stall, latency, a cut connection) end calls with a typed error in
time, or with the right answer, and the client recovers by itself; the server killed and
restarted on its port; a broken protocol (its decoder raising, or returning a malformed
message), a server that answers a request that expected none (``quiet_request``,
``stray_answer``) and one that never answers: a typed error, the connection replaced,
never a hang or an answer to the wrong call; and the same methods and parameters on both
faces. Needs pytest and anyio's pytest plugin (``pip install dualio[test]`` brings both);
trio's cases need trio.

:func:`figures_main` counts your faces' instructions per call beside your raw floor, with
callgrind, as dualio's lab counts its own (``python -m
dualio.lab.instructions.real_memcached`` is one such command).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import inspect
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import anyio
import anyio.to_thread
import pytest

from dualio.lab.common.fault_proxy import FaultProxy, Toxic
from dualio.lab.instructions import counter
from dualio.lab.instructions.counter import Figure
from dualio.toolkit import ConnectOptions, DualioError, Message, ProtocolError, Request, RetryPolicy, causes

Address = tuple[str, int]
CALL_TIMEOUT = 2.0
"""Each call's timeout in the fault cases."""
LATE = 3.0
"""How far past its timeout a call may end before the case fails (far above what it
takes: a shared machine is slow at times)."""
RETRY = RetryPolicy(attempts=3, base_delay=0.05, max_delay=0.2)


# -- the server ------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class ServerCommand:
    """Your server: the command that runs it on a port of 127.0.0.1, in the foreground."""

    command: Callable[[int], Sequence[str]]
    ready_within: float = 10.0


class ServerProcess:
    """A server the kit started, on one port for its whole life (restarts included)."""

    def __init__(self, how: ServerCommand) -> None:
        self._how = how
        self.address: Address = ("127.0.0.1", free_port())
        self._process: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        argv = list(self._how.command(self.address[1]))
        self._process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        until = time.monotonic() + self._how.ready_within
        while time.monotonic() < until:
            if self._process.poll() is not None:
                raise RuntimeError(f"{argv[0]} exited with {self._process.returncode} as it started")
            with contextlib.suppress(OSError), socket.create_connection(self.address, timeout=0.5):
                return
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"{argv[0]} did not accept connections within {self._how.ready_within} s")

    def kill(self) -> None:
        """End the server at once (SIGKILL): its connections are reset."""
        if self._process is not None and self._process.poll() is None:
            self._process.send_signal(signal.SIGKILL)
            self._process.wait(10)

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


class AnswersEverything:
    """Answers every chunk it reads with the same bytes, whatever was asked (``b""``: reads
    and never answers). Each connection is served by a thread of its own, all joined by
    :meth:`close`."""

    def __init__(self, answer: bytes) -> None:
        self._answer = answer
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        self.address: Address = self._listener.getsockname()[:2]
        self._done = threading.Event()
        self._threads = [threading.Thread(target=self._serve, daemon=True)]
        self._threads[0].start()

    def _serve(self) -> None:
        while not self._done.is_set():
            with contextlib.suppress(TimeoutError, OSError):
                conn, _ = self._listener.accept()
                serving = threading.Thread(target=self._answer_all, args=(conn,), daemon=True)
                self._threads.append(serving)
                serving.start()

    def _answer_all(self, conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):
            conn.settimeout(0.05)
            while not self._done.is_set():
                try:
                    data = conn.recv(65536)
                except TimeoutError:
                    continue
                if not data:
                    return
                if self._answer:
                    conn.sendall(self._answer)

    def close(self) -> None:
        self._done.set()
        for thread in list(self._threads):
            thread.join(5)
        self._listener.close()


class SilentServer(AnswersEverything):
    """Accepts connections and reads what comes, and never answers."""

    def __init__(self) -> None:
        super().__init__(b"")


# -- what the cases drive ---------------------------------------------------------------

@dataclass(frozen=True)
class Sample:
    """A call and its answer: ``call(client)`` (awaited on the async face), then
    ``check(answer)`` when given, else ``answer == expect``."""

    name: str
    call: Callable[[Any], Any]
    expect: Any = None
    check: Callable[[Any], bool] | None = None

    def judge(self, answer: Any) -> None:
        ok = self.check(answer) if self.check is not None else answer == self.expect
        assert ok, f"sample {self.name!r} answered {answer!r}"


@dataclass(frozen=True)
class Transport:
    """A face and how its calls wait; the loop the case runs on."""

    id: str
    backend: str
    settings: dict[str, Any] | None = field(default=None)  # None: the blocking face

    @property
    def is_sync(self) -> bool:
        return self.settings is None


TRANSPORTS = (
    Transport("blocking", "asyncio"),
    Transport("portal", "asyncio", None),
    Transport("native-asyncio", "asyncio", {"transport": "native"}),
    Transport("anyio-asyncio", "asyncio", {"transport": "anyio"}),
    Transport("native-trio", "trio", {"transport": "native"}),
    Transport("pool-asyncio", "asyncio", {"transport": "emulated", "emulation": "pool"}),
    Transport("thread-asyncio", "asyncio", {"transport": "emulated", "emulation": "thread"}),
    Transport("callback-asyncio", "asyncio", {"transport": "emulated", "emulation": "callback"}),
    Transport("pool-trio", "trio", {"transport": "emulated", "emulation": "pool"}),
    Transport("thread-trio", "trio", {"transport": "emulated", "emulation": "thread"}),
    Transport("callback-trio", "trio", {"transport": "emulated", "emulation": "callback"}),
)


class Client:
    """One open client under test, whatever its face: every call is awaited here."""

    def __init__(self, client: Any, sync: bool) -> None:
        self.client = client
        self.sync = sync

    async def run(self, call: Callable[[Any], Any]) -> Any:
        if self.sync:
            return await anyio.to_thread.run_sync(call, self.client)
        return await call(self.client)

    async def close(self) -> None:
        if self.sync:
            await anyio.to_thread.run_sync(self.client.close)
        else:
            await self.client.aclose()


def _params(transports: Sequence[Transport]) -> list[Any]:
    trio_missing = pytest.mark.skipif(not _has("trio"), reason="trio is not installed")
    return [pytest.param(t, id=t.id, marks=[trio_missing] if t.backend == "trio" else []) for t in transports]


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


EVERY = _params(TRANSPORTS)
ASYNC = _params([t for t in TRANSPORTS if not t.is_sync])
FAULTS = {
    "reset": (Toxic("reset_peer"), "error"),
    "black-hole": (Toxic("blackhole"), "error"),
    "stall-then-close": (Toxic("timeout", 0.3), "error"),
    "cut-after-bytes": (Toxic("limit_data", 1), "error"),
    "latency": (Toxic("latency", 0.05), "answer"),
    "sliced": (Toxic("slicer", 3), "answer"),
}


class _Broken:
    """A protocol whose decoder fails as told (``mode``), around the author's protocol."""

    def __init__(self, make: Callable[[], Any], mode: list[str]) -> None:
        self._real = make()
        self._mode = mode
        self.decoder = self
        self.large = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def feed(self, data: bytes) -> Sequence[Message]:
        messages: Sequence[Message] = self._real.decoder.feed(data)
        if self._mode[0] == "raises" and messages:
            raise RuntimeError("a bug in the protocol's decoder")
        if self._mode[0] == "malformed" and messages:
            return [messages[0][:2]]  # type: ignore[list-item]  # (kind, key): no payload
        return messages

    def room(self) -> memoryview | None:
        return None  # every byte through feed(), where the sabotage is



# -- the suite ---------------------------------------------------------------------------

class ContractSuite:
    """Subclass it (``Test...``) and fill in what the module's docstring shows."""

    pytestmark: ClassVar[list[pytest.MarkDecorator]] = [pytest.mark.anyio, pytest.mark.timeout(120)]
    async_face: ClassVar[type]
    sync_face: ClassVar[type]
    server: ClassVar[ServerCommand]
    samples: ClassVar[Sequence[Sample]] = ()
    protocol: ClassVar[Callable[[], Any] | None] = None
    """What makes your wire protocol's state, for the broken-protocol cases (None: skipped)."""
    unique_request: ClassVar[Callable[[int], Request[Any]] | None] = None
    """``unique``'s request, built without a face, for the broken-protocol cases."""
    quiet_request: ClassVar[Request[Any] | None] = None
    """A request that expects no answer (``answers=0``), if the protocol has them ..."""
    stray_answer: ClassVar[bytes] = b""
    """... and the bytes of an answer the server might send it anyway."""
    concurrency: ClassVar[int] = 200

    # -- what a subclass says -----------------------------------------------------

    @staticmethod
    def prepare(client: Any, n: int) -> Any:
        """A call that makes ``unique(client, n)`` answer ``answer(n)`` (not overridden:
        nothing to do)."""
        raise NotImplementedError

    @staticmethod
    def unique(client: Any, n: int) -> Any:
        raise NotImplementedError

    @staticmethod
    def answer(n: int) -> Any:
        raise NotImplementedError

    @classmethod
    def connect(cls, transport: Transport, address: Address, **settings: Any) -> Any:
        """A client of ``address`` on ``transport`` (not opened yet on the async face)."""
        host, port = address
        if transport.settings is None:
            kind = "portal" if transport.id == "portal" else "blocking"
            return cls.sync_face(host, port, transport=kind, **settings)
        return cls.async_face(host, port, **transport.settings, **settings)

    # -- fixtures -------------------------------------------------------------------

    @pytest.fixture
    def anyio_backend(self, transport: Transport) -> str:
        return transport.backend

    @pytest.fixture(scope="class")
    @classmethod
    def kit_server(cls) -> Iterator[ServerProcess]:
        argv = list(cls.server.command(0))
        if shutil.which(argv[0]) is None:
            pytest.skip(f"{argv[0]} is not installed")
        server = ServerProcess(cls.server)
        try:
            yield server
        finally:
            server.stop()

    @contextlib.asynccontextmanager
    async def _open(
        self, transport: Transport, address: Address, **settings: Any,
    ) -> AsyncIterator[Client]:
        settings.setdefault("timeout", 10.0)
        settings.setdefault("connect_timeout", 5.0)
        settings.setdefault("retry", None)
        make = functools.partial(self.connect, transport, address, **settings)
        async with _opened(transport, make) as client:
            yield client

    async def _prepared(self, client: Client, count: int) -> None:
        if type(self).prepare is ContractSuite.prepare:
            return
        for n in range(count):
            await client.run(functools.partial(self._prepare_one, n))

    def _prepare_one(self, n: int, face: Any) -> Any:
        return self.prepare(face, n)

    async def _unique(self, client: Client, n: int) -> Any:
        return await client.run(functools.partial(self._unique_one, n))

    def _unique_one(self, n: int, face: Any) -> Any:
        return self.unique(face, n)

    # -- the cases ------------------------------------------------------------------

    @pytest.mark.parametrize("transport", EVERY)
    async def test_samples(self, transport: Transport, kit_server: ServerProcess) -> None:
        async with self._open(transport, kit_server.address) as client:
            for sample in self.samples:
                sample.judge(await client.run(sample.call))

    @pytest.mark.parametrize("transport", EVERY)
    async def test_every_reply_reaches_its_own_call(
        self, transport: Transport, kit_server: ServerProcess,
    ) -> None:
        keys = 50
        async with self._open(transport, kit_server.address) as client:
            await self._prepared(client, keys)
            wrong: list[tuple[int, Any]] = []
            limiter = anyio.CapacityLimiter(20)

            async def one(n: int) -> None:
                async with limiter:
                    got = await self._unique(client, n % keys)
                if got != self.answer(n % keys):
                    wrong.append((n, got))

            async with anyio.create_task_group() as tasks:
                for n in range(self.concurrency):
                    tasks.start_soon(one, n)
            assert wrong == [], f"{len(wrong)} calls got another call's answer, e.g. {wrong[:3]}"

    @pytest.mark.parametrize("transport", ASYNC)
    async def test_calls_cancelled_at_random_never_get_another_calls_answer(
        self, transport: Transport, kit_server: ServerProcess,
    ) -> None:
        keys = 20
        rng = random.Random(7)
        async with self._open(transport, kit_server.address, retry=RETRY) as client:
            await self._prepared(client, keys)
            wrong: list[tuple[int, Any]] = []
            finished = 0

            async def one(n: int, patience: float) -> None:
                nonlocal finished
                with anyio.move_on_after(patience):
                    got = await self._unique(client, n % keys)
                    finished += 1
                    if got != self.answer(n % keys):
                        wrong.append((n, got))

            for _ in range(3):
                async with anyio.create_task_group() as tasks:
                    for n in range(100):
                        tasks.start_soon(one, n, rng.choice([0.0, 0.0001, 0.0005, 0.002, 1.0]))
            assert wrong == [], f"{len(wrong)} calls got another call's answer, e.g. {wrong[:3]}"
            assert finished > 0
            for n in range(keys):  # the client goes on
                assert await self._unique(client, n) == self.answer(n)

    @pytest.mark.parametrize("fault", list(FAULTS))
    @pytest.mark.parametrize("transport", EVERY)
    async def test_network_faults_end_calls_in_time_and_the_client_recovers(
        self, transport: Transport, kit_server: ServerProcess, fault: str,
    ) -> None:
        toxic, outcome = FAULTS[fault]
        async with self._open(transport, kit_server.address) as setup:
            await self._prepared(setup, 1)
        with FaultProxy(kit_server.address) as proxy:
            async with self._open(transport, proxy.address, timeout=CALL_TIMEOUT, retry=RETRY) as client:
                assert await self._unique(client, 0) == self.answer(0)
                proxy.set(toxic)
                started = time.monotonic()
                try:
                    got = await self._unique(client, 0)
                except DualioError:
                    assert outcome == "error", f"{fault}: a typed error where an answer was due"
                else:
                    assert got == self.answer(0), f"{fault}: answered {got!r}"
                assert time.monotonic() - started < CALL_TIMEOUT * (RETRY.attempts or 1) + LATE
                proxy.clear()
                await self._recovers(client)

    async def _recovers(self, client: Client) -> None:
        """The same client answers again within a few seconds, by itself."""
        until = time.monotonic() + 10
        while True:
            try:
                assert await self._unique(client, 0) == self.answer(0)
                return
            except DualioError:
                if time.monotonic() > until:
                    raise
                await anyio.sleep(0.1)

    @pytest.mark.parametrize("transport", EVERY)
    async def test_a_server_killed_and_restarted_is_connected_to_again(self, transport: Transport) -> None:
        server = ServerProcess(self.server)
        try:
            async with self._open(transport, server.address, timeout=CALL_TIMEOUT, retry=RETRY) as client:
                await self._prepared(client, 1)
                server.kill()
                started = time.monotonic()
                with pytest.raises(DualioError):
                    await self._unique(client, 0)
                assert time.monotonic() - started < CALL_TIMEOUT * 3 + LATE
                server.start()
                await self._prepared(client, 1)  # a restarted server may have lost what it held
                await self._recovers(client)
        finally:
            server.stop()

    @pytest.mark.parametrize("mode", ["raises", "malformed"])
    @pytest.mark.parametrize("transport", EVERY)
    async def test_a_broken_protocol_fails_its_calls_and_the_connection_is_replaced(
        self, transport: Transport, kit_server: ServerProcess, mode: str,
    ) -> None:
        protocol, unique = type(self).protocol, type(self).unique_request
        if protocol is None or unique is None:
            pytest.skip("the suite gives no protocol and unique_request")
        async with self._open(transport, kit_server.address) as setup:
            await self._prepared(setup, 1)
        sabotage = ["ok"]
        broken = functools.partial(_Broken, protocol, sabotage)
        options = ConnectOptions(*kit_server.address, 5.0, protocol=broken)
        async with self._open_raw(transport, options) as client:
            request = unique(0)
            assert await client.run(lambda face: face.request(request)) == self.answer(0)
            sabotage[0] = mode
            with pytest.raises(DualioError) as failed:
                await client.run(lambda face: face.request(request))
            assert any(isinstance(e, ProtocolError) for e in causes(failed.value)), failed.value
            sabotage[0] = "ok"
            assert await client.run(lambda face: face.request(request)) == self.answer(0)

    @pytest.mark.parametrize("transport", EVERY)
    async def test_an_answer_to_a_request_that_expected_none_reaches_no_caller(
        self, transport: Transport,
    ) -> None:
        quiet, unique = type(self).quiet_request, type(self).unique_request
        protocol = type(self).protocol
        if quiet is None or unique is None or protocol is None or not self.stray_answer:
            pytest.skip("the suite gives no quiet_request, stray_answer, unique_request and protocol")
        peer = AnswersEverything(self.stray_answer)
        try:
            options = ConnectOptions(*peer.address, 2.0, protocol=protocol)
            async with self._open_raw(transport, options, timeout=2.0, retry=None) as client:
                await client.run(lambda face: face.request(quiet))
                request = unique(0)
                for _ in range(3):  # whichever call the stray answer meets, it is not that call's answer
                    with pytest.raises(DualioError):
                        got = await client.run(lambda face: face.request(request))
                        raise AssertionError(f"a call was answered with another request's answer: {got!r}")
        finally:
            peer.close()

    @pytest.mark.parametrize("transport", EVERY)
    async def test_a_server_that_never_answers_times_the_call_out(self, transport: Transport) -> None:
        protocol, unique = type(self).protocol, type(self).unique_request
        if protocol is None or unique is None:
            pytest.skip("the suite gives no protocol and unique_request")
        silent = SilentServer()
        try:
            options = ConnectOptions(*silent.address, 0.5, protocol=protocol)
            started = time.monotonic()
            with pytest.raises(DualioError):
                async with self._open_raw(transport, options, timeout=0.5) as client:
                    request = unique(0)
                    await client.run(lambda face: face.request(request))
            assert time.monotonic() - started < 1.0 + LATE
        finally:
            silent.close()

    @contextlib.asynccontextmanager
    async def _open_raw(
        self, transport: Transport, options: ConnectOptions, **settings: Any,
    ) -> AsyncIterator[Client]:
        """A face of the toolkit's own base class, on ``options`` (no methods but its base's)."""
        settings.setdefault("timeout", 5.0)
        settings.setdefault("retry", RETRY)
        if transport.settings is None:
            kind = "portal" if transport.id == "portal" else "blocking"
            make = functools.partial(_base(self.sync_face), options, transport=kind, **settings)
        else:
            make = functools.partial(_base(self.async_face), options, **transport.settings, **settings)
        async with _opened(transport, make) as client:
            yield client

    def test_both_faces_have_the_same_methods_and_parameters(self) -> None:
        def shape(cls: type) -> dict[str, list[tuple[str, Any, Any]]]:
            methods = {n: f for n, f in inspect.getmembers(cls, callable) if not n.startswith("_")}
            lifecycle = {"open", "close", "aclose"}
            return {
                name: [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]
                for name, fn in methods.items() if name not in lifecycle and name != "__init__"
            }

        async_shape, sync_shape = shape(self.async_face), shape(self.sync_face)
        assert sorted(async_shape) == sorted(sync_shape)
        assert async_shape == sync_shape


@contextlib.asynccontextmanager
async def _opened(transport: Transport, make: Callable[[], Any]) -> AsyncIterator[Client]:
    """The client ``make()`` makes, open (the blocking face's made in a worker thread), and
    closed at the end."""
    if transport.is_sync:
        client = Client(await anyio.to_thread.run_sync(make), True)
    else:
        client = Client(make(), False)
        await client.client.open()
    try:
        yield client
    finally:
        await client.close()


def _base(face: type) -> type:
    """The toolkit's face class a face derives from."""
    from dualio.toolkit import AsyncFace
    from dualio_sync.toolkit import Face

    for base in face.__mro__:
        if base in (AsyncFace, Face):
            return base
    raise TypeError(f"{face.__name__} is not a face of dualio.toolkit")


# -- instruction figures ----------------------------------------------------------------------

def figures_main(
    module: str, figures: Sequence[Figure],
    serve: Callable[[], contextlib.AbstractContextManager[dict[str, str]]],
    argv: list[str] | None = None, goals: dict[str, int] | None = None,
) -> int:
    """``python -m MODULE [--calls N] [--figures NAMES]``: instructions per call of each of
    ``figures`` (each a loop ``(calls, *args, clock) -> seconds per call`` in ``module`` that
    calls ``clock()`` just before its first call and just after its last), counted by
    ``valgrind --tool=callgrind`` in a process of their own (loops of N and 2N calls, twice:
    ``(2N − N) / N``, so start-up and connecting do not count), each beside its floor (a
    figure whose ``floor`` is None: the least a client of your protocol does, a raw socket).
    ``serve()`` starts what the loops talk to and gives the variables their process needs
    (an address, say). Prints a table, and each of ``goals`` met or missed."""
    parser = argparse.ArgumentParser(prog=f"python -m {module}")
    parser.add_argument("--calls", type=int, default=400, help="N: each loop runs N and 2N calls, twice")
    parser.add_argument("--figures", metavar="NAMES", help="comma-separated (default: all)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    known = {figure.name: figure for figure in figures}
    if args.child:
        counter.child(args.child.split(","), args.calls, known)
        return 0
    if args.calls < 100 or args.calls % 100:
        parser.error("--calls must be a multiple of 100")
    names = args.figures.split(",") if args.figures else list(known)
    unknown = [name for name in names if name not in known]
    if unknown:
        parser.error(f"unknown figures: {', '.join(unknown)} (known: {', '.join(known)})")
    names = [*dict.fromkeys([*names, *(f for n in names if (f := known[n].floor))])]
    try:
        counter.valgrind()
    except counter.ValgrindMissing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    ours = [name for name in names if known[name].ours]
    theirs = [name for name in names if not known[name].ours]
    counts: dict[str, counter.Count] = {}
    with serve() as env, tempfile.TemporaryDirectory(prefix="dualio-callgrind-") as scratch:
        loops = counter._loops(Path(scratch), [g for g in (ours, theirs) if g], args.calls, env, module)
        for name, dumps in loops:
            counts[name] = counter.count(name, [(n, counter._dump_total(d)) for n, d in dumps], check=False)
    counts = {name: counts[name] for name in known if name in counts}
    print(f"instructions per call (callgrind, the client process only; (2N − N) / N with N = {args.calls}, "
          f"twice; {sys.implementation.name} {sys.version.split()[0]})")
    print(counter.table(counts, known))
    for name, goal in (goals or {}).items():
        if name in counts:
            per_call = counts[name].per_call
            verdict = "met" if per_call <= goal else f"missed by {per_call / goal - 1:.0%}"
            print(f"goal {name:<22} {per_call:>9,.0f} ≤ {goal:,}  {verdict}")
    return 0


__all__ = [
    "CALL_TIMEOUT",
    "TRANSPORTS",
    "AnswersEverything",
    "ContractSuite",
    "Figure",
    "Sample",
    "ServerCommand",
    "ServerProcess",
    "SilentServer",
    "Transport",
    "figures_main",
    "free_port",
]
