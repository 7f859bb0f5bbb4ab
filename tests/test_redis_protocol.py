"""The Redis protocol (RESP3) on the core: the call table driven by RedisProtocol, as
tests/test_wire_interface.py drives it with a toy protocol answered in order."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dualio.redis.commands import AsyncRedisCommands
from dualio_sync.redis.commands import RedisCommands
from dualio_transports.redis_protocol.client_protocol import MessageKind, RedisProtocol
from dualio_transports.redis_protocol.errors import MovedError, RedisError, ShardMovedError
from dualio_transports.redis_protocol.resp import ReplyReader, encode_command, parse
from dualio_transports.wire import procedure
from dualio_transports.wire.call_table import CallState, CallTable, Next
from dualio_transports.wire.errors import (
    AuthenticationError,
    ConnectError,
    ConnectionLost,
    FrameTooLarge,
    ProtocolError,
    RemoteError,
    UsageError,
    VersionMismatch,
)
from dualio_transports.wire.protocol import CallKind, Message

ROOT = Path(__file__).resolve().parent.parent


def hello_map(proto: int = 3) -> bytes:
    """A HELLO reply as Redis 7 writes it."""
    return (
        b"%%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$5\r\n7.2.4\r\n"
        b"$5\r\nproto\r\n:%d\r\n$2\r\nid\r\n:5\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n"
        b"$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n" % proto
    )


def opened(protocol: RedisProtocol | None = None) -> CallTable[None]:
    table: CallTable[None] = CallTable(protocol or RedisProtocol(), now=0.0)
    assert table.hello() == b"*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n"
    assert table.receive(hello_map(), 0.0) is None
    assert table.handshake.done and table.protocol.is_open
    return table


def start(table: CallTable[None], *command: str | bytes | int) -> CallState[None]:
    args = encode_command(*command)
    call, data = table.start(CallKind.UNARY, str(command[0]), args)
    assert data == args
    return call


def subscribe(table: CallTable[None], method: str, *names: str) -> CallState[None]:
    call, data = table.start(CallKind.STREAM, method, encode_command(method, *names))
    assert parse(data) == [method.encode(), *(name.encode() for name in names)]
    return call


def push(*parts: bytes) -> bytes:
    return b">%d\r\n" % len(parts) + b"".join(b"$%d\r\n%b\r\n" % (len(p), p) for p in parts)


def confirm(kind: bytes, name: bytes, count: int) -> bytes:
    return b">3\r\n$%d\r\n%b\r\n$%d\r\n%b\r\n:%d\r\n" % (len(kind), kind, len(name), name, count)


# -- the handshake ---------------------------------------------------------------------

@pytest.mark.parametrize(("options", "commands"), [
    ({}, [["HELLO", "3"]]),
    ({"password": "s3cret"}, [["AUTH", "s3cret"], ["HELLO", "3"]]),
    ({"username": "app", "password": "pw"}, [["AUTH", "app", "pw"], ["HELLO", "3"]]),
    ({"client_name": "worker-1"}, [["HELLO", "3"], ["CLIENT", "SETNAME", "worker-1"]]),
    ({"username": "u", "password": "p", "client_name": "n"},
     [["AUTH", "u", "p"], ["HELLO", "3"], ["CLIENT", "SETNAME", "n"]]),
])
def test_the_handshake_is_auth_hello_3_and_setname_in_one_write(
    options: dict[str, str], commands: list[list[str]]
) -> None:
    table: CallTable[None] = CallTable(RedisProtocol(**options), now=0.0)  # type: ignore[arg-type]
    assert table.hello() == b"".join(encode_command(*command) for command in commands)
    replies = [hello_map() if command[0] == "HELLO" else b"+OK\r\n" for command in commands]
    for reply in replies[:-1]:
        assert table.receive(reply, 0.0) is None and not table.handshake.done
    assert table.receive(replies[-1], 0.0) is None
    assert table.handshake.done and table.protocol.is_open
    assert table.protocol.resp == 3  # type: ignore[attr-defined]
    table.handshake_outcome()


def test_a_server_that_does_not_know_hello_is_spoken_to_in_resp2() -> None:
    """Redis before 6: AUTH went first, so the connection is authenticated whatever HELLO
    meets; commands work, subscribing is refused."""
    protocol = RedisProtocol(password="pw", client_name="n", db=1)
    table: CallTable[None] = CallTable(protocol, now=0.0)
    table.hello()
    refused = b"-ERR unknown command 'HELLO', with args beginning with: '3' \r\n"
    assert table.receive(b"+OK\r\n" + refused + b"+OK\r\n+OK\r\n", 0.0) is None
    assert table.handshake.done and protocol.is_open and protocol.resp == 2
    table.handshake_outcome()
    call = start(table, "HGETALL", "h")
    assert table.receive(b"*2\r\n$1\r\nf\r\n$1\r\nv\r\n", 0.0) is None
    assert parse(call.outcome()) == [b"f", b"v"]
    with pytest.raises(UsageError, match="RESP3"):
        table.start(CallKind.STREAM, "SUBSCRIBE", encode_command("SUBSCRIBE", "c"))


def test_a_database_is_selected_in_the_same_write_and_its_ok_ends_the_handshake() -> None:
    table: CallTable[None] = CallTable(RedisProtocol(password="pw", db=2), now=0.0)
    hello = table.hello()
    assert hello == b"".join(encode_command(*c) for c in (("AUTH", "pw"), ("HELLO", "3"), ("SELECT", "2")))
    assert table.receive(b"+OK\r\n" + hello_map(), 0.0) is None
    assert not table.handshake.done and not table.protocol.is_open
    assert table.receive(b"+O", 0.0) is None
    assert table.receive(b"K\r\n", 0.0) is None
    assert table.handshake.done and table.protocol.is_open
    call = start(table, "GET", "k")
    assert table.receive(b"$1\r\nv\r\n", 0.0) is None
    assert parse(call.outcome()) == b"v"


@pytest.mark.parametrize(("options", "replies", "error", "text"), [
    ({"password": "x"}, b"-WRONGPASS invalid username-password pair or user is disabled.\r\n",
     AuthenticationError, "WRONGPASS"),
    ({}, b"-NOAUTH HELLO must be called with the client already authenticated\r\n",
     AuthenticationError, "NOAUTH"),
    ({}, b"-NOPROTO unsupported protocol version\r\n", VersionMismatch, "does not speak RESP3"),
    ({"password": "x"}, b":1\r\n", ProtocolError, "answered AUTH with 1"),
    ({}, hello_map(proto=2), VersionMismatch, "protocol 2"),
    ({}, b"+OK\r\n", ProtocolError, "not a map"),
    ({"db": 99}, hello_map() + b"-ERR DB index is out of range\r\n", ConnectError, "refused SELECT"),
    ({"db": 1}, hello_map() + b":1\r\n", ProtocolError, "answered SELECT with 1"),
])
def test_a_refused_handshake_fails_the_connection(
    options: dict[str, object], replies: bytes, error: type[Exception], text: str
) -> None:
    table: CallTable[None] = CallTable(RedisProtocol(**options), now=0.0)  # type: ignore[arg-type]
    table.hello()
    failure = table.receive(replies, 0.0)
    assert type(failure) is error and text in str(failure)
    with pytest.raises(ConnectError, match=text):  # a ProtocolError too, as a ConnectError
        table.handshake_outcome()


def test_a_username_needs_a_password_and_a_database_is_not_negative() -> None:
    with pytest.raises(ValueError, match="password"):
        RedisProtocol(username="u")
    with pytest.raises(ValueError, match="db"):
        RedisProtocol(db=-1)


# -- commands ----------------------------------------------------------------------------

def test_replies_reach_concurrent_commands_in_the_order_they_were_written() -> None:
    table = opened()
    put, get, missing, count = (
        start(table, "SET", "k", "v"), start(table, "GET", "k"), start(table, "GET", "nope"),
        start(table, "INCR", "n"),
    )
    assert table.receive(b"+OK\r\n$1\r\nv\r\n_\r", 0.0) is None
    assert put.outcome() == b"+OK\r\n" and get.outcome() == b"$1\r\nv\r\n" and not missing.done
    assert table.receive(b"\n:7\r\n", 0.0) is None
    assert parse(missing.outcome()) is None and parse(count.outcome()) == 7
    assert table.in_flight == 0


def test_an_error_reply_fails_its_own_command_only() -> None:
    table = opened()
    first, wrong, last = start(table, "GET", "a"), start(table, "LPUSH", "a", "x"), start(table, "GET", "b")
    replies = b"$1\r\n1\r\n-WRONGTYPE Operation against a key holding the wrong kind of value\r\n$1\r\n2\r\n"
    assert table.receive(replies, 0.0) is None
    assert first.outcome() == b"$1\r\n1\r\n" and last.outcome() == b"$1\r\n2\r\n"
    with pytest.raises(RedisError) as caught:
        wrong.outcome()
    assert isinstance(caught.value, RemoteError)
    assert caught.value.prefix == "WRONGTYPE" and caught.value.message.startswith("Operation against")
    assert not caught.value.retryable
    assert table.failure is None


def test_a_bulk_error_reply_and_a_retryable_one() -> None:
    table = opened()
    syntax, busy = start(table, "EVAL", "x", 0), start(table, "EVAL", "y", 0)
    replies = b"!21\r\nSYNTAX invalid syntax\r\n-BUSY Redis is busy running a script\r\n"
    assert table.receive(replies, 0.0) is None
    with pytest.raises(RedisError, match="SYNTAX invalid syntax"):
        syntax.outcome()
    with pytest.raises(RedisError) as caught:
        busy.outcome()
    assert caught.value.prefix == "BUSY" and caught.value.retryable


def test_a_given_up_commands_reply_is_read_and_dropped_and_nothing_is_sent() -> None:
    table = opened()
    left, kept = start(table, "GET", "slow"), start(table, "GET", "next")
    assert list(procedure.give_up(table, left)) == []
    assert left.abandoned and table.in_flight == 2
    assert table.receive(b"$4\r\nlate\r\n$4\r\nmine\r\n", 0.0) is None
    assert kept.outcome() == b"$4\r\nmine\r\n"
    assert table.dropped == 1 and table.in_flight == 0


@pytest.mark.parametrize("command", [
    ("BLPOP", "q", 0), ("BRPOP", "q", 0), ("BLMOVE", "a", "b", "LEFT", "RIGHT", 0),
    ("BRPOPLPUSH", "a", "b", 0),
    ("BZPOPMIN", "z", 0), ("BZPOPMAX", "z", 0), ("BLMPOP", 0, 1, "q", "LEFT"), ("BZMPOP", 0, 1, "z", "MIN"),
    ("XREAD", "COUNT", 1, "BLOCK", 0, "STREAMS", "s", "$"),
    ("XREADGROUP", "GROUP", "g", "c", "BLOCK", 0, "STREAMS", "s", ">"),
    ("WAIT", 1, 0), ("WAITAOF", 1, 0, 0), ("blpop", "q", 0),
])
def test_a_command_the_server_holds_cannot_be_given_up_without_the_connection(
    command: tuple[str | int, ...],
) -> None:
    table = opened()
    held, behind = start(table, *command), start(table, "GET", "x")  # type: ignore[arg-type]
    assert list(procedure.give_up(table, held)) == []
    assert isinstance(table.failure, ConnectionLost) and "held it" in str(table.failure)
    with pytest.raises(ConnectionLost):
        behind.outcome()


@pytest.mark.parametrize("command", [
    ("XREAD", "COUNT", 1, "STREAMS", "BLOCK", "0"),  # a stream named BLOCK
    ("XREADGROUP", "GROUP", "BLOCK", "BLOCK", "STREAMS", "s", ">"),  # a group and a consumer named BLOCK
    ("GET", "BLOCK"),
])
def test_the_same_commands_without_block_are_given_up_as_any(command: tuple[str | int, ...]) -> None:
    table = opened()
    call = start(table, *command)  # type: ignore[arg-type]
    assert list(procedure.give_up(table, call)) == []
    assert table.failure is None and call.abandoned


def test_a_reply_nobody_asked_for_fails_the_connection() -> None:
    table = opened()
    failure = table.receive(b"+OK\r\n", 0.0)
    assert isinstance(failure, ProtocolError) and "reply nobody asked for" in str(failure)


def test_garbage_fails_the_connection() -> None:
    table = opened()
    call = start(table, "GET", "a")
    assert isinstance(table.receive(b"@what\r\n", 0.0), ProtocolError)
    with pytest.raises(ProtocolError, match="unknown RESP3 type"):
        call.outcome()


def test_the_keepalive_probe_is_ping_answered_in_order() -> None:
    table = opened()
    table.keepalive = 0.001
    busy = start(table, "GET", "a")
    assert table.keepalive_due(1.0) == b"*1\r\n$4\r\nPING\r\n"  # a second of silence
    assert table.receive(b"$1\r\na\r\n+PONG\r\n", 1.0) is None
    assert busy.outcome() == b"$1\r\na\r\n" and table.in_flight == 0


def test_goodbye_says_nothing() -> None:
    table = opened()
    assert table.close() == b"" and not table.protocol.is_open
    assert table.protocol.goodbye() == b""


# -- subscriptions -----------------------------------------------------------------------

def test_pushes_feed_their_subscription_between_replies_and_unsubscribing_ends_it() -> None:
    table = opened()
    get_before = start(table, "GET", "a")
    news = subscribe(table, "SUBSCRIBE", "news", "sport")
    get = start(table, "GET", "b")
    message = push(b"message", b"news", b"hello")
    stranger = push(b"message", b"weather", b"rain")  # nobody here subscribes to it
    incoming = (
        b"$1\r\na\r\n" + confirm(b"subscribe", b"news", 1) + confirm(b"subscribe", b"sport", 2) + message
        + b"$1\r\nb\r\n" + stranger + push(b"message", b"sport", b"goal")
        + b">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n"  # client tracking: dropped
    )
    assert table.receive(incoming, 0.0) is None
    assert get_before.outcome() == b"$1\r\na\r\n" and get.outcome() == b"$1\r\nb\r\n"
    assert table.next_item(news) == confirm(b"subscribe", b"sport", 2)  # the last confirmation: it is live
    assert table.next_item(news) == message
    assert parse(table.next_item(news)) == [b"message", b"sport", b"goal"]  # type: ignore[arg-type]
    assert table.next_item(news) is Next.WAIT
    assert table.receive(confirm(b"unsubscribe", b"news", 1), 0.0) is None  # not asked for: dropped
    assert table.give_up(news) == encode_command("UNSUBSCRIBE", "news", "sport")
    assert table.receive(confirm(b"unsubscribe", b"news", 1), 0.0) is None
    assert table.in_flight == 1
    assert table.receive(confirm(b"unsubscribe", b"sport", 0), 0.0) is None
    assert table.in_flight == 0 and table.failure is None


def test_a_pattern_subscription_gets_the_messages_of_its_pattern() -> None:
    table = opened()
    channels, patterns = subscribe(table, "SUBSCRIBE", "news.1"), subscribe(table, "PSUBSCRIBE", "news.*")
    pmessage = push(b"pmessage", b"news.*", b"news.1", b"both")
    assert table.receive(
        confirm(b"subscribe", b"news.1", 1) + confirm(b"psubscribe", b"news.*", 2)
        + push(b"message", b"news.1", b"both") + pmessage, 0.0,
    ) is None
    assert parse(table.next_item(channels))[0] == b"subscribe"  # type: ignore[index,arg-type]
    assert parse(table.next_item(channels)) == [b"message", b"news.1", b"both"]  # type: ignore[arg-type]
    assert parse(table.next_item(patterns))[0] == b"psubscribe"  # type: ignore[index,arg-type]
    assert table.next_item(patterns) == pmessage
    assert table.give_up(patterns) == encode_command("PUNSUBSCRIBE", "news.*")
    assert table.receive(confirm(b"punsubscribe", b"news.*", 1), 0.0) is None
    assert table.next_item(channels) is Next.WAIT and table.in_flight == 1


def test_shard_channels_are_subscribed_apart_from_plain_channels_of_the_same_name() -> None:
    table = opened()
    shard, plain = subscribe(table, "SSUBSCRIBE", "news"), subscribe(table, "SUBSCRIBE", "news")
    smessage = push(b"smessage", b"news", b"shard")
    assert table.receive(
        confirm(b"ssubscribe", b"news", 1) + confirm(b"subscribe", b"news", 1) + smessage
        + push(b"message", b"news", b"plain"), 0.0,
    ) is None
    assert parse(table.next_item(shard))[0] == b"ssubscribe"  # type: ignore[index,arg-type]
    assert table.next_item(shard) == smessage and table.next_item(shard) is Next.WAIT
    assert parse(table.next_item(plain))[0] == b"subscribe"  # type: ignore[index,arg-type]
    assert parse(table.next_item(plain)) == [b"message", b"news", b"plain"]  # type: ignore[arg-type]
    assert table.give_up(plain) == encode_command("UNSUBSCRIBE", "news")
    get = start(table, "GET", "k")
    # a node that no longer serves the slot answers SUNSUBSCRIBE with MOVED in the order of
    # replies, where GET's is awaited: a shard subscription is given up with its connection
    assert table.give_up(shard) == b"" and table.failure is not None
    with pytest.raises(ConnectionLost, match="cannot be used again"):
        get.outcome()


def test_a_node_that_unsubscribes_shard_channels_itself_ends_their_subscription_with_shard_moved() -> None:
    """A cluster node whose slot moved away sends ``sunsubscribe`` for each of its shard
    channels unasked: the first ends the subscription (ShardMovedError), the rest are
    dropped, and nothing is sent to unsubscribe what the node already dropped."""
    table = opened()
    shard = subscribe(table, "SSUBSCRIBE", "{n}a", "{n}b")
    other = subscribe(table, "SSUBSCRIBE", "{m}c")
    unconfirmed = subscribe(table, "SSUBSCRIBE", "{n}d")
    assert table.receive(
        confirm(b"ssubscribe", b"{n}a", 1) + confirm(b"ssubscribe", b"{n}b", 2)
        + confirm(b"ssubscribe", b"{m}c", 3), 0.0,
    ) is None
    get = start(table, "GET", "k")
    assert table.receive(
        confirm(b"sunsubscribe", b"{n}a", 2) + confirm(b"sunsubscribe", b"{n}b", 1)
        + confirm(b"sunsubscribe", b"{n}d", 1)  # not confirmed yet: nobody's
        + push(b"smessage", b"{n}a", b"late"), 0.0,  # the node's no more: nobody's
    ) is None
    assert parse(table.next_item(shard))[0] == b"ssubscribe"  # type: ignore[index,arg-type]
    with pytest.raises(ShardMovedError, match=r"shard channel \{n\}a: its slot is another node's now"):
        table.next_item(shard)
    assert table.give_up(shard) == b""  # it had ended
    assert table.receive(b"-MOVED 1 127.0.0.1:7001\r\n$1\r\nv\r\n", 0.0) is None
    with pytest.raises(MovedError):
        table.next_item(unconfirmed)
    assert get.outcome() == b"$1\r\nv\r\n"
    assert parse(table.next_item(other))[0] == b"ssubscribe"  # type: ignore[index,arg-type]
    assert table.next_item(other) is Next.WAIT and table.failure is None


def test_giving_up_a_subscription_unsubscribes_its_names_and_the_confirmations_free_it() -> None:
    table = opened()
    both = subscribe(table, "SUBSCRIBE", "a", "b")
    pattern = subscribe(table, "PSUBSCRIBE", "p*")
    assert table.give_up(both) == encode_command("UNSUBSCRIBE", "a", "b")
    assert table.give_up(pattern) == encode_command("PUNSUBSCRIBE", "p*")
    assert table.in_flight == 2
    get = start(table, "GET", "k")
    assert table.receive(
        confirm(b"subscribe", b"a", 1) + confirm(b"subscribe", b"b", 2) + confirm(b"psubscribe", b"p*", 3)
        + push(b"message", b"a", b"late")  # dropped: the caller left
        + confirm(b"unsubscribe", b"a", 2) + confirm(b"unsubscribe", b"b", 1)
        + confirm(b"punsubscribe", b"p*", 0) + b"$1\r\nv\r\n", 0.0,
    ) is None
    assert get.outcome() == b"$1\r\nv\r\n"
    assert table.in_flight == 0 and table.failure is None


def test_a_channel_given_up_and_subscribed_again_at_once_goes_to_the_new_subscription() -> None:
    table = opened()
    old = subscribe(table, "SUBSCRIBE", "ch")
    assert table.receive(confirm(b"subscribe", b"ch", 1), 0.0) is None
    assert table.give_up(old) == encode_command("UNSUBSCRIBE", "ch")
    new = subscribe(table, "SUBSCRIBE", "ch")
    assert table.receive(
        confirm(b"unsubscribe", b"ch", 0) + confirm(b"subscribe", b"ch", 1) + push(b"message", b"ch", b"m"),
        0.0,
    ) is None
    assert parse(table.next_item(new))[0] == b"subscribe"  # type: ignore[index,arg-type]
    assert parse(table.next_item(new)) == [b"message", b"ch", b"m"]  # type: ignore[arg-type]
    assert table.in_flight == 1 and table.dropped == 1  # the old one's confirmation came after it left


def test_an_error_reply_to_subscribe_fails_that_subscription_only() -> None:
    table = opened()
    secret = subscribe(table, "SUBSCRIBE", "secret")
    get = start(table, "GET", "a")
    denied = b"-NOPERM User app has no permissions to access the 'secret' channel\r\n"
    assert table.receive(denied + b"$1\r\na\r\n", 0.0) is None
    with pytest.raises(RedisError, match="NOPERM"):
        table.next_item(secret)
    assert get.outcome() == b"$1\r\na\r\n"
    again = subscribe(table, "SUBSCRIBE", "secret")  # a refused name leaves nothing behind
    assert table.receive(confirm(b"subscribe", b"secret", 1), 0.0) is None
    assert parse(table.next_item(again))[0] == b"subscribe"  # type: ignore[index,arg-type]


def test_a_batch_of_commands_is_answered_by_one_reply_per_command_joined() -> None:
    table = opened()
    batch = encode_command("SET", "k", "v") + encode_command("LPOP", "k") + encode_command("GET", "k")
    call, _ = table.start(CallKind.UNARY, "pipeline", batch, 3)
    get = start(table, "GET", "other")
    replies = b"+OK\r\n-WRONGTYPE Operation against a key holding the wrong kind of value\r\n$1\r\nv\r\n"
    assert table.receive(replies[:7], 0.0) is None and not call.done
    assert table.receive(replies[7:] + b"_\r\n", 0.0) is None
    assert call.outcome() == replies  # an error among them is the batch's to read, not the call's
    assert get.outcome() == b"_\r\n"


def test_only_a_unary_call_on_a_protocol_answered_in_order_has_several_answers() -> None:
    table = opened()
    with pytest.raises(UsageError, match="several"):
        table.start(CallKind.STREAM, "SUBSCRIBE", encode_command("SUBSCRIBE", "a"), 2)
    with pytest.raises(UsageError, match="several"):
        table.start(CallKind.UNARY, "pipeline", encode_command("GET", "a"), -1)


def test_a_request_that_expects_no_answer_is_done_as_it_starts_and_takes_no_place_in_the_order() -> None:
    table = opened()
    quiet, data = table.start(CallKind.UNARY, "SET", encode_command("SET", "a", "1"), 0)
    assert quiet.done and quiet.outcome() == b"" and data == encode_command("SET", "a", "1")
    assert table.in_flight == 0
    get, _ = table.start(CallKind.UNARY, "GET", encode_command("GET", "a"))
    assert table.receive(b"$1\r\n1\r\n", 0.0) is None
    assert get.done and get.outcome() == b"$1\r\n1\r\n"


@pytest.mark.parametrize("method", ["UNSUBSCRIBE", "punsubscribe"])
def test_unsubscribing_is_not_a_command(method: str) -> None:
    table = opened()
    with pytest.raises(UsageError, match="give up the subscription"):
        table.start(CallKind.UNARY, method, encode_command(method, "a"))


def test_message_kinds_have_readable_names() -> None:
    protocol = RedisProtocol()
    assert [protocol.describe_kind(kind) for kind in MessageKind] == [
        "handshake reply", "reply", "error reply", "subscribe confirmation", "push item", "push end",
    ]


def test_the_redis_protocol_imports_only_the_core() -> None:
    probe = (
        "import sys, dualio_transports.redis_protocol.client_protocol; "
        "print(sorted(m for m in sys.modules if m.startswith('dualio_transports.') and "
        "not m.startswith(('dualio_transports.wire', 'dualio_transports.redis_protocol'))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


# -- the decoder: bulk strings read whole, and every other reply through the reader ---------

def reference_messages(protocol: RedisProtocol, stream: bytes) -> list[Message]:
    """What the protocol makes of ``stream``, every reply read by the reader and given to
    :meth:`RedisProtocol.message` in turn."""
    reader = ReplyReader()
    pairs = [pair for i in range(len(stream)) for pair in reader.feed(stream[i : i + 1])]
    messages = [protocol.message(kind, raw) for kind, raw in pairs]
    return [message for message in messages if message is not None]


def bulk(payload: bytes) -> bytes:
    return b"$%d\r\n%b\r\n" % (len(payload), payload)


STREAM_REPLIES = st.one_of(
    st.binary(max_size=300).map(bulk),
    st.sampled_from([
        b"$-1\r\n", b"$00\r\n\r\n", b"$3\r\n\r\n\n\r\n", b"_\r\n", b"+OK\r\n", b":-2\r\n", b"-ERR no\r\n",
        b"!5\r\nERR x\r\n", b"*2\r\n$1\r\na\r\n_\r\n", b"|1\r\n+ttl\r\n:1\r\n$1\r\nv\r\n",
        b"=7\r\ntxt:abc\r\n", push(b"invalidate", b"k"), push(b"message", b"news", b"hello"),
        push(b"message", b"other", b"dropped"),
    ]),
)


@given(
    st.lists(STREAM_REPLIES, max_size=30), st.lists(st.integers(min_value=0, max_value=10_000), max_size=6),
    st.booleans(),
)
def test_the_decoder_makes_of_any_split_what_the_reader_and_message_make(
    stream_replies: list[bytes], cuts: list[int], handshaking: bool,
) -> None:
    stream = b"".join(stream_replies)
    protocols = []
    for _ in range(2):
        protocol = RedisProtocol()
        if handshaking:
            protocol.hello()
        protocol.subscriptions.add(1, "channel", [b"news"])
        protocol.subscriptions.confirmed("channel", b"news")
        protocols.append(protocol)
    decoder = protocols[0].decoder
    bounds = [0, *sorted(cut % (len(stream) + 1) for cut in cuts), len(stream)]
    got = [message for a, b in itertools.pairwise(bounds) for message in decoder.feed(stream[a:b])]
    assert got == reference_messages(protocols[1], stream)
    assert decoder.reader.buffered == 0


def test_a_reply_to_the_handshake_is_never_taken_for_a_commands() -> None:
    protocol = RedisProtocol(db=1)
    protocol.hello()
    decoder = protocol.decoder
    assert [kind for kind, _, _ in decoder.feed(bulk(b"hello"))] == [MessageKind.HANDSHAKE_REPLY]
    assert [kind for kind, _, _ in decoder.feed(bulk(b"select") + bulk(b"v"))] == [
        MessageKind.HANDSHAKE_REPLY, MessageKind.REPLY,
    ]


@pytest.mark.parametrize(("bounds", "data", "error", "text"), [
    ({"max_bulk": 10}, bulk(b"hello world"), FrameTooLarge, "11 bytes exceeds the maximum of 10"),
    ({"max_bulk": 10}, bulk(b"ok") + bulk(b"hello world"), FrameTooLarge, "11 bytes exceeds the maximum"),
    ({}, b"$%d\r\n" % (1 << 40), FrameTooLarge, f"{1 << 40} bytes exceeds the maximum"),
    ({"max_line": 1}, bulk(b"x" * 16), ProtocolError, "longer than 1 bytes"),
    ({}, b"$3\r\nabcd\r\n", ProtocolError, "not followed by CRLF"),
    ({}, b"$3\r\nabcX\n", ProtocolError, "not followed by CRLF"),
    ({}, b"$-2\r\n", ProtocolError, "bad length"),
])
def test_the_decoder_keeps_the_readers_bounds_and_stays_broken(
    bounds: dict[str, int], data: bytes, error: type[Exception], text: str,
) -> None:
    decoder = RedisProtocol(**bounds).decoder
    with pytest.raises(error, match=text):
        decoder.feed(data)
    with pytest.raises(error, match=text):
        decoder.feed(bulk(b"fine"))
    assert decoder.reader.buffered == 0


# -- a GET's reply, as the faces decode it ---------------------------------------------------

@pytest.mark.parametrize("commands", [AsyncRedisCommands, RedisCommands])
@pytest.mark.parametrize("raw", [
    bulk(b""), bulk(b"v"), bulk(b"\n"), bulk(b"\n" * 9), bulk(b"0123456789"), bulk(b"\n" * 16),
    bulk(b"x" * 99), bulk(b"x" * 100), bulk(b"\r\n" * 300), b"$-1\r\n", b"_\r\n", b"$00\r\n\r\n",
    b"$01\r\n\n\r\n", b"$010\r\n0123456789\r\n", b"+OK\r\n", b"=7\r\ntxt:abc\r\n", bulk("é".encode()),
])
def test_a_string_reply_is_decoded_as_parse_reads_it(commands: type[Any], raw: bytes) -> None:
    client = commands.__new__(commands)
    client._setup_commands(False)
    assert client._string(raw) == parse(raw)
    assert type(client._string(raw)) is type(parse(raw))
    client._setup_commands(True)
    value = parse(raw)
    assert client._string(raw) == (value if value is None else value.decode())


@pytest.mark.parametrize("commands", [AsyncRedisCommands, RedisCommands])
def test_a_string_reply_that_is_not_utf8_fails_with_decode_responses(commands: type[Any]) -> None:
    client = commands.__new__(commands)
    client._setup_commands(True)
    with pytest.raises(ProtocolError, match="not UTF-8"):
        client._string(bulk(b"\xff"))


def test_a_keepalive_ping_behind_a_long_command_is_judged_only_once_it_is_the_oldest() -> None:
    """Redis answers the PING after the command before it, however long that runs: a busy
    server is not a dead one. Once the PING is the oldest call, its silence counts."""
    table = opened()
    table.keepalive = 0.02
    slow = start(table, "DEBUG", "SLEEP", "1")
    assert table.keepalive_due(0.03) == b"*1\r\n$4\r\nPING\r\n"  # the command's silence: a probe
    for now in (0.06, 0.09, 0.12):
        assert table.keepalive_due(now) == b"" and table.failure is None  # behind the command
    assert table.receive(b"+OK\r\n", 0.13) is None and slow.outcome() == b"+OK\r\n"
    assert table.keepalive_due(0.15) == b"" and table.failure is None  # the oldest from here
    assert table.keepalive_due(0.16) == b"" and table.failure is None  # not a whole interval yet
    assert table.keepalive_due(0.18) == b""
    assert isinstance(table.failure, ConnectionLost) and "keepalive PING" in str(table.failure)


def test_a_silent_server_is_found_behind_calls_given_up_but_not_behind_one_still_awaited() -> None:
    """A subscription waits with no timeout, so only the keepalive finds a server that
    vanished. The PING's answer is due after those of the calls ahead of it: a call
    somebody still waits for holds its silence (that call's timeout judges the server);
    a call given up does not, or the subscription would wait for ever."""
    table = opened()
    table.keepalive = 10.0
    messages = subscribe(table, "SUBSCRIBE", "news")
    assert table.receive(confirm(b"subscribe", b"news", 1), 0.0) is None
    awaited = start(table, "GET", "a")
    assert table.keepalive_due(11.0) == b"*1\r\n$4\r\nPING\r\n"
    # the PING goes unanswered for a whole interval
    assert table.keepalive_due(22.0) == b"" and table.failure is None  # GET is awaited: its timeout judges
    assert table.give_up(awaited) == b""  # its caller's time ran out
    assert table.keepalive_due(23.0) == b"" and table.failure is None  # the silence counts from here
    assert table.keepalive_due(33.0) == b""
    assert isinstance(table.failure, ConnectionLost)
    assert messages.next_item() == confirm(b"subscribe", b"news", 1)  # what came before the end
    with pytest.raises(ConnectionLost):
        messages.next_item()


def test_keepalive_probes_only_an_open_connection() -> None:
    """A wait stops cutting itself at keepalive checks only when none can be done: while
    the handshake runs or once the connection is closing or failed (a wait cut short for
    nothing would spin); never because one check found nothing to do."""
    table: CallTable[None] = CallTable(RedisProtocol(), keepalive=0.01, now=0.0)
    table.hello()
    assert not table.probing
    assert table.receive(hello_map(), 0.0) is None
    assert table.probing
    table.close()
    assert not table.probing


def test_a_message_before_the_new_subscriptions_confirmation_is_nobodys() -> None:
    """A subscription given up and another to the same channel at once: the server may
    still send a message for the first before it confirms the second. It was handed to the
    second as its first item, where its confirmation belongs ("a message before the
    subscription was confirmed")."""
    table = opened()
    first = subscribe(table, "SUBSCRIBE", "news")
    assert table.receive(confirm(b"subscribe", b"news", 1), 0.0) is None
    assert parse(table.give_up(first)) == [b"UNSUBSCRIBE", b"news"]
    second = subscribe(table, "SUBSCRIBE", "news")
    late = push(b"message", b"news", b"for the first")
    ended, confirmed = confirm(b"unsubscribe", b"news", 0), confirm(b"subscribe", b"news", 1)
    assert table.receive(late + ended + confirmed, 0.0) is None
    assert second.next_item() == confirm(b"subscribe", b"news", 1)
    assert table.receive(push(b"message", b"news", b"for the second"), 0.0) is None
    assert second.next_item() == push(b"message", b"news", b"for the second")


def test_a_subscribe_that_never_left_is_confirmed_by_nobody() -> None:
    """A SUBSCRIBE taken back before it was written (its key freed): a later subscription
    to the same channel gets the confirmation and, once confirmed, the messages."""
    table = opened()
    unsent = subscribe(table, "SUBSCRIBE", "news")
    table.release(unsent)
    later = subscribe(table, "SUBSCRIBE", "news")
    assert table.receive(confirm(b"subscribe", b"news", 1), 0.0) is None
    assert later.next_item() == confirm(b"subscribe", b"news", 1)
    assert table.receive(push(b"message", b"news", b"hello"), 0.0) is None
    assert later.next_item() == push(b"message", b"news", b"hello")
