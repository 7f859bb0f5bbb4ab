"""Redis Cluster, async face: ``async with RedisCluster("127.0.0.1", 7000) as rc: await rc.set("k", "v")``.

Every command method of :class:`~dualio.redis.Redis`, each routed by its keys' hash slot
(:mod:`dualio_transports.redis_protocol.slots`, from Redis's key specs) to the primary
that serves the slot, over one ``Redis`` client per node: one multiplexed connection each,
its commands pipelined. The slot map is read from CLUSTER SHARDS (CLUSTER SLOTS on a server
before 7.0) of any node known, when the first command needs it and again when a node fails;
one read at a time, every waiting call sharing it. Within the call's deadline:

- MOVED points the slot at the node named, and the command goes there;
- ASK sends ASKING and the command together to the node named, this once, the map unchanged;
- TRYAGAIN waits and sends again; CLUSTERDOWN (a slot no primary serves now, as while a
  replica is promoted), a node that cannot be reached and one whose connection broke wait,
  have the map read again, and send again if the command never left or is safe to repeat;
  waits follow ``retry`` (its backoff, its budget) within the call's deadline. A write that
  may have run raises :class:`~dualio.OutcomeUnknown`, as on one node.

Redirections are bounded (``max_redirects``, then the last one is raised). A command with no
key goes to one primary; one whose keys are in different slots is refused before anything
is sent (:class:`~dualio.UsageError` naming the slots), but MGET, DEL, UNLINK, EXISTS and
TOUCH, sent as a command per slot (:data:`SPLIT`). A command whose answer is every
primary's by the spec's policies (KEYS, DBSIZE, FLUSHALL, SCRIPT LOAD, WAIT, ...) goes to
each at once, the answers joined as the spec says; SCAN (whose cursor is one node's) is
refused, and ``scan_iter`` scans every primary in turn. A
pipeline is split by node; a transaction runs on the node of its one slot, and so does
WATCH (``watch``, ``transaction(func, *keys)``). ``read_from="replica"`` sends reads (the
spec's READONLY commands) to the slot's replicas in turn. Subscriptions follow their node
(:class:`AsyncClusterSubscription`). Not offered yet: client-side caching (a UsageError).
"""

from __future__ import annotations

import functools
import logging
import time
from binascii import crc_hqx
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from types import TracebackType
from typing import Any, Literal, Self, TypeVar, Unpack, cast

from dualio.redis.client import Redis
from dualio.redis.commands import AsyncRedisCommands, AsyncSubscription
from dualio.redis.method_support import Arg, S, T, Timeout
from dualio.redis.watch import AsyncWatch
from dualio.toolkit import (
    DEFAULT_RETRY,
    UNSET,
    AsyncOnly,
    ClosedError,
    ConnectError,
    ConnectionLost,
    DualioError,
    Lock,
    ProtocolError,
    Request,
    RetryPolicy,
    Series,
    TransportName,
    UsageError,
    Wakeup,
    pick_timeout,
    sleep,
    together,
)
from dualio_transports.redis_protocol.command_spec import (
    KEY_SPECS,
    READ_ONLY,
    REQUEST_POLICY,
    RESPONSE_POLICY,
)
from dualio_transports.redis_protocol.errors import (
    AskError,
    ClusterDownError,
    LoadingError,
    MovedError,
    RedisError,
    ShardMovedError,
    TryAgainError,
    redis_error,
)
from dualio_transports.redis_protocol.message import Message
from dualio_transports.redis_protocol.resp import encode_command, parse
from dualio_transports.redis_protocol.slots import SLOTS, command_keys, key_slot
from dualio_transports.redis_protocol.subscriptions import Kind

log = logging.getLogger("dualio.client")

Address = tuple[str, int]
R = TypeVar("R")
Send = Callable[["Redis[Any]", bool, "float | None"], Awaitable[R]]
"""How a routed call is made on a node: ``send(node, asked, seconds left)``."""
ReadFrom = Literal["primary", "replica"]
"""Where a cluster's reads go: the slot's primary, or one of its replicas in turn (which may
answer a moment behind it)."""
MAX_REDIRECTS = 5
_SLOT_MASK = SLOTS - 1
_ASKING = encode_command("ASKING")
_FRESH = 1.0  # a slot map read this recently is not read again for another caller
_POLL = 0.05
"""While a slot's primary cannot be reached, how often a waiting call asks again, through
another node (:meth:`RedisCluster.request`)."""
_REROUTED = (MovedError, AskError, TryAgainError, ClusterDownError, ConnectError, ClosedError)
"""What a node's answer or failure that :meth:`RedisCluster._routed` sends again elsewhere or later."""
EVERY_NODE = frozenset(
    name for name, policy in REQUEST_POLICY.items()
    if policy in ("all_shards", "all_nodes") and RESPONSE_POLICY.get(name) != "special" and name != "PING"
)
"""Commands whose answer is every primary's, by the spec's request policy (ALL_SHARDS;
ALL_NODES, the replicas left out: FLUSHALL, DBSIZE, KEYS, SCRIPT LOAD, WAIT, ...): sent to
each primary at once, their answers joined by the spec's response policy (:func:`_joined`).
Those whose answers Redis leaves to a client to merge (INFO, MEMORY STATS, LATENCY ...:
``special``) go to one primary, as PING does (``ping()`` measures one node)."""
SPLIT = frozenset({"DEL", "UNLINK", "EXISTS", "TOUCH", "MGET"})
"""Commands of keys in several slots (the spec's MULTI_SHARD) sent as a command per slot
(:meth:`RedisCluster._split`), their answers joined: each part stands alone. MSET and
MSETNX, which set all their keys or none, are refused instead."""
REFUSED = frozenset(name for name, policy in REQUEST_POLICY.items() if policy == "special")
"""SCAN (the spec's SPECIAL request policy): its cursor is one node's, so it is refused
(``scan_iter`` scans every primary in turn)."""


class RedisCluster(AsyncRedisCommands[S]):
    """A client of a Redis Cluster (see the module): ``host`` and ``port`` name one node,
    ``startup_nodes`` more, any of which gives the slot map. ``password``, ``username``,
    ``timeout`` (each command's, redirections and map reads included), ``connect_timeout``,
    ``decode_responses`` and ``transport`` mean what they mean on ``Redis``; ``retry`` is
    each command's series of tries across nodes."""

    def __init__(
        self, host: str = "127.0.0.1", port: int = 6379, *, startup_nodes: Sequence[Address] = (),
        password: str | None = None, username: str | None = None, timeout: float | None = 30.0,
        connect_timeout: float | None = 10.0, retry: RetryPolicy | None = DEFAULT_RETRY,
        decode_responses: bool = False, max_redirects: int = MAX_REDIRECTS,
        read_from: ReadFrom = "primary",
        transport: TransportName = "native", **async_only: Unpack[AsyncOnly],
    ) -> None:
        if isinstance(max_redirects, bool) or not isinstance(max_redirects, int) or max_redirects < 0:
            raise ValueError(f"max_redirects must be an int of 0 or more, not {max_redirects!r}")
        if read_from not in ("primary", "replica"):
            raise ValueError(f"read_from must be 'primary' or 'replica', not {read_from!r}")
        self.read_from = read_from
        self._replica_reads = read_from == "replica"
        self._settings: dict[str, Any] = {
            "password": password, "username": username, "timeout": timeout,
            "connect_timeout": connect_timeout, "decode_responses": decode_responses,
            "transport": transport, "retry": None, "lazy": True, **async_only,
        }
        self._seeds: list[Address] = [(host, port), *((str(h), int(p)) for h, p in startup_nodes)]
        Redis(host, port, **self._settings)  # every setting checked now, as Redis checks it
        self._setup_commands(decode_responses)
        self.timeout = timeout
        self.retry = retry
        self.max_redirects = max_redirects
        self._nodes: dict[Address, Redis[Any]] = {}
        self._replica_nodes: dict[Address, Redis[Any]] = {}  # with read_from="replica": READONLY clients
        self._replicas: dict[Address, list[Address]] = {}  # each primary's, as the map names them
        self._turn = 0  # which replica a read goes to next
        self._slots: list[Address | None] = [None] * SLOTS  # changed only by _point, _replaced, _refresh
        self._primaries: list[Address] | None = None  # what ``nodes`` lists, while the map is unchanged
        self._by_slot: list[Redis[Any] | None] = [None] * SLOTS
        """Each slot's primary's client, where the map names one and its client is made: where
        a command goes straight (none with ``read_from="replica"``, nor once closed:
        :meth:`_rerouted` decides then). Kept with ``_slots`` and ``_nodes`` (:meth:`_point`,
        :meth:`_replaced`, :meth:`_refresh`, :meth:`_clients_changed`)."""
        self._mapped = False
        self._read_at = -1.0  # when the map was last read
        self._reading = Lock()
        self._news = Wakeup()  # a poll of a call waiting out a failover, cut short by news
        self._replacements = 0  # failed nodes found replaced so far (:meth:`_replaced`)
        self._making = Lock()
        self._closed = False

    # -- lifetime ---------------------------------------------------------------------

    async def open(self) -> Self:
        """Read the slot map now (else the first command does). If no node gives it, the
        connections made for it are closed, and the error raised."""
        self._check_open()
        try:
            await self._refresh(_until(self.timeout), force=True)
        except BaseException:
            await self._close_nodes()
            raise
        return self

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every node's connection. Idempotent."""
        self._closed = True
        await self._close_nodes()

    async def _close_nodes(self) -> None:
        nodes = [*self._nodes.values(), *self._replica_nodes.values()]
        self._nodes.clear()
        self._by_slot = [None] * SLOTS
        self._replica_nodes = {}
        for node in nodes:
            await node.aclose()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def nodes(self) -> list[Address]:
        """The primaries the slot map names, by address."""
        if self._primaries is None:  # the map changed since they were listed
            self._primaries = sorted({address for address in self._slots if address is not None})
        return self._primaries[:]

    def _point(self, slot: int, address: Address) -> None:
        """The map says ``slot`` is served by ``address`` from now on."""
        if self._slots[slot] != address:
            self._slots[slot] = address
            self._by_slot[slot] = self._direct(address)
            self._primaries = None

    def _direct(self, address: Address | None) -> Redis[Any] | None:
        """The client a command for a slot of ``address`` goes to straight, if any."""
        return None if address is None or self._replica_reads else self._nodes.get(address)

    def _clients_changed(self, address: Address) -> None:
        """``address``'s client was made or dropped: its slots go to what it is now."""
        client = self._direct(address)
        by_slot = self._by_slot
        for slot, mapped in enumerate(self._slots):
            if mapped == address:
                by_slot[slot] = client

    def _check_open(self) -> None:
        if self._closed:
            raise ClosedError("the cluster client is closed")

    # -- routing ----------------------------------------------------------------------

    async def request(self, request: Request[T], timeout: Timeout = UNSET, held: bool = False) -> T:
        """``request`` on the primary of its keys' slot (see the module)."""
        started = time.monotonic()
        slot: int | None
        skip = _FIRST_KEY_ONLY.get(request.method)
        if skip is not None:  # GET, SET, HGET, ...: the command's second word, the key, found in place
            args = request.args  # *N\r\n $len name \r\n $len key \r\n ...: its header is ``skip`` past *N
            try:
                if args[2] == 13:  # *N\r\n with N < 10 (bytes as ints: 13 \r, 50 "2", 123 "{", 125 "}")
                    end = args.index(13, skip + 4)
                    if args[1] == 50:  # *2: the key is the last word
                        key = args[end + 2 : -2]
                    else:
                        key = args[end + 2 : end + 2 + int(args[skip + 5 : end])]
                else:
                    header = skip + args.index(13) + 2
                    end = args.index(13, header)
                    key = args[end + 2 : end + 2 + int(args[header + 1 : end])]
                if 123 in key:  # key_slot, written out
                    tag = key.index(123)
                    close = key.find(125, tag + 1)
                    if close > tag + 1:
                        key = key[tag + 1 : close]
                slot = crc_hqx(key, 0) & _SLOT_MASK
            except (ValueError, IndexError):  # no key: any primary tells the caller what is missing
                slot = None
            else:
                node = self._by_slot[slot]
                if node is not None:  # the first try: the node keeps the call's time itself
                    try:
                        return await node.request(request, timeout, held)
                    except _REROUTED as exc:
                        return await self._rerouted(request, timeout, held, started, slot, exc)
        else:
            words = _words(request.args)
            every = _every_node(words)
            if every is not None:
                return await self._every_primary(every, request, timeout, held)
            parts = _split_by_slot(words)
            if len(parts) > 1:
                return cast("T", await self._split(words, parts, timeout))
            slot = _slot_of(words)
        return await self._rerouted(request, timeout, held, started, slot, None)

    async def _rerouted(
        self, request: Request[T], timeout: Timeout, held: bool, started: float, slot: int | None,
        error: DualioError | None,
    ) -> T:
        """``request`` routed (:meth:`_routed`), after a first try that met ``error``."""
        if self._closed:
            raise ClosedError("the cluster client is closed")
        address = self._slots[slot] if slot is not None and error is not None else None

        def send(node: Redis[Any], asked: bool, left: float | None) -> Awaitable[T]:
            return node.request(_asking(request) if asked else request, left, held)

        until = started + (pick_timeout(timeout, self.timeout) or float("inf"))
        return await self._routed(
            slot, send, until, request.idempotent, request.method in READ_ONLY, error, address)

    async def _routed(
        self, slot: int | None, send: Send[R], until: float, safe: bool, read: bool,
        error: DualioError | None = None, address: Address | None = None,
    ) -> R:
        """What ``send`` gives on the node that serves ``slot`` (see the module), by ``until``:
        ``send(node, asked, seconds left)``, ``asked`` after an ASK (ASKING goes first). ``safe``:
        a send whose connection was lost may go again; ``read``: a replica may serve it with
        ``read_from="replica"``. ``error``: what a first try at ``address`` met."""
        if not self._mapped:
            await self._refresh(until)
        redirects = 0
        series: Series | None = None
        asked: Address | None = None
        failed: Address | None = None  # a node this call could not reach
        replica = read and self._replica_reads  # until a replica fails it
        while True:
            if self._closed:
                raise ClosedError("the cluster client is closed")
            replacements = self._replacements  # news that comes after this try's address was chosen
            if error is None:
                try:
                    mapped = self._slots[slot] if slot is not None else None
                    address = asked or mapped or self._unserved(slot)
                    if address == failed:  # asked through another node, which runs it, redirects or refuses
                        address = self._detour(failed)
                    if replica and address in self._replicas and asked is None:
                        try:
                            return await send(await self._replica(address), False, _left(until))
                        except (ConnectError, ClosedError, LoadingError):
                            replica = False  # its primary answers this call (a replica still loading too)
                            await self._drop_failed()
                            continue
                    node = self._nodes.get(address) or await self._node(address)
                    return await send(node, asked is not None, _left(until))
                except _REROUTED as met:
                    error = met
            exc, error = error, None
            if isinstance(exc, MovedError | AskError):
                if failed is not None and _redirected(exc) == failed:  # no replica promoted yet
                    failed = None  # the node itself is tried next: it may be back
                    series = await self._wait(series, exc, until, replacements)
                    continue
                redirects += 1
                if redirects > self.max_redirects:
                    raise exc
                moved_to = _redirected(exc)
                if isinstance(exc, MovedError):
                    moved = _redirected_slot(exc)
                    if failed is not None and self._slots[moved] == failed:  # a replica promoted in its place
                        self._replaced(failed, moved_to)
                    self._point(moved, moved_to)
                    asked = None
                else:
                    asked = moved_to
                continue
            # a slot moving or unserved, a node gone or its connection broken: wait, have
            # the map read again (once a second at most, shared by every caller), and send
            # again if that is safe; a node that cannot be reached is asked through
            # another, whose MOVED names the replica promoted in its place
            await self._drop_failed()
            if self.retry is None or (isinstance(exc, ConnectionLost) and not safe):
                raise exc
            if isinstance(exc, ConnectError | ClosedError):
                failed = address
            series = await self._wait(series, exc, until, replacements)
            if not isinstance(exc, TryAgainError):
                await self._refresh(until)
            asked = None

    async def _wait(
        self, series: Series | None, error: DualioError, until: float, replacements: int,
    ) -> Series:
        """The pause before a command is sent again: as ``retry`` says after TRYAGAIN; every
        ``_POLL`` while a slot's node is down or unserved (polls are no tries: the call's
        deadline and the series' budget bound them; RetriesExhausted once either is over),
        cut short when a failed node's replacement is found (:meth:`_replaced`), and not
        taken if one was found since the try began (``replacements`` then)."""
        assert self.retry is not None
        series = series or self.retry.series()
        if isinstance(error, TryAgainError):
            await sleep(series.next_delay(error, until))
        else:
            poll = series.next_poll(error, _POLL, until)
            if replacements == self._replacements:
                await self._news.pause(poll)
        return series

    def _replaced(self, failed: Address, primary: Address) -> None:
        """A MOVED named ``primary`` where ``failed`` served: every slot of ``failed`` is
        pointed there (a failover gives the promoted replica all of them; a slot it did not
        get answers MOVED again), and every call waiting on a poll goes on at once."""
        slots, by_slot, client = self._slots, self._by_slot, self._direct(primary)
        for slot, address in enumerate(slots):
            if address == failed:
                slots[slot] = primary
                by_slot[slot] = client
        self._primaries = None
        self._replacements += 1
        self._news.wake()

    def _detour(self, failed: Address | None) -> Address:
        """A primary to send a command for a slot whose node failed (``failed``: not that one,
        unless no other is known) or that the map leaves unserved: the node runs it if the
        slot is its own, or answers MOVED (naming the replica promoted) or CLUSTERDOWN."""
        others = [address for address in self.nodes if address != failed]
        if not others:
            if failed is None:
                raise ClosedError("no node of the cluster is known to serve any slot")
            return failed
        return others[int(time.monotonic() * 1000) % len(others)]

    def _unserved(self, slot: int | None) -> Address:
        """Where a command goes whose slot the map names no primary for (no slot: any primary)."""
        return self._primary(None) if slot is None else self._detour(None)

    async def _every_primary(self, name: str, request: Request[T], timeout: Timeout, held: bool) -> T:
        """``request`` on every primary the map names, all at once, the answers joined
        (:func:`_joined`); an error reply of any raises the first, but with the ONE_SUCCEEDED
        policy (SCRIPT KILL), which one answer is enough for."""
        until = time.monotonic() + (pick_timeout(timeout, self.timeout) or float("inf"))
        if not self._mapped:
            await self._refresh(until)

        async def ask(address: Address) -> Any:
            node = await self._node(address)
            try:
                return await node.request(request, _left(until), held)
            except RedisError as exc:
                return exc

        addresses = self.nodes
        if not addresses:
            raise ClosedError("no node of the cluster is known to serve any slot")
        answers = await together([functools.partial(ask, address) for address in addresses])
        errors = [answer for answer in answers if isinstance(answer, RedisError)]
        if errors and (len(errors) == len(answers) or RESPONSE_POLICY.get(name) != "one_succeeded"):
            raise errors[0]
        return cast("T", _joined(name, [answer for answer in answers if not isinstance(answer, RedisError)]))

    async def _split(self, words: list[bytes], parts: dict[int, list[int]], timeout: Timeout) -> Any:
        """A :data:`SPLIT` command of keys in several slots as a command per slot (``parts``:
        each slot's keys, by their place), sent as :meth:`pipeline` sends (each node's at
        once); MGET's values in the order of its keys, the others' counts summed."""
        name = words[0].upper()
        commands: list[list[bytes]] = []
        for slot_places in parts.values():
            command = [name]
            for place in slot_places:
                command.append(words[1 + place])
            commands.append(command)
        answers = await self.pipeline(*commands, timeout=timeout)
        if name != b"MGET":
            return sum(answers)
        values: list[Any] = [None] * (len(words) - 1)
        for places, answer in zip(parts.values(), answers, strict=True):
            for place, value in zip(places, answer, strict=True):
                values[place] = value
        return values

    async def _forget_unmapped(self) -> None:
        """Close the clients of nodes the map no longer names (nor the seeds): a cluster's
        clients are as many as its primaries, whatever MOVED and ASK named meanwhile."""
        kept = {*self.nodes, *self._seeds}
        for address in [address for address in self._nodes if address not in kept]:
            await self._nodes.pop(address).aclose()
            self._clients_changed(address)
        replicas = {address for named in self._replicas.values() for address in named}
        for address in [address for address in self._replica_nodes if address not in replicas]:
            await self._replica_nodes.pop(address).aclose()

    async def _drop_failed(self) -> None:
        """Close the clients of nodes whose connection failed (they connect no more): the
        next command to such a node makes a new one."""
        for clients in (self._nodes, self._replica_nodes):
            for address, node in list(clients.items()):
                if node.closed and clients.get(address) is node:
                    del clients[address]
                    if clients is self._nodes:
                        self._clients_changed(address)
                    await node.aclose()

    def _primary(self, slot: int | None) -> Address:
        """The primary the map names for ``slot`` (no slot: any primary); CLUSTERDOWN if none."""
        if slot is None:
            known = self.nodes
            if not known:
                raise ClosedError("no node of the cluster is known to serve any slot")
            return known[0]
        address = self._slots[slot]
        if address is None:
            raise ClusterDownError(f"CLUSTERDOWN no primary of the cluster serves slot {slot} now")
        return address

    async def _replica(self, primary: Address) -> Redis[Any]:
        """A READONLY client of one of ``primary``'s replicas, in turn."""
        replicas = self._replicas[primary]
        self._turn += 1
        return await self._node(replicas[self._turn % len(replicas)], self._replica_nodes)

    async def _node(self, address: Address, clients: dict[Address, Redis[Any]] | None = None) -> Redis[Any]:
        """The client of the node at ``address`` (among ``clients``: the primaries' by
        default, or the replicas', READONLY), made (and opened) if it is new or failed."""
        clients = self._nodes if clients is None else clients
        node = clients.get(address)
        if node is not None:
            return node  # a failed one is dropped where its failure is met
        async with self._making:  # threads of the blocking face make a node's client once
            if self._closed:  # closed meanwhile: no client is made again
                raise ClosedError("the cluster client is closed")
            node = clients.get(address)
            if node is None or node.closed:
                if node is not None:
                    await node.aclose()
                node = clients[address] = Redis(
                    *address, **self._settings, readonly=clients is self._replica_nodes)
                if clients is self._nodes:
                    self._clients_changed(address)
                await node.open()
        return node

    async def _refresh(self, until: float, force: bool = False) -> None:
        """Read the slot map from the first node that answers; one read at a time, and a
        map read less than ``_FRESH`` ago is taken as it is by the callers that waited (or
        came meanwhile). A read that began before a failed node was found replaced
        (:meth:`_replaced`) is dropped: it may not know of the replacement yet."""
        asked_at = time.monotonic()
        if not force and self._read_at >= asked_at - _FRESH and self._mapped:
            return
        async with self._reading:
            if not force and self._read_at >= asked_at - _FRESH and self._mapped:
                return
            failures: list[str] = []
            replacements = self._replacements
            for address in [*self.nodes, *(seed for seed in self._seeds if seed not in self.nodes)]:
                try:
                    node = await self._node(address)
                    slots, replicas = await _slot_map(node, address[0], _left(until))
                except (DualioError, ValueError) as exc:
                    failures.append(f"{address[0]}:{address[1]}: {exc}")
                    continue
                self._read_at = time.monotonic()
                if replacements != self._replacements and self._mapped:
                    return
                self._slots = slots
                self._by_slot = [self._direct(address) for address in slots]
                self._primaries = None
                self._replicas = replicas
                self._mapped = True
                await self._forget_unmapped()
                return
            raise ConnectError(f"no node of the cluster gave its slot map: {'; '.join(failures)}")

    # -- what is not offered yet --------------------------------------------------------

    async def pipeline(
        self, *commands: Sequence[Arg], raise_on_error: bool = True, timeout: Timeout = UNSET,
    ) -> list[Any]:
        """``commands`` grouped by the node of their keys' slot, each node's part in one write
        (``Redis.pipeline``), the parts sent at once (``together``: tasks on the async face,
        threads on the blocking one), and their values in the order given. A command
        answered MOVED or ASK (it did not run) is sent again alone, as :meth:`execute` sends
        it. Error replies as ``Redis.pipeline``; a node's connection lost raises once every
        part has ended, and nothing is sent again (some commands may have run)."""
        self._check_open()
        if not commands:
            return []
        until = _until(pick_timeout(timeout, self.timeout))
        if not self._mapped:
            await self._refresh(until)
        parts: dict[Address, list[int]] = {}
        for index, command in enumerate(commands):
            parts.setdefault(self._primary(_slot_of(_words(encode_command(*command)))), []).append(index)

        async def part(address: Address, indexes: list[int]) -> list[Any]:
            node = await self._node(address)
            try:
                return await node.pipeline(*(commands[i] for i in indexes), raise_on_error=False,
                                           timeout=_left(until))
            except RedisError as exc:  # a part of one command is sent as that command
                if len(indexes) > 1:
                    raise
                return [exc]

        values: list[Any] = [None] * len(commands)
        replies = await together([functools.partial(part, *node_part) for node_part in parts.items()])
        for indexes, answers in zip(parts.values(), replies, strict=True):
            for index, reply in zip(indexes, answers, strict=True):
                values[index] = reply
        for index, value in enumerate(values):
            if isinstance(value, MovedError | AskError):
                if isinstance(value, MovedError):
                    self._point(_redirected_slot(value), _redirected(value))
                values[index] = await self.execute(*commands[index], timeout=_left(until))
        if raise_on_error:
            for value in values:
                if isinstance(value, RedisError):
                    raise value
        return values

    async def transaction(
        self, *commands: Any, raise_on_error: bool = True, timeout: Timeout = UNSET, **options: Any,
    ) -> Any:
        """``commands`` as one transaction (MULTI ... EXEC, ``Redis.transaction``) on the node of
        their one slot: keys in different slots are refused before anything is sent. A
        transaction the node aborts because the slot moved (MOVED) is sent again where the
        map says, once the map is read again. ``transaction(func, *keys)``, redis-py's form with
        WATCH, runs ``Redis.transaction`` on the node of ``keys``'s one slot (the commands
        ``func`` sends go to that node: their keys must be in that slot)."""
        self._check_open()
        if commands and callable(commands[0]):
            func, *keys = commands
            node = await self._node_of_keys(keys, _until(pick_timeout(timeout, self.timeout)))
            return await node.transaction(func, *keys, timeout=timeout, **options)
        until = _until(pick_timeout(timeout, self.timeout))
        if not self._mapped:
            await self._refresh(until)
        slots = {slot for command in commands
                 if (slot := _slot_of(_words(encode_command(*command)))) is not None}
        if len(slots) > 1:
            raise UsageError(f"a transaction's keys must be in one slot, not {sorted(slots)}: give them one "
                             "hash tag")
        slot = next(iter(slots), None)
        attempt = 0
        while True:
            node = await self._node(self._primary(slot))
            try:
                return await node.transaction(*commands, raise_on_error=raise_on_error, timeout=_left(until))
            except RedisError as exc:
                attempt += 1
                moved = "MOVED" in str(exc) or "ASK" in str(exc)
                if not moved or attempt > self.max_redirects:
                    raise
                await self._refresh(until, force=True)

    async def scan_iter(
        self, match: Arg | None = None, count: int | None = None, _type: Arg | None = None, *,
        timeout: Timeout = UNSET,
    ) -> AsyncGenerator[S, None]:
        """Every key of the cluster (matching ``match``, of the type ``_type``): each primary
        the map names scanned in turn with a cursor of its own (``Redis.scan_iter`` there); a
        key may come twice, as SCAN gives it. A primary lost during the scan ends it with
        its error (its cursor is gone with it): scan again."""
        self._check_open()
        if not self._mapped:
            await self._refresh(_until(pick_timeout(timeout, self.timeout)))
        for address in self.nodes:
            node = await self._node(address)
            async for key in node.scan_iter(match, count, _type, timeout=timeout):
                yield key

    def watch(self, *names: Arg, timeout: Timeout = UNSET) -> AsyncClusterWatch:  # type: ignore[override]
        """WATCH ``names`` (keys of one slot) on a connection of their node's own:
        ``async with rc.watch("{u}:a", "{u}:b") as tx``, as ``Redis.watch`` on that node;
        keys in different slots are refused before anything is sent."""
        self._check_open()
        slot_of_keys(names)
        return AsyncClusterWatch(self, names, timeout)

    async def _node_of_keys(self, keys: Sequence[Arg], until: float) -> Redis[Any]:
        """The client of the primary that serves ``keys``'s one slot (UsageError if they are in several)."""
        slot = slot_of_keys(keys)
        if not self._mapped:
            await self._refresh(until)
        return await self._node(self._primary(slot))

    def subscribe(self, *channels: Arg, timeout: Timeout = UNSET) -> AsyncClusterSubscription[S]:
        """The messages of ``channels``, which every node of a cluster hears: a subscription
        on one primary, made again on another when that one is lost
        (:class:`AsyncClusterSubscription`)."""
        return AsyncClusterSubscription(self, "channel", channels, timeout)

    def psubscribe(self, *patterns: Arg, timeout: Timeout = UNSET) -> AsyncClusterSubscription[S]:
        """The messages of every channel matching ``patterns``, as :meth:`subscribe`."""
        return AsyncClusterSubscription(self, "pattern", patterns, timeout)

    def ssubscribe(self, *channels: Arg, timeout: Timeout = UNSET) -> AsyncClusterSubscription[S]:
        """The messages of shard ``channels`` (one slot's: SPUBLISH's), on the node that
        serves their slot, and on the next one when the slot moves or its primary fails
        (:class:`AsyncClusterSubscription`); channels in several slots are refused at once."""
        return AsyncClusterSubscription(self, "shard", channels, timeout)

    def dedicated(self, timeout: Timeout = UNSET) -> Any:
        raise UsageError("a dedicated connection on a cluster is not offered yet")

    def has_pending_input(self) -> bool:
        return True

    async def ping(self, *, timeout: Timeout = UNSET) -> float:
        """Round-trip time of a PING to one primary, in seconds."""
        started = time.perf_counter()
        await self.request(Request("PING", encode_command("PING"), self._value, True), timeout)
        return time.perf_counter() - started

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {len(self.nodes)} primaries {'closed' if self._closed else 'open'}>"


# -- pieces -------------------------------------------------------------------------------------

def _until(seconds: float | None) -> float:
    return float("inf") if seconds is None else time.monotonic() + seconds


def _left(until: float) -> float | None:
    """Seconds until ``until`` (None: no limit), at least a little, so a call at its very
    end times out in the node's own way."""
    if until == float("inf"):
        return None
    return max(until - time.monotonic(), 1e-6)


_FIRST_KEY = (("index", 1, 0, "range", 0, 1, 0),)
_FIRST_KEY_ONLY = {
    name: len(encode_command(name)) - len(b"*1\r\n")
    for name, specs in KEY_SPECS.items() if specs == _FIRST_KEY and " " not in name
}
"""Commands whose one key is their first argument (most), their slot read from it alone: by
name, the length of the name's bulk string (``$3\r\nGET\r\n``), which the key's follows."""


def _words(args: bytes) -> list[bytes]:
    """A command's words, from its array of bulk strings (as ``encode_command`` makes it)."""
    value = parse(args)
    if not isinstance(value, list):
        return []
    return [part if isinstance(part, bytes) else str(part).encode() for part in value]


def _names(words: list[bytes]) -> tuple[str, str]:
    """A command's name, and its name with its second word (a container's subcommand)."""
    name = words[0].decode(errors="replace").upper()
    return name, f"{name} {words[1].decode(errors='replace').upper()}" if len(words) > 1 else ""


def _slot_of(words: list[bytes]) -> int | None:
    """The slot of a command's keys (None: it has none); a UsageError for keys in several,
    and for a command of every primary's (:data:`EVERY_NODE`, :data:`REFUSED`)."""
    if not words:
        return None
    name, container = _names(words)
    if name in REFUSED:
        raise UsageError(f"{name} answers for every primary, with a cursor of one: use scan_iter, which "
                         "scans every primary in turn")
    if name in EVERY_NODE or container in EVERY_NODE:
        raise UsageError(f"{name} runs on every primary: send it alone, not in a batch")
    keys = command_keys(words)
    slots = {key_slot(key) for key in keys}
    if len(slots) > 1:
        raise UsageError(f"the keys of {name} are in different slots ({sorted(slots)}): a cluster "
                         "runs a command on one node; give them one hash tag, as {user1}:a and {user1}:b")
    return slots.pop() if slots else None


def _every_node(words: list[bytes]) -> str | None:
    """The name of a command whose answer is every primary's (:data:`EVERY_NODE`), or None."""
    if not words:
        return None
    name, container = _names(words)
    return container if container in EVERY_NODE else name if name in EVERY_NODE else None


def _joined(name: str, answers: list[Any]) -> Any:
    """Every primary's answer to ``name`` as the cluster's, by the spec's response policy:
    summed (DBSIZE), the least (WAIT), true where every one is (SCRIPT EXISTS), the first
    (FLUSHALL, SCRIPT LOAD: each the same; SCRIPT KILL: the one that succeeded); with none,
    lists joined (KEYS, SLOWLOG GET) and any other the first that is not None (RANDOMKEY)."""
    policy = RESPONSE_POLICY.get(name)
    if policy == "agg_sum":
        return sum(answers)
    if policy == "agg_min":
        return min(answers)
    if policy == "agg_logical_and":
        return [all(found) for found in zip(*answers, strict=True)]
    if policy is None and all(isinstance(answer, list) for answer in answers):
        return [item for answer in answers for item in answer]
    return next((answer for answer in answers if answer is not None), None)


def _split_by_slot(words: list[bytes]) -> dict[int, list[int]]:
    """For a :data:`SPLIT` command (every argument a key): each slot's keys, by their place
    among the keys; empty for any other command."""
    if not words or words[0].upper().decode(errors="replace") not in SPLIT:
        return {}
    parts: dict[int, list[int]] = {}
    for place, key in enumerate(words[1:]):
        parts.setdefault(key_slot(key), []).append(place)
    return parts


def _redirected(error: RedisError) -> Address:
    """The node a MOVED or ASK names: ``MOVED <slot> <host>:<port>`` (a ProtocolError if
    it names none)."""
    host, _, port = error.message.split(" ")[-1].rpartition(":")
    try:
        return _address(host, port, "")
    except ValueError:
        raise ProtocolError(f"a redirection that names no node: {error}") from None


def _redirected_slot(error: RedisError) -> int:
    """The slot a MOVED or ASK names (a ProtocolError if it names none in 0-16383)."""
    try:
        slot = int(error.message.split(" ")[0])
    except ValueError:
        slot = -1
    if not 0 <= slot < SLOTS:
        raise ProtocolError(f"a redirection that names no slot: {error}")
    return slot


def _asking(request: Request[T]) -> Request[T]:
    """ASKING and ``request`` in one write, their two replies read as the second's."""
    def decode(joined: bytes) -> T:
        reply = joined[joined.index(b"\r\n") + 2 :]  # after ASKING's +OK
        if reply[:1] == b"-":
            raise redis_error(reply[1:].rstrip(b"\r\n").decode(errors="replace"))
        return request.decode(reply)

    return Request(request.method, _ASKING + request.args, decode, request.idempotent, 2)


async def _slot_map(
    node: Redis[Any], asked: str, timeout: float | None,
) -> tuple[list[Address | None], dict[Address, list[Address]]]:
    """The primary of every slot, and each primary's replicas that are up, from CLUSTER SHARDS
    (CLUSTER SLOTS when the node refuses it, as before Redis 7) of the node at host
    ``asked``, which stands for a host the node does not know (``""``, ``?``). Ranges are
    taken in the order given, a later one over an earlier where they overlap; slots no
    range names are served by nobody (a command for one goes through any primary, which
    answers it, redirects it or refuses it). A map of any other shape, a slot out of
    0..16383 or a port out of 1..65535 is a :class:`~dualio.ProtocolError`."""
    slots: list[Address | None] = [None] * SLOTS
    replicas: dict[Address, list[Address]] = {}
    try:
        shards = await node.execute("CLUSTER", "SHARDS", timeout=timeout)
    except RedisError:
        ranges = await node.execute("CLUSTER", "SLOTS", timeout=timeout)
        try:
            for start, end, primary, *others in ranges:
                address = _address(primary[0] or asked, primary[1], asked)
                _assign(slots, start, end, address)
                if others:
                    replicas[address] = [_address(r[0] or asked, r[1], asked) for r in others]
        except (TypeError, ValueError, IndexError) as exc:
            raise ProtocolError(f"CLUSTER SLOTS of unexpected shape ({exc}): {ranges!r:.200}") from None
        return slots, replicas
    try:
        for shard in shards:
            fields = {_text(k): v for k, v in shard.items()}
            nodes = [{_text(k): v for k, v in n.items()} for n in fields["nodes"]]
            primaries = [
                n for n in nodes if _text(n.get("role")) == "master" and _text(n.get("health")) != "fail"
            ]
            if not primaries:
                continue
            primary = primaries[0]
            address = _address(primary.get("ip") or primary.get("endpoint"), primary.get("port"), asked)
            ranges = fields["slots"]
            for start, end in zip(ranges[::2], ranges[1::2], strict=True):
                _assign(slots, start, end, address)
            up = [_address(n.get("ip") or n.get("endpoint"), n.get("port"), asked) for n in nodes
                  if _text(n.get("role")) == "replica" and _text(n.get("health")) != "fail"]
            if up:
                replicas[address] = up
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
        raise ProtocolError(f"CLUSTER SHARDS of unexpected shape ({exc}): {shards!r:.200}") from None
    return slots, replicas


def _assign(slots: list[Address | None], start: Any, end: Any, address: Address) -> None:
    """``slots[start..end]`` served by ``address`` (a ValueError for a range out of the slots)."""
    first, last = int(start), int(end)
    if not 0 <= first <= last < SLOTS:
        raise ValueError(f"slots {first}-{last} are not within 0-{SLOTS - 1}")
    slots[first : last + 1] = [address] * (last - first + 1)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _address(host: Any, port: Any, asked: str) -> Address:
    text = _text(host) if host is not None else ""
    number = int(port)
    if not 0 < number <= 0xFFFF:
        raise ValueError(f"port {number} is not within 1-65535")
    return (asked if text in ("", "?") else text), number


def slot_of_keys(keys: Sequence[Arg]) -> int:
    """The one slot of ``keys``: a UsageError when there are none, or they are in several."""
    if not keys:
        raise UsageError("WATCH on a cluster needs the keys it watches")
    return _one_slot(keys, "keys watched")


class AsyncClusterSubscription(AsyncSubscription[S]):
    """A subscription of a cluster (:meth:`RedisCluster.subscribe`, ``psubscribe``,
    ``ssubscribe``), used as ``Redis``'s (:class:`~dualio.redis.commands.AsyncSubscription`).

    Channels and patterns are subscribed on one primary (a cluster's nodes all hear every
    PUBLISH); shard channels on the primary of their one slot, found as a command's node
    is, MOVED followed. When that node's connection is lost, or the node unsubscribes the
    channels itself because their slot moved (:class:`ShardMovedError`), the subscription
    is made again where the map says now: through another primary while a failed one's
    replica is promoted, every ``_POLL`` within the subscription's timeout and ``retry``.
    Messages published in between are not delivered, as on one node. ``node`` is where
    it is subscribed now."""

    def __init__(self, cluster: RedisCluster[S], kind: Kind, names: Sequence[Arg], timeout: Timeout) -> None:
        super().__init__(cast(Any, cluster), kind, names, timeout)
        self._cluster: RedisCluster[S] = cluster
        self._shard = _one_slot(names, "shard channels subscribed") if kind == "shard" else None
        self.node: Address | None = None
        self._own: Redis[Any] | None = None  # a shard subscription's client of its own

    async def _following(self) -> AsyncGenerator[Message[S] | None, None]:
        cluster = self._cluster
        error: DualioError | None = None
        while True:
            until = _until(self._timeout)
            items, confirmation = await cluster._routed(
                self._shard, self._subscribed, until, True, False, error, self.node)
            try:
                yield confirmation
                async for item in items:
                    yield item
                return
            except (ConnectError, ClosedError, ShardMovedError) as exc:
                if cluster.closed:
                    raise
                log.info("a cluster subscription lost node %s (%s): subscribing again", self.node, exc)
                error = None if isinstance(exc, ShardMovedError) else exc  # the map's node answers MOVED
            finally:
                await items.aclose()
                if self._own is not None:
                    await self._own.aclose()
                    self._own = None

    async def _subscribed(
        self, node: Redis[Any], asked: bool, left: float | None,
    ) -> tuple[AsyncGenerator[Message[S] | None, None], Message[S] | None]:
        """The subscription's stream at ``node``'s address, and its first item, the server's
        confirmation. Shard channels get a connection of their own (a node that no longer
        serves their slot answers SUNSUBSCRIBE with MOVED in the order of replies, so leaving
        them ends their connection: ``RedisProtocol.cancel``); channels and patterns share
        the node's."""
        if asked:  # a slot being moved: its channels' subscribers follow it once it has
            raise TryAgainError("TRYAGAIN the channels' slot is moving")
        address = (node.host, node.port)
        own = Redis(*address, **self._cluster._settings) if self._shard is not None else None
        items: AsyncGenerator[Message[S] | None, None] | None = None
        try:
            if own is not None:
                await own.open()
            items = (own or node).stream(self._request, left, None)
            first = await items.__anext__()
        except BaseException:
            if items is not None:
                await items.aclose()
            if own is not None:
                await own.aclose()
            raise
        self.node, self._own = address, own
        return items, first


def _one_slot(names: Sequence[Arg], what: str) -> int:
    """The one slot of ``names`` (keys, shard channels; at least one): a UsageError naming
    ``what`` when they are in several."""
    slots = {key_slot(word) for word in _words(encode_command("WATCH", *names))[1:]}
    if len(slots) > 1:
        raise UsageError(f"{what} together must be in one slot, not {sorted(slots)}: give them one hash tag")
    return slots.pop()


class AsyncClusterWatch:
    """``RedisCluster.watch``: ``Redis.watch`` on the node of the keys' slot, found (the
    map read if need be) as the block is entered."""

    def __init__(self, cluster: RedisCluster[Any], names: Sequence[Arg], timeout: Timeout) -> None:
        self._cluster = cluster
        self._names = names
        self._timeout = timeout
        self._watch: AsyncWatch[Any] | None = None

    async def __aenter__(self) -> AsyncWatch[Any]:
        cluster = self._cluster
        node = await cluster._node_of_keys(self._names, _until(pick_timeout(self._timeout, cluster.timeout)))
        self._watch = node.watch(*self._names, timeout=self._timeout)
        return await self._watch.__aenter__()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None,
    ) -> None:
        if self._watch is not None:
            await self._watch.__aexit__(exc_type, exc, tb)
