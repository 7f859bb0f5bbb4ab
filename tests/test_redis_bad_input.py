"""Bad input at both ends of a Redis connection, on every transport configuration the
Redis face tests use (tests/contract/faces.py ``TRANSPORTS``).

From the server: a hostile RESP3 server (:class:`HostileRedis`) answers HELLO as Redis
does, then breaks the protocol. Where the stream cannot be trusted any more (a bulk
string of 2**40 bytes, aggregates nested 10,000 deep, an unknown type byte, a reply
nobody asked for) the connection is failed with a typed error, promptly and without
buffering what was announced; a cut connection is a typed error, or the call is sent
again on a new one when that is safe; a push for a channel nobody here subscribed to is
dropped; a reply split into 1-byte writes is read whole. Never does a caller get a reply
meant for another.

From the user: an argument with spaces or CRLF in it is one bulk string, not commands
of its own, and an argument of a type a command cannot carry is a TypeError raised
before anything is sent.
"""

from __future__ import annotations

import enum
import socket
import struct
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import anyio.to_thread
import pytest

from dualio import ClosedError, ConnectionLost, DualioError, DualioTimeout, FrameTooLarge, ProtocolError
from dualio_sync.redis import Redis as SyncRedis
from dualio_transports.redis_protocol.resp import ReplyReader, parse
from tests.contract.faces import Backend, Transport, parametrize_transports
from tests.redis_server import RedisServer, redis_server
from tests.test_redis_contract import close_quietly, open_client
from tests.test_redis_faces import Face
from tests.test_redis_protocol import hello_map

__all__ = ["redis_server"]  # the fixture, used by name

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(30)]

PROMPT = 2.0
"""A failure reaches its caller well within this; the clients' timeouts are 10 s."""
IO_TIMEOUT = 10.0  # the hostile server never waits longer than this for anything
MEMORY_BOUND = 16 * 1024 * 1024
"""Bytes a call may allocate while it meets a header announcing 2**40 of them."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    parametrize_transports(metafunc)


@pytest.fixture
def anyio_backend(transport: Transport) -> Backend:
    return transport.backend


@pytest.fixture
def key(request: pytest.FixtureRequest) -> Callable[[str], str]:
    """Keys of this case alone (the cases of a worker share its server)."""
    return lambda name: f"{request.node.nodeid}:{name}"


# -- a hostile server ----------------------------------------------------------------------


def honest_reply(command: list[bytes]) -> bytes:
    """What the server answers when it behaves: a GET gets ``value of <key>`` (so a reply
    handed to the wrong GET shows), an INCR 7, anything else OK."""
    name = command[0].upper()
    if name == b"GET":
        value = b"value of " + command[1]
        return b"$%d\r\n%b\r\n" % (len(value), value)
    if name == b"INCR":
        return b":7\r\n"
    return b"+OK\r\n"


class Peer:
    """One accepted connection, as a script sees it."""

    def __init__(self, server: HostileRedis, sock: socket.socket, number: int) -> None:
        self.server = server
        self.sock = sock
        self.number = number  # 0 for the first connection
        self.hung_up = threading.Event()  # the client closed its side

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send_bytewise(self, data: bytes) -> None:
        """``data`` one byte per write, a little apart."""
        for i in range(len(data)):
            self.sock.sendall(data[i : i + 1])
            time.sleep(0.0002)

    def hang_up(self) -> None:
        """Close the connection in order (FIN)."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def reset(self) -> None:
        """Abort the connection (RST)."""
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()


Script = Callable[[Peer, list[bytes]], bool]
"""What a hostile connection does with a command; False: answer it honestly."""


class HostileRedis:
    """A RESP3 server on 127.0.0.1 that answers HELLO 3 as Redis 7 does (with
    ``after_hello`` sent next), then answers each command with ``script`` on its first
    connection, honestly on later ones (and wherever ``script`` returns False). Every
    command read is recorded with its connection's number."""

    def __init__(
        self, script: Script | None = None, *, after_hello: bytes = b"", hello_bytewise: bool = False
    ) -> None:
        self.script = script
        self.after_hello = after_hello
        self.hello_bytewise = hello_bytewise
        self.commands: list[tuple[int, list[bytes]]] = []
        self.peers: list[Peer] = []
        self.failures: list[BaseException] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.02)
        self.address: tuple[str, int] = self._listener.getsockname()[:2]
        self._spawn(self._accept)

    @property
    def connections(self) -> int:
        with self._lock:
            return len(self.peers)

    def sent(self, connection: int | None = None) -> list[list[bytes]]:
        """The commands read (on ``connection`` only, if given), HELLO included."""
        with self._lock:
            return [c for n, c in self.commands if connection is None or n == connection]

    def _spawn(self, target: Callable[..., None], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True, name="hostile-redis")
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.settimeout(0.02)
            with self._lock:
                peer = Peer(self, sock, len(self.peers))
                self.peers.append(peer)
            self._spawn(self._serve, peer)

    def _serve(self, peer: Peer) -> None:
        reader = ReplyReader()  # a command is an array of bulk strings: RESP too
        idle_since = time.monotonic()
        try:
            while not self._stopping.is_set():
                try:
                    data = peer.sock.recv(65536)
                except TimeoutError:
                    if time.monotonic() - idle_since > IO_TIMEOUT:
                        return
                    continue
                except OSError:  # reset, or closed by a script
                    data = b""
                if not data:
                    peer.hung_up.set()
                    return
                idle_since = time.monotonic()
                for _, raw in reader.feed(data):
                    command = parse(raw)
                    with self._lock:
                        self.commands.append((peer.number, command))
                    self._answer(peer, command)
        except BaseException as exc:
            self.failures.append(exc)
        finally:
            try:
                peer.sock.close()
            except OSError:
                pass

    def _answer(self, peer: Peer, command: list[bytes]) -> None:
        if command[0].upper() == b"HELLO":
            (peer.send_bytewise if self.hello_bytewise else peer.send)(hello_map())
            if self.after_hello:
                peer.send(self.after_hello)
            return
        if peer.number == 0 and self.script is not None and self.script(peer, command):
            return
        peer.send(honest_reply(command))

    def close(self) -> None:
        self._stopping.set()
        self._listener.close()
        for thread in self._threads:
            thread.join(5)
        assert not [t for t in self._threads if t.is_alive()], "the hostile server's threads did not end"
        if self.failures:
            raise self.failures[0]


@pytest.fixture
def hostile() -> Iterator[Callable[..., HostileRedis]]:
    servers: list[HostileRedis] = []

    def make(script: Script | None = None, **options: Any) -> HostileRedis:
        server = HostileRedis(script, **options)
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.close()


def on_first(name: bytes, data: bytes, then: Callable[[Peer], None] | None = None) -> Script:
    """Answer the first ``name`` command with ``data`` (then ``then(peer)``), the rest honestly."""
    done: list[bool] = []

    def script(peer: Peer, command: list[bytes]) -> bool:
        if command[0].upper() != name or done:
            return False
        done.append(True)
        peer.send(data)
        if then is not None:
            then(peer)
        return True

    return script


async def outcome(call: Callable[[], Any]) -> tuple[object, float]:
    """What ``call()`` returned or raised, and how long it took."""
    started = time.monotonic()
    try:
        result: object = await call()
    except Exception as exc:
        result = exc
    return result, time.monotonic() - started


async def measured(call: Callable[[], Any]) -> tuple[object, float, int]:
    """What ``call()`` returned or raised, how long it took, and the most memory it held."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        got, took = await outcome(call)
        return got, took, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


async def waits_for(event: threading.Event, timeout: float = PROMPT) -> bool:
    return await anyio.to_thread.run_sync(event.wait, timeout)


# -- the stream cannot be trusted: the connection is failed ----------------------------------

BROKEN: dict[str, tuple[bytes, type[ProtocolError], str]] = {
    "nested-10000-deep": (b"*1\r\n" * 10_000 + b":1\r\n", ProtocolError, "nested deeper"),
    "unknown-type-byte": (b"@what\r\n", ProtocolError, "unknown RESP3 type byte"),
}


@pytest.mark.parametrize(("reply", "error", "words"), BROKEN.values(), ids=BROKEN.keys())
async def test_a_reply_that_breaks_the_protocol_fails_the_call_and_the_connection(
    transport: Transport, hostile: Callable[..., HostileRedis], reply: bytes, error: type[ProtocolError],
    words: str,
) -> None:
    """The GET's reply breaks RESP3: the GET raises the ProtocolError named, promptly,
    without allocating what a header announces; the connection is failed (the client
    hangs up, and does not connect to this server again), and later calls raise
    ClosedError at once."""
    server = hostile(on_first(b"GET", reply))
    r = await open_client(transport, server.address)
    try:
        got, took, peak = await measured(lambda: r.get("k"))
        assert isinstance(got, error) and words in str(got), repr(got)
        assert took < PROMPT
        assert peak < MEMORY_BOUND, f"{peak} bytes allocated"
        assert r.client.closed
        after, took = await outcome(lambda: r.get("k"))
        assert isinstance(after, ClosedError), repr(after)
        assert took < PROMPT
        assert await waits_for(server.peers[0].hung_up)
        assert server.connections == 1
    finally:
        await close_quietly(r)


@pytest.mark.parametrize("reply", [b"$%d\r\n" % 2**40, b"*%d\r\n" % 2**40], ids=["bulk", "array"])
async def test_a_reply_over_the_bound_fails_its_call_and_the_client_connects_again(
    transport: Transport, hostile: Callable[..., HostileRedis], reply: bytes,
) -> None:
    """The GET's reply announces a terabyte, over the client's bound: the GET raises
    FrameTooLarge, promptly, without allocating what the header announces; the
    connection, whose bytes can no longer be followed, is hung up, and the next call
    works on a new one. The client is never closed by a reply's size."""
    server = hostile(on_first(b"GET", reply))
    r = await open_client(transport, server.address)
    try:
        got, took, peak = await measured(lambda: r.get("k"))
        assert isinstance(got, FrameTooLarge) and "exceeds the maximum" in str(got), repr(got)
        assert took < PROMPT
        assert peak < MEMORY_BOUND, f"{peak} bytes allocated"
        assert await waits_for(server.peers[0].hung_up)
        assert await r.get("k") == b"value of k"
        assert not r.client.closed and server.connections == 2
    finally:
        await close_quietly(r)


UNASKED = b"$5\r\nWRONG\r\n"
"""A reply no command asked for: handed to a caller, it shows."""


@pytest.mark.parametrize("when", ["with-hello", "after-hello"])
async def test_a_reply_nobody_asked_for_never_reaches_a_later_caller(
    transport: Transport, hostile: Callable[..., HostileRedis], when: str
) -> None:
    """After the handshake the server sends a reply while no command waits (in the same
    write as HELLO's reply, or on its own a little later). The stream cannot be trusted:
    the connection is failed, and the client with it (as after any break of the
    protocol). The next GET, made once that reply has arrived, never gets it: it raises
    ClosedError, and is not sent."""
    server = hostile(after_hello=UNASKED if when == "with-hello" else b"")
    r = await open_client(transport, server.address)
    try:
        if when == "after-hello":
            server.peers[0].send(UNASKED)
        await anyio.sleep(0.05)  # it has arrived
        got, took = await outcome(lambda: r.get("k"))
        assert isinstance(got, ClosedError) and "nobody asked for" in str(got), repr(got)
        assert took < PROMPT
        assert r.client.closed
        assert await waits_for(server.peers[0].hung_up)
        assert server.sent() == [[b"HELLO", b"3"]]  # nothing was sent on that stream, nor on another
    finally:
        await close_quietly(r)


async def test_a_second_reply_to_one_command_never_reaches_the_next_caller(
    transport: Transport, hostile: Callable[..., HostileRedis]
) -> None:
    """The server answers a GET twice, in one write: the GET gets the first; the second
    is a reply nobody asked for, which fails the connection and the client, and the next
    GET never gets it: it raises ClosedError, and is not sent."""
    server = hostile(on_first(b"GET", honest_reply([b"GET", b"first"]) + UNASKED))
    r = await open_client(transport, server.address)
    try:
        assert await r.get("first") == b"value of first"
        await anyio.sleep(0.05)
        second, took = await outcome(lambda: r.get("second"))
        assert isinstance(second, ClosedError) and "nobody asked for" in str(second), repr(second)
        assert took < PROMPT
        assert r.client.closed
        assert server.sent() == [[b"HELLO", b"3"], [b"GET", b"first"]]
    finally:
        await close_quietly(r)


# -- the stream goes on ------------------------------------------------------------------------

PUSH = b">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$1\r\nx\r\n"
"""A message on channel ``ch``, to which nothing here subscribed."""


async def test_a_push_for_a_channel_nobody_subscribed_to_is_dropped(
    transport: Transport, hostile: Callable[..., HostileRedis]
) -> None:
    """Pushes for channel ``ch`` (never subscribed): one right after the handshake, one
    while nothing waits, one in the same write just before a GET's reply. Each is
    dropped: every GET gets its own value, on the one connection, which stays open."""
    def push_first(peer: Peer, command: list[bytes]) -> bool:
        if command[0].upper() == b"GET" and command[1] == b"b":
            peer.send(PUSH + honest_reply(command))
            return True
        return False

    server = hostile(push_first, after_hello=PUSH)
    r = await open_client(transport, server.address)
    try:
        assert await r.get("a") == b"value of a"
        server.peers[0].send(PUSH)
        await anyio.sleep(0.05)
        assert await r.get("b") == b"value of b"
        assert await r.incr("n") == 7
        assert await r.get("c") == b"value of c"
        assert server.connections == 1
        assert not r.client.closed
    finally:
        await close_quietly(r)


async def test_replies_written_one_byte_at_a_time_are_read_whole(
    transport: Transport, hostile: Callable[..., HostileRedis]
) -> None:
    """HELLO's reply and each later reply come one byte per write: each call gets its
    whole, right answer."""
    nested = b"*3\r\n$5\r\nRIGHT\r\n:42\r\n%1\r\n+a\r\n,1.5\r\n"

    def bytewise(peer: Peer, command: list[bytes]) -> bool:
        peer.send_bytewise(nested if command[0] == b"NESTED" else honest_reply(command))
        return True

    server = hostile(bytewise, hello_bytewise=True)
    r = await open_client(transport, server.address)
    try:
        assert await r.get("split") == b"value of split"
        assert await r.execute("NESTED") == [b"RIGHT", 42, {b"a": 1.5}]
        assert await r.incr("n") == 7
        assert server.connections == 1
    finally:
        await close_quietly(r)


# -- a connection cut in the middle of a reply -------------------------------------------------

CUT = {
    "GET": b"$20\r\nvalue of",  # safe to send again
    "INCR": b":12",  # not
}


@pytest.mark.parametrize("cut", ["fin", "rst"])
@pytest.mark.parametrize("command", CUT.keys())
async def test_a_connection_cut_in_the_middle_of_a_reply(
    transport: Transport, hostile: Callable[..., HostileRedis], command: str, cut: str
) -> None:
    """The server hangs up (FIN) or aborts (RST) half way through a reply. A GET is sent
    again on a new connection and answered; an INCR (its effect unknown) raises
    ConnectionLost. Either way the client's next call is answered on the new connection."""
    method = command.lower()
    server = hostile(on_first(command.encode(), CUT[command], Peer.hang_up if cut == "fin" else Peer.reset))
    r = await open_client(transport, server.address)
    try:
        got, took = await outcome(lambda: getattr(r, method)("k"))
        if command == "GET":
            assert got == b"value of k", repr(got)
        else:
            assert isinstance(got, ConnectionLost), repr(got)
        assert took < PROMPT
        assert await r.get("after") == b"value of after"
        assert server.connections == 2
        assert [c[0] for c in server.sent(1)][-1] == b"GET"
        assert not r.client.closed
    finally:
        await close_quietly(r)


async def test_a_connection_cut_among_pipelined_commands(
    transport: Transport, hostile: Callable[..., HostileRedis]
) -> None:
    """Five commands in flight on one connection (GETs and an INCR); the server answers
    the first two, then hangs up half way through the third's reply. The two answered
    keep their answers; the GETs not answered are sent again on a new connection and get
    their own values; the INCR (its effect unknown) raises ConnectionLost."""
    written: list[list[bytes]] = []  # in the order the server read them

    def answer_two_then_cut(peer: Peer, command: list[bytes]) -> bool:
        written.append(command)
        if len(written) == 5:
            peer.send(b"".join(honest_reply(c) for c in written[:2]) + b"$30\r\nvalue")
            peer.hang_up()
        return True

    server = hostile(answer_two_then_cut)
    r = await open_client(transport, server.address)
    try:
        got: dict[bytes, object] = {}

        async def one(name: bytes) -> None:
            call = r.incr if name == b"n" else r.get
            got[name], _ = await outcome(lambda: call(name))

        async with anyio.create_task_group() as tasks:
            for name in (b"k0", b"k1", b"k2", b"n", b"k4"):
                tasks.start_soon(one, name)
                await anyio.sleep(0.01)
        answered = {c[1] for c in written[:2]}
        for name, value in got.items():
            if name in answered:
                assert value == (7 if name == b"n" else b"value of " + name), (name, value)
            elif name == b"n":
                assert isinstance(value, ConnectionLost), repr(value)
            else:
                assert value == b"value of " + name, (name, value)
        assert sorted(c[1] for c in server.sent(1) if c[0] == b"GET") == sorted(
            c[1] for c in written[2:] if c[0] == b"GET"
        )
        assert server.connections == 2
        assert not r.client.closed
    finally:
        await close_quietly(r)


# -- a reply that fails its own command's check -----------------------------------------------

async def test_a_string_that_is_not_utf8_fails_its_call_only_with_a_typed_error(
    redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    """With decode_responses=True, a value that is not UTF-8 fails its GET with a dualio
    error (as protocol v1's text that is not UTF-8 does, a ProtocolError), at once (not
    the timeout it would wait out), and the connection goes on."""
    r = await open_client(transport, redis_server.address, decode_responses=True)
    try:
        await r.set(key("binary"), b"\xff\xfe")
        got, _ = await outcome(lambda: r.get(key("binary"), timeout=0.5))
        assert isinstance(got, DualioError) and not isinstance(got, DualioTimeout), repr(got)
        assert await r.get(key("none")) is None
    finally:
        await close_quietly(r)


async def test_a_reply_of_the_wrong_shape_reaches_its_caller_as_it_came(
    transport: Transport, hostile: Callable[..., HostileRedis]
) -> None:
    """ZRANGE WITHSCORES answered with an odd list of integers where (member, score) pairs
    belong (a server older or newer than the spec): a well-formed reply the method cannot
    convert reaches its caller as it came, at once, and the connection goes on."""
    server = hostile(on_first(b"ZRANGE", b"*3\r\n:1\r\n:2\r\n:3\r\n"))
    r = await open_client(transport, server.address)
    try:
        got, _ = await outcome(lambda: r.zrange("z", 0, -1, withscores=True, timeout=0.5))
        assert got == [1, 2, 3], repr(got)
        assert await r.get("k") == b"value of k"
        assert server.connections == 1
    finally:
        await close_quietly(r)


# -- from the user -----------------------------------------------------------------------------


INJECTIONS = [
    "x\r\nFLUSHALL\r\n",
    "x\r\n*1\r\n$8\r\nFLUSHALL\r\n",
    "two words and  two spaces ",
    "\r\n",
    "$-1\r\n",
]


async def test_an_argument_with_spaces_or_crlf_is_one_bulk_string(
    redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    """Values, and key names, with CRLF, spaces or RESP in them are sent as one bulk
    string each and read back intact against the real server; nothing in them runs as a
    command (another key is still there, and every key set is there)."""
    r = await open_client(transport, redis_server.address)
    try:
        sentinel = key("sentinel")
        await r.set(sentinel, "still here")
        for n, text in enumerate(INJECTIONS):
            assert await r.set(key(f"v{n}"), text) is True
            assert await r.get(key(f"v{n}")) == text.encode()
            assert await r.set(key(text), n) is True
            assert await r.get(key(text)) == b"%d" % n
        assert await r.hset(key("h"), mapping={INJECTIONS[0]: INJECTIONS[1]}) == 1
        assert await r.hgetall(key("h")) == {INJECTIONS[0].encode(): INJECTIONS[1].encode()}
        assert await r.execute("ECHO", INJECTIONS[1]) == INJECTIONS[1].encode()
        assert await r.get(sentinel) == b"still here"
        names = [key(f"v{n}") for n in range(len(INJECTIONS))] + [key(text) for text in INJECTIONS]
        assert await r.exists(*names, key("h")) == 2 * len(INJECTIONS) + 1
    finally:
        await close_quietly(r)


class Opaque:
    def __str__(self) -> str:
        return "opaque"


BAD_ARGUMENTS: dict[str, Callable[[Face], Any]] = {
    "set-None": lambda r: r.set("k", None),
    "set-list": lambda r: r.set("k", [b"x"]),
    "set-object": lambda r: r.set("k", Opaque()),
    "set-bool": lambda r: r.set("k", True),
    "set-bytearray": lambda r: r.set("k", bytearray(b"x")),
    "get-None": lambda r: r.get(None),
    "mget-dict": lambda r: r.mget("a", {"b": 1}),
    "mset-None": lambda r: r.mset({"k": None}),
    "hset-object": lambda r: r.hset("h", mapping={"f": Opaque()}),
    "zadd-None-score": lambda r: r.zadd("z", {"m": None}),
    "expire-None": lambda r: r.expire("k", None),
    "lrange-str-object": lambda r: r.lrange("l", Opaque(), 1),
    "execute-list": lambda r: r.execute("SET", "k", ["x"]),
    "execute-None-name": lambda r: r.execute(None, "k"),
}


async def test_an_argument_of_another_type_is_a_type_error_before_anything_is_sent(
    transport: Transport, hostile: Callable[..., HostileRedis]
) -> None:
    """None, a list, a dict, a bool, a bytearray or any other object as a command's
    argument: TypeError, and the server reads nothing from that call; the connection
    goes on (the next command is the first the server reads after HELLO)."""
    server = hostile()
    r = await open_client(transport, server.address)
    try:
        raised: dict[str, str] = {}
        for name, call in BAD_ARGUMENTS.items():
            got, _ = await outcome(lambda call=call: call(r))
            raised[name] = type(got).__name__
        assert raised == dict.fromkeys(BAD_ARGUMENTS, "TypeError")
        assert await r.get("k") == b"value of k"
        assert server.sent() == [[b"HELLO", b"3"], [b"GET", b"k"]]
        assert server.connections == 1
    finally:
        await close_quietly(r)


class Level(enum.IntEnum):
    HIGH = 3


class Ratio(float):
    """A float subclass whose repr is not its decimal text (numpy's float64 is one)."""

    def __repr__(self) -> str:
        return f"Ratio({float(self)!r})"


def test_an_int_or_float_subclass_is_sent_as_its_decimal_text(
    redis_server: RedisServer, key: Callable[[str], str]
) -> None:
    """An IntEnum member is an int, and a float subclass a float: each is sent as the
    number it is, as an int or float is (the blocking face; the encoding is every
    transport's)."""
    with SyncRedis(*redis_server.address, timeout=10) as r:
        r.set(key("level"), Level.HIGH)
        r.set(key("ratio"), Ratio(1.5))
        assert (r.get(key("level")), r.get(key("ratio"))) == (b"3", b"1.5")


async def test_a_transaction_whose_connection_fails_mid_exec_is_not_sent_again(
    transport: Transport, hostile: Callable[..., HostileRedis]
) -> None:
    """The server hangs up in the middle of EXEC's reply: whether the transaction ran is
    unknown, so the call raises ConnectionLost and the transaction is never sent again;
    the client's next call is answered on a new connection."""
    server = hostile(on_first(b"EXEC", b"*2\r\n+OK\r\n", Peer.hang_up))
    r = await open_client(transport, server.address)
    try:
        got, took = await outcome(lambda: r.transaction(("SET", "k", "v"), ("INCR", "n")))
        assert isinstance(got, ConnectionLost), repr(got)
        assert took < PROMPT
        assert [c[0] for c in server.sent()].count(b"EXEC") == 1
        assert await r.get("after") == b"value of after"
        assert server.connections == 2
    finally:
        await close_quietly(r)
