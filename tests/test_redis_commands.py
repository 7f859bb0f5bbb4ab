"""Every command of the pinned Redis spec a method on both faces, each run against a real
redis-server; arguments checked before anything is sent; replies of another shape
returned as they came; and the files the spec generates as they are on disk.

The table of calls is made from the generator's own plan of each method (one made-up
value per required parameter), so a command added to the spec is called here without a
hand-written case.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Iterator
from typing import Any

import pytest

from dualio.devtools import redis_methods as generator
from dualio.devtools import redis_overrides as overrides
from dualio.redis import ExecAbortError, NoScriptError, WrongTypeError
from dualio.redis import Redis as AsyncRedis
from dualio.redis.methods import AsyncMethods
from dualio_sync.redis import Redis as SyncRedis
from dualio_transports.redis_protocol.errors import RedisError
from dualio_transports.redis_protocol.resp import encode_command
from dualio_transports.wire.errors import ProtocolError
from tests.redis_server import NOT_INSTALLED, REDIS_SERVER, RedisServer, start_redis

SPEC = generator.load()
COMMANDS = generator.commands(SPEC)
GENERATED = {name: generator.plan(name, spec) for name, spec in COMMANDS.items()
             if name not in overrides.HAND_WRITTEN}
NOT_RUN = {
    "SHUTDOWN": "stops the server",
    "DEBUG": "DEBUG SEGFAULT and friends",
    "REPLICAOF": "would make the server a replica of a made-up host",
    "SLAVEOF": "REPLICAOF's old name",
    "FAILOVER": "hands the server's role over",
    "CLIENT PAUSE": "holds every client of the server",
}
"""Generated methods this table does not call, and why."""


@pytest.fixture(scope="module")
def server() -> Iterator[RedisServer]:
    """A server of this module's own: the table runs FLUSHALL, CONFIG and ACL commands."""
    if REDIS_SERVER is None:
        pytest.skip(NOT_INSTALLED)
    started = start_redis()
    try:
        yield started
    finally:
        started.stop()


# -- every command a method ------------------------------------------------------------------


def test_every_command_of_the_pinned_redis_is_a_method_on_both_faces_or_says_what_instead() -> None:
    top = [name for name in COMMANDS if " " not in name]
    containers = {name.split()[0] for name in COMMANDS if " " in name}
    loose = sorted(name for name, method in GENERATED.items() if method.loose)
    hand = {name: why for name, why in overrides.HAND_WRITTEN.items() if name in COMMANDS}
    for face in (AsyncRedis, SyncRedis):
        missing = [name for name, method in GENERATED.items()
                   if not callable(getattr(face, method.name, None))]
        assert not missing, (face, missing)
    assert callable(AsyncRedis.set) and callable(SyncRedis.ping)  # hand-written, with the spec's options
    assert set(GENERATED) | set(hand) == set(COMMANDS)
    print(f"\nRedis {SPEC['redis']}: {len(top) + len(containers)} top-level commands "
          f"({len(containers)} of them containers of {len(COMMANDS) - len(top)} subcommands); "
          f"{len(GENERATED)} generated methods on each face ({len(GENERATED) - len(loose)} typed whole, "
          f"{len(loose)} with their rarer options as *options: {', '.join(loose)}); "
          f"{len(hand)} otherwise ({', '.join(sorted(hand))})")
    assert len(top) + len(containers) == 240


def test_what_the_transports_ask_of_a_command_is_the_spec_s_word() -> None:
    from dualio_transports.redis_protocol import command_spec
    flagged = {name for name, spec in COMMANDS.items() if "BLOCKING" in spec.get("command_flags", [])}
    assert flagged - set(command_spec.HELD_WITH_BLOCK) <= command_spec.HELD
    assert {"BLPOP", "BLMOVE", "BZPOPMIN", "WAIT"} <= command_spec.HELD
    assert command_spec.HELD_WITH_BLOCK == {"XREAD": 1, "XREADGROUP": 4}
    assert "GET" in command_spec.RETRIED and "INCR" not in command_spec.RETRIED
    assert "DEL" in command_spec.RETRIED  # RM: removed whole, so the same twice
    assert command_spec.KEY_SPECS["MSET"] == (("index", 1, 0, "range", -1, 2, 0),)


def test_the_generated_files_are_what_the_spec_makes(capsys: pytest.CaptureFixture[str]) -> None:
    assert generator.main(["--check"]) == 0, capsys.readouterr().err


def test_a_changed_spec_changes_the_generated_methods() -> None:
    """--check can fail: a command taken out of the spec takes its method out."""
    spec = generator.load()
    before = generator.methods_file(spec)
    del spec["commands"]["GETDEL"]
    after = generator.methods_file(spec)
    assert "async def getdel(" in before and "async def getdel(" not in after


# -- every method run against the server -----------------------------------------------------


def _value(param: generator.Param, command: str) -> Any:
    annotation = param.annotation
    if param.name == "wait":
        return 0.01
    if param.checked == "pairs":
        return {f"k:{command}": "0"} if command.startswith("XREAD") else {"m": 1}
    if param.checked == "rows":
        return [("1", "1", "m")]
    if annotation.startswith("Literal["):
        return annotation.split('"')[1]
    if annotation.startswith("int"):
        return 1
    if annotation.startswith("float"):
        return 1.5
    return f"k:{command}:{param.name}"


def _call(command: str) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
    """The method of ``command`` with one made-up value for each parameter it needs."""
    method = GENERATED[command]
    args: list[Any] = []
    keywords: dict[str, Any] = {}
    for param in method.params:
        pair = command in overrides.PAIR_ALSO and param.name in ("key", "value")
        if param.default is not None and not pair:
            continue
        value = _value(param, command)
        if param.keyword:
            keywords[param.name] = value
        else:
            args.append(value)
    return method.name, tuple(args), keywords


RUN = sorted(name for name in GENERATED if name not in NOT_RUN)
BINARY = {"DUMP", "FUNCTION DUMP"}
"""Commands whose reply is a binary payload, which is not text."""
NOT_PARSED = ("wrong number of arguments", "unknown command", "unknown subcommand")


def _judge(outcomes: dict[str, Any]) -> None:
    """Every call either returned or got the server's own error reply; a reply saying the
    command was not parsed as that command (arity, unknown) only where the method leaves
    the rest of the command to its caller or the made-up values are not enough."""
    unparsed = {}
    kinds = collections.Counter()
    for command, outcome in outcomes.items():
        if isinstance(outcome, ProtocolError) and command in BINARY and "not UTF-8" in str(outcome):
            continue  # decode_responses=True: documented, read such a reply with decode_responses=False
        if isinstance(outcome, BaseException) and not isinstance(outcome, RedisError):
            raise AssertionError(f"{command}: {outcome!r}") from outcome
        kinds["error reply" if isinstance(outcome, RedisError) else "reply"] += 1
        if isinstance(outcome, RedisError) and any(text in str(outcome) for text in NOT_PARSED):
            unparsed[command] = str(outcome)
    needs_more = {"COMMAND GETKEYS", "COMMAND GETKEYSANDFLAGS"}  # a real command to find keys in
    assert {name for name in unparsed if not GENERATED[name].loose} <= needs_more, unparsed
    assert len(outcomes) == len(RUN) and kinds["reply"] > 200, kinds
    print(f"\n{len(outcomes)} methods run: {dict(kinds)}")


def test_every_generated_method_runs_on_the_blocking_face(server: RedisServer) -> None:
    outcomes: dict[str, Any] = {}
    with SyncRedis(*server.address, timeout=10) as r:
        for command in RUN:
            name, args, keywords = _call(command)
            try:
                outcomes[command] = getattr(r, name)(*args, **keywords)
            except Exception as exc:  # judged below, with every other
                outcomes[command] = exc
        assert r.get("k:after") is None  # the connection went on through all of them
    _judge(outcomes)


def test_every_generated_method_runs_on_the_async_face(server: RedisServer) -> None:
    async def run() -> dict[str, Any]:
        outcomes: dict[str, Any] = {}
        async with AsyncRedis(*server.address, timeout=10, decode_responses=True) as r:
            for command in RUN:
                name, args, keywords = _call(command)
                try:
                    outcomes[command] = await getattr(r, name)(*args, **keywords)
                except Exception as exc:
                    outcomes[command] = exc
            assert await r.get("k:after") is None
        return outcomes

    _judge(asyncio.run(run()))


def test_a_server_error_carries_the_server_s_message(server: RedisServer) -> None:
    with SyncRedis(*server.address) as r:
        r.rpush("k:list", "a")
        with pytest.raises(RedisError, match="WRONGTYPE Operation against a key holding the wrong") as info:
            r.incr("k:list")
        assert info.value.prefix == "WRONGTYPE" and isinstance(info.value, WrongTypeError)
        with pytest.raises(NoScriptError, match="NOSCRIPT"):
            r.evalsha("0" * 40)
        r.rpush("k:queued", "x")
        with pytest.raises(ExecAbortError, match="EXECABORT"):
            r.transaction(("INCR", "k:z2"), ("NOSUCHCOMMAND",))
        outcome = r.pipeline(("INCR", "k:list"), ("GET", "k:none"), raise_on_error=False)
        assert isinstance(outcome[0], WrongTypeError) and outcome[1] is None
        with pytest.raises(RedisError, match="syntax error, LIMIT is only supported in combination with"):
            r.zrange("k:z", 0, 1, offset=0, num=1)  # LIMIT without BYSCORE or BYLEX


def test_info_is_read_as_redis_py_reads_it(server: RedisServer) -> None:
    with SyncRedis(*server.address) as r:
        r.set("k:info", 1)
        info = r.info()
        assert isinstance(info["redis_version"], str) and isinstance(info["connected_clients"], int)
        assert isinstance(info["db0"], dict) and info["db0"]["keys"] >= 1
        assert set(r.info("stats")) >= {"total_connections_received", "total_commands_processed"}


# -- arguments checked before anything is sent -------------------------------------------------


class Sent(AsyncMethods[bytes]):
    """The requests methods make, not sent."""

    decode_responses = False

    def __init__(self) -> None:  # no connection: the requests are only made
        pass

    async def request(self, request: Any, timeout: object = None, held: bool = False) -> Any:
        return request


def _sent(call: Any) -> Any:
    return asyncio.run(call)


WRONG_TYPES = {
    # method, arguments, keywords: the parameter the TypeError names
    "name": ("get", ([b"k"],), {}),
    "mapping": ("zadd", ("z", ["m", 1]), {}),
    "ex": ("getex", ("k",), {"ex": 1.5j}),
    "keys": ("delete", ("a", None), {}),
    "count": ("lpop", ("k", True), {}),
}


@pytest.mark.parametrize("param", sorted(WRONG_TYPES))
def test_an_argument_of_the_wrong_type_is_a_type_error_naming_it_before_anything_is_sent(param: str) -> None:
    from dualio_sync.redis.methods import Methods

    name, args, keywords = WRONG_TYPES[param]
    with pytest.raises(TypeError, match=rf"^{name}\(\): {param} must be"):
        _sent(getattr(Sent(), name)(*args, **keywords))
    assert callable(getattr(Methods, name))


def test_options_that_exclude_each_other_are_refused_before_anything_is_sent() -> None:
    s = Sent()
    with pytest.raises(ValueError, match=r"zadd\(\): nx and xx exclude each other"):
        _sent(s.zadd("z", {"m": 1}, nx=True, xx=True))
    with pytest.raises(ValueError, match=r"getex\(\): ex and px exclude each other"):
        _sent(s.getex("k", ex=1, px=1))
    with pytest.raises(TypeError, match=r"hset\(\) needs key and value, or mapping"):
        _sent(s.hset("h", "f"))
    request = _sent(s.zadd("z", {"m": 2.5}, gt=True, ch=True))
    assert request.args == encode_command("ZADD", "z", "GT", "CH", 2.5, "m")
    assert request.idempotent is False
    request = _sent(s.xadd("s", {"f": "v"}, strategy="MAXLEN", approximately=True, threshold=10))
    assert request.args == encode_command("XADD", "s", "MAXLEN", "~", 10, "*", "f", "v")


# -- replies of another shape ----------------------------------------------------------------

OTHER_SHAPES = {
    # decoder: a reply its schema does not promise, which comes back as it came
    "_integer": (b"+QUEUED\r\n", b"QUEUED"),
    "_number": (b"*1\r\n:1\r\n", [1]),
    "_okay": (b":1\r\n", 1),
    "_flag": (b":7\r\n", 7),
    "_mapping": (b"*3\r\n:1\r\n:2\r\n:3\r\n", [1, 2, 3]),
    "_members": (b":3\r\n", 3),
    "_pair": (b"*3\r\n:1\r\n:2\r\n:3\r\n", [1, 2, 3]),
    "_triple": (b"*3\r\n:1\r\n:2\r\n$1\r\nx\r\n", [1, 2, b"x"]),
    "_scored": (b"*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", [b"a", b"b", b"c"]),
    "_string": (b":5\r\n", 5),
    "_entries": (b"*1\r\n:1\r\n", [1]),
    "_info": (b":1\r\n", 1),
    "_streams": (b":1\r\n", 1),
}


def test_a_reply_of_a_shape_the_schema_does_not_promise_comes_back_as_it_came() -> None:
    s = Sent()
    used = {decoder.split(".")[1].split()[0] for _, decoder in overrides.DECODERS.values()}
    used |= {generator.reply(spec.get("reply_schema"))[1].split(".")[1] for spec in COMMANDS.values()}
    assert used - {"_value"} <= set(OTHER_SHAPES), used - set(OTHER_SHAPES)
    literal = 0
    for decoder, (raw, expected) in OTHER_SHAPES.items():
        assert getattr(s, decoder)(raw) == expected, decoder
        literal += 1
    print(f"\n{literal} readers return a reply of another shape as it came")
    assert literal == len(OTHER_SHAPES)
