"""RESP3's codec: every type, any split of the bytes, its bounds, garbage."""

from __future__ import annotations

import enum
import itertools
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dualio_transports.redis_protocol import resp
from dualio_transports.redis_protocol.resp import (
    MAX_BULK,
    MAX_DEPTH,
    MAX_LINE,
    MAX_REPLY,
    ErrorReply,
    ReplyReader,
    encode_command,
    parse,
)
from dualio_transports.wire.errors import FrameTooLarge, ProtocolError

SPEC: list[tuple[bytes, Any]] = [
    (b"+OK\r\n", b"OK"),
    (b"-ERR unknown command 'foobar'\r\n", ErrorReply("ERR unknown command 'foobar'")),
    (b":1000\r\n", 1000),
    (b":-42\r\n", -42),
    (b"$6\r\nfoobar\r\n", b"foobar"),
    (b"$0\r\n\r\n", b""),
    (b"$-1\r\n", None),
    (b"$4\r\na\r\nb\r\n", b"a\r\nb"),
    (b"*-1\r\n", None),
    (b"*0\r\n", []),
    (b"*2\r\n$3\r\nfoo\r\n$3\r\nbar\r\n", [b"foo", b"bar"]),
    (b"*3\r\n:1\r\n:2\r\n:3\r\n", [1, 2, 3]),
    (b"*2\r\n*3\r\n:1\r\n$5\r\nhello\r\n:2\r\n#f\r\n", [[1, b"hello", 2], False]),
    (b"_\r\n", None),
    (b"#t\r\n", True),
    (b"#f\r\n", False),
    (b",1.23\r\n", 1.23),
    (b",10\r\n", 10.0),
    (b",-1.5e3\r\n", -1500.0),
    (b",inf\r\n", math.inf),
    (b",-inf\r\n", -math.inf),
    (b"(3492890328409238509324850943850943825024385\r\n", 3492890328409238509324850943850943825024385),
    (b"!21\r\nSYNTAX invalid syntax\r\n", ErrorReply("SYNTAX invalid syntax")),
    (b"=15\r\ntxt:Some string\r\n", b"Some string"),
    (b"%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n", {b"first": 1, b"second": 2}),
    (b"~5\r\n+orange\r\n+apple\r\n#t\r\n:100\r\n:999\r\n", {b"orange", b"apple", True, 100, 999}),
    (b">4\r\n+pubsub\r\n+message\r\n+somechannel\r\n+this is the message\r\n",
     [b"pubsub", b"message", b"somechannel", b"this is the message"]),
    (b"*3\r\n:1\r\n:2\r\n|1\r\n+ttl\r\n:3600\r\n:3\r\n", [1, 2, 3]),  # an attribute on an element
    (b"%1\r\n~2\r\n*1\r\n:1\r\n%1\r\n+a\r\n:2\r\n*0\r\n",
     {frozenset({(1,), frozenset({(b"a", 2)})}): []}),  # unhashable keys and elements, made hashable
]
ATTRIBUTED = (
    b"|1\r\n+key-popularity\r\n%2\r\n$1\r\na\r\n,0.1923\r\n$1\r\nb\r\n,0.0012\r\n"
    b"*2\r\n:2039123\r\n:9543892\r\n"
)
"""The spec's attribute example: a reply annotated with an attribute, which is dropped."""
STREAM = b"".join(raw for raw, _ in SPEC) + ATTRIBUTED
EXPECTED = [raw for raw, _ in SPEC] + [b"*2\r\n:2039123\r\n:9543892\r\n"]


def replies(chunks: list[bytes], reader: ReplyReader | None = None) -> list[tuple[int, bytes]]:
    reader = reader or ReplyReader()
    out: list[tuple[int, bytes]] = []
    for chunk in chunks:
        out += reader.feed(chunk)
    assert reader.buffered == 0
    return out


@pytest.mark.parametrize(("raw", "value"), SPEC)
def test_every_type_of_the_spec_parses_to_its_value(raw: bytes, value: Any) -> None:
    assert parse(raw) == value
    assert replies([raw]) == [(raw[0], raw)]


def test_nan_is_a_float() -> None:
    assert math.isnan(parse(b",nan\r\n"))
    assert replies([b",nan\r\n"]) == [(ord(","), b",nan\r\n")]


def test_a_top_level_attribute_is_dropped_bytes_and_all() -> None:
    assert replies([ATTRIBUTED]) == [(ord("*"), b"*2\r\n:2039123\r\n:9543892\r\n")]
    assert parse(ATTRIBUTED) == [2039123, 9543892]
    assert replies([b"|0\r\n+OK\r\n"]) == [(ord("+"), b"+OK\r\n")]


@pytest.mark.parametrize(("raw", "value"), SPEC)
def test_a_reply_split_at_every_offset_comes_out_once_whole(raw: bytes, value: Any) -> None:
    for cut in range(1, len(raw)):
        reader = ReplyReader()
        assert reader.feed(raw[:cut]) == []
        assert reader.feed(raw[cut:]) == [(raw[0], raw)]


def test_one_byte_at_a_time() -> None:
    assert [raw for _, raw in replies([STREAM[i : i + 1] for i in range(len(STREAM))])] == EXPECTED


@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=40))
def test_any_split_of_a_stream_of_replies(cuts: list[int]) -> None:
    bounds = [0, *sorted(cuts), len(STREAM)]
    chunks = [STREAM[a:b] for a, b in itertools.pairwise(bounds)]
    assert [raw for _, raw in replies(chunks)] == EXPECTED


class CountingBuffer(bytearray):
    """The reader's buffer, counting the bytes its line searches look through."""

    searched = 0

    def find(self, sub: Any, start: Any = 0, *rest: Any) -> int:
        CountingBuffer.searched += len(self) - start
        return super().find(sub, start, *rest)


def test_a_bulk_string_fed_in_many_chunks_is_never_searched_again() -> None:
    size, chunk = 1 << 20, 1 << 10
    data = b"$%d\r\n" % size + b"x" * size + b"\r\n"
    reader = ReplyReader()
    reader._buffer = CountingBuffer()
    CountingBuffer.searched = 0
    out = replies([data[i : i + chunk] for i in range(0, len(data), chunk)], reader)
    assert out == [(ord("$"), data)]
    assert CountingBuffer.searched < 2 * chunk  # the header's line only, not the payload


def test_a_long_line_arriving_a_byte_at_a_time_is_searched_once() -> None:
    line = b"+" + b"y" * 5000 + b"\r\n"
    reader = ReplyReader()
    reader._buffer = CountingBuffer()
    CountingBuffer.searched = 0
    assert replies([line[i : i + 1] for i in range(len(line))], reader) == [(ord("+"), line)]
    assert CountingBuffer.searched <= 2 * len(line)


def test_the_documented_defaults() -> None:
    reader = ReplyReader()
    assert (MAX_BULK, MAX_REPLY, MAX_DEPTH, MAX_LINE) == (512 << 20, 512 << 20, 64, 64 << 10)  # Redis's own
    assert (reader.max_bulk, reader.max_reply, reader.max_depth, reader.max_line) == (
        MAX_BULK, MAX_REPLY, MAX_DEPTH, MAX_LINE,
    )


@pytest.mark.parametrize("header", [b"$11\r\n", b"!11\r\n", b"=11\r\n"])
def test_a_bulk_over_its_bound_is_refused_from_its_header(header: bytes) -> None:
    reader = ReplyReader(max_bulk=10)
    with pytest.raises(FrameTooLarge, match="11 bytes exceeds the maximum of 10"):
        reader.feed(header)
    assert ReplyReader(max_bulk=11).feed(header + b"txt:abcdefg\r\n") != []


@pytest.mark.parametrize("header", [b"*5\r\n", b"~5\r\n", b">5\r\n", b"%5\r\n", b"|5\r\n"])
def test_an_aggregate_over_its_bound_is_refused_from_its_header(header: bytes) -> None:
    """Each element is 3 bytes at least (``_\\r\\n``): 5 of them cannot fit in 14."""
    with pytest.raises(FrameTooLarge, match="5 elements exceeds the maximum of 4"):
        ReplyReader(max_reply=14).feed(header)


def test_a_reply_is_bounded_by_its_bytes_not_by_how_many_elements_it_has() -> None:
    many = b"*1100000\r\n" + b":1\r\n" * 1_100_000  # LRANGE of 1,100,000 items: fine
    assert len(ReplyReader().feed(many)) == 1
    two = b"*2\r\n$10\r\n0123456789\r\n$10\r\n0123456789\r\n"  # 38 bytes
    assert ReplyReader(max_reply=len(two)).feed(two) == [(ord("*"), two)]
    with pytest.raises(FrameTooLarge, match="a reply of over 37 bytes"):
        ReplyReader(max_reply=len(two) - 1).feed(two)
    with pytest.raises(FrameTooLarge, match="a reply of over 20 bytes"):  # one-line elements count too
        ReplyReader(max_reply=20).feed(b"*4\r\n" + b":12345\r\n" * 4)
    with pytest.raises(FrameTooLarge, match="exceeds the maximum of 10"):  # a bulk alone is the reply
        ReplyReader(max_reply=10).feed(b"$11\r\n")


def test_nesting_over_its_bound() -> None:
    deep = b"*1\r\n" * 4 + b":1\r\n"
    assert replies([deep], ReplyReader(max_depth=4)) == [(ord("*"), deep)]
    with pytest.raises(ProtocolError, match="nested deeper than 3"):
        ReplyReader(max_depth=3).feed(deep)
    with pytest.raises(ProtocolError, match="nested deeper than 64"):
        parse(b"*1\r\n" * 65 + b":1\r\n")
    assert parse(b"*1\r\n" * 64 + b":1\r\n") is not None


def test_a_line_over_its_bound_is_refused_before_its_end_arrives() -> None:
    reader = ReplyReader(max_line=8)
    assert reader.feed(b"+12345678\r\n") == [(ord("+"), b"+12345678\r\n")]
    with pytest.raises(ProtocolError, match="longer than 8 bytes"):
        reader.feed(b"+123456789012")
    with pytest.raises(ProtocolError, match="longer than 8 bytes"):
        ReplyReader(max_line=8).feed(b"+123456789\r\n")


GARBAGE = [
    (b"?what\r\n", "unknown RESP3 type byte"),
    (b"GET x\r\n", "unknown RESP3 type byte"),
    (b"$abc\r\n", "bad length"),
    (b"$-2\r\n", "bad length"),
    (b"$?\r\n", "bad length"),  # a streamed string
    (b"%-1\r\n", "bad length"),
    (b"*+1\r\n:1\r\n", "bad length"),
    (b"$3\r\nfoobar\r\n", "not followed by CRLF"),
    (b"$3\r\nfooX\n", "not followed by CRLF"),
    (b"$3\r\nfoo\rX", "not followed by CRLF"),
    (b"$" + b"0" * 19 + b"1\r\nx\r\n", "bad length"),
    (b"+OK\n", "not ended by CRLF"),
    (b"\r\n", "unknown RESP3 type byte"),
    (b"+O\rK\r\n", "a CR in it"),
    (b":12a\r\n", "integer that is not one"),
    (b":\r\n", "integer that is not one"),
    (b":123456789012345678901\r\n", "integer that is not one"),
    (b"#x\r\n", "boolean that is not one"),
    (b",1.2.3\r\n", "double that is not one"),
    (b",infinity\r\n", "double that is not one"),
    (b"_x\r\n", "null that is not one"),
    (b"(1" + b"0" * 5000 + b"\r\n", "big number of 5001 digits"),
    (b"=3\r\ntxt\r\n", "verbatim string without its format"),
    (b"=5\r\ntxt-x\r\n", "verbatim string without its format"),
]


@pytest.mark.parametrize(("garbage", "error"), GARBAGE)
def test_garbage_is_a_protocol_error_and_the_reader_stays_broken(garbage: bytes, error: str) -> None:
    reader = ReplyReader()
    with pytest.raises(ProtocolError, match=error):
        reader.feed(garbage)
    with pytest.raises(ProtocolError, match=error):
        reader.feed(b"+OK\r\n")
    with pytest.raises(ProtocolError):
        parse(garbage)


@pytest.mark.parametrize("raw", [b"+OK\r\n+OK\r\n", b"*2\r\n:1\r\n", b"$5\r\nab\r\n", b""])
def test_parse_takes_exactly_one_whole_reply(raw: bytes) -> None:
    with pytest.raises(ProtocolError):
        parse(raw)


def test_error_replies_are_values_with_their_code() -> None:
    assert parse(b"-WRONGTYPE Operation against a key\r\n").code == "WRONGTYPE"
    assert parse(b"-Error without a code\r\n").code == ""
    assert parse(b"*2\r\n:1\r\n-ERR in EXEC\r\n") == [1, ErrorReply("ERR in EXEC")]


def test_encode_command_writes_an_array_of_bulk_strings() -> None:
    assert encode_command("SET", b"k\r\n", 42, 1.5, "é") == (
        b"*5\r\n$3\r\nSET\r\n$3\r\nk\r\n\r\n$2\r\n42\r\n$3\r\n1.5\r\n$2\r\n\xc3\xa9\r\n"
    )
    assert encode_command("ZADD", -7, math.inf) == b"*3\r\n$4\r\nZADD\r\n$2\r\n-7\r\n$3\r\ninf\r\n"
    assert parse(encode_command("GET", "k")) == [b"GET", b"k"]


@pytest.mark.parametrize("bad", [True, None, [b"x"], bytearray(b"x")])
def test_encode_command_refuses_other_types(bad: Any) -> None:
    with pytest.raises(TypeError):
        encode_command("SET", bad)


# -- whole replies read where they lie, and the buffered reading -----------------------------

def one_byte_at_a_time(stream: bytes, reader: ReplyReader | None = None) -> list[tuple[int, bytes]]:
    """What the buffered reading alone makes of ``stream``: no reply ever arrives whole."""
    return replies([stream[i : i + 1] for i in range(len(stream))], reader)


def bulk(payload: bytes) -> bytes:
    return b"$%d\r\n%b\r\n" % (len(payload), payload)


PAYLOADS = st.binary(max_size=300) | st.sampled_from([b"", b"\r\n", b"\n" * 16, b"x" * 255, b"y" * 256])
ANNOTATED = {ATTRIBUTED: EXPECTED[-1], b"|0\r\n$1\r\na\r\n": b"$1\r\na\r\n"}
"""Replies after an attribute, and what comes out of them."""
REPLIES = st.one_of(
    PAYLOADS.map(bulk),
    st.sampled_from([raw for raw, _ in SPEC] + [*ANNOTATED] + [
        b"$00\r\n\r\n", b"$007\r\nleading\r\n", b"$" + b"0" * 18 + b"1\r\nx\r\n", b"$-1\r\n", b"+\r\n",
        b":0\r\n", b":+5\r\n", b"-\r\n", b">2\r\n$7\r\nmessage\r\n$1\r\nc\r\n",
    ]),
    st.integers(min_value=-(2**63), max_value=2**63 - 1).map(lambda n: b":%d\r\n" % n),
    st.text(
        alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)), max_size=40
    ).map(
        lambda text: b"+%b\r\n" % text.encode()
    ),
)


@given(st.lists(REPLIES, max_size=30), st.lists(st.integers(min_value=0, max_value=10_000), max_size=8))
def test_whole_replies_come_out_as_the_buffered_reading_reads_them(
    stream_replies: list[bytes], cuts: list[int]
) -> None:
    stream = b"".join(stream_replies)
    expected = one_byte_at_a_time(stream)
    assert [raw for _, raw in expected] == [ANNOTATED.get(raw, raw) for raw in stream_replies]
    bounds = [0, *sorted(cut % (len(stream) + 1) for cut in cuts), len(stream)]
    assert replies([stream[a:b] for a, b in itertools.pairwise(bounds)]) == expected
    assert replies([stream]) == expected
    for kind, raw in expected:
        assert raw[0] == kind
        parse(raw)


def test_a_hundred_bulk_strings_split_anywhere_come_out_whole() -> None:
    stream = b"".join(bulk(b"value %02d" % i + b"\r\n" * (i % 3)) for i in range(100))
    expected = one_byte_at_a_time(stream)
    assert len(expected) == 100
    for cut in range(len(stream) + 1):
        assert replies([stream[:cut], stream[cut:]]) == expected
    for first, second in itertools.combinations(range(0, len(stream), 37), 2):
        assert replies([stream[:first], stream[first:second], stream[second:]]) == expected


def test_a_reply_finished_by_a_read_is_followed_by_the_rest_of_it() -> None:
    reader = ReplyReader()
    assert reader.feed(b"*2\r\n$1\r\na\r\n$3\r\nbc") == []
    assert reader.feed(b"d\r\n$1\r\ne\r\n+OK\r\n:7\r\n$2\r\nf") == [
        (ord("*"), b"*2\r\n$1\r\na\r\n$3\r\nbcd\r\n"), (ord("$"), b"$1\r\ne\r\n"), (ord("+"), b"+OK\r\n"),
        (ord(":"), b":7\r\n"),
    ]
    assert reader.buffered == len(b"$2\r\nf")
    assert reader.feed(b"g\r\n") == [(ord("$"), b"$2\r\nfg\r\n")]
    assert reader.buffered == 0


TERABYTE = b"$%d\r\n" % (1 << 40)


@pytest.mark.parametrize("data", [TERABYTE, TERABYTE + b"x" * 100, bulk(b"a") + TERABYTE])
def test_a_bulk_string_announcing_a_terabyte_is_refused_at_once(data: bytes) -> None:
    reader = ReplyReader()
    with pytest.raises(FrameTooLarge, match=f"{1 << 40} bytes exceeds the maximum"):
        reader.feed(data)
    assert reader.buffered == 0


@pytest.mark.parametrize("chunks", [[b"$11\r\nhello world\r\n"], [b"$1\r\na\r\n$11\r\nhello world\r\n"],
                                    [b"$1\r\na\r\n$1", b"1\r\nhello world\r\n"]])
def test_a_whole_bulk_over_its_bound_is_refused(chunks: list[bytes]) -> None:
    reader = ReplyReader(max_bulk=10)
    with pytest.raises(FrameTooLarge, match="11 bytes exceeds the maximum of 10"):
        for chunk in chunks:
            reader.feed(chunk)
    assert ReplyReader(max_bulk=10).feed(bulk(b"0123456789")) == [(ord("$"), bulk(b"0123456789"))]


@pytest.mark.parametrize("reply", [bulk(b"x" * 16), bulk(b"x" * 300), b"$-1\r\n", b"+OK\r\n", b":12\r\n"])
def test_a_whole_reply_with_a_line_over_its_bound_is_refused(reply: bytes) -> None:
    line = reply.index(b"\r\n") - 1
    assert ReplyReader(max_line=line).feed(reply) == [(reply[0], reply)]
    with pytest.raises(ProtocolError, match=f"longer than {line - 1} bytes"):
        ReplyReader(max_line=line - 1).feed(reply)


@pytest.mark.parametrize(("garbage", "error"), GARBAGE)
def test_garbage_after_whole_replies_breaks_the_reader_as_alone(garbage: bytes, error: str) -> None:
    reader = ReplyReader()
    with pytest.raises(ProtocolError, match=error):
        reader.feed(bulk(b"fine") + b"+OK\r\n" + garbage)
    assert reader.buffered == 0
    with pytest.raises(ProtocolError, match=error):
        reader.feed(bulk(b"fine"))


# -- encode_command: the same bytes and errors as one bulk string after another -----------------

def encoded(*args: Any) -> bytes:
    """encode_command as written without a fast path."""
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        if isinstance(arg, bytes):
            data = arg
        elif isinstance(arg, str):
            data = arg.encode()
        elif isinstance(arg, bool):
            raise TypeError("a command argument cannot be a bool: say b'1' or b'0'")
        elif isinstance(arg, int):
            data = int.__repr__(arg).encode()
        elif isinstance(arg, float):
            data = float.__repr__(arg).encode()
        else:
            raise TypeError(f"a command argument is bytes, str, int or float, not {type(arg).__name__}")
        parts.append(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(parts)


class Text(str):
    pass


class Data(bytes):
    pass


class Number(enum.IntEnum):
    SEVEN = 7


class Ratio(float):
    def __repr__(self) -> str:
        return "ratio"


ARGUMENTS = st.one_of(
    st.text(max_size=300), st.binary(max_size=300), st.integers(), st.floats(),
    st.sampled_from([Text("text"), Data(b"data"), Number.SEVEN, Ratio(0.5), "é", "GET", b"GET"]),
)
WRONG = st.sampled_from([True, False, None, [b"x"], bytearray(b"x"), memoryview(b"x"), object()])


@given(st.lists(ARGUMENTS, max_size=10))
def test_encode_command_writes_what_one_bulk_string_per_argument_writes(args: list[Any]) -> None:
    assert encode_command(*args) == encoded(*args)


@given(st.lists(ARGUMENTS, max_size=6), WRONG, st.integers(min_value=0, max_value=6))
def test_encode_command_refuses_what_it_refused(args: list[Any], wrong: Any, at: int) -> None:
    args.insert(min(at, len(args)), wrong)
    with pytest.raises(TypeError) as expected:
        encoded(*args)
    with pytest.raises(TypeError) as refused:
        encode_command(*args)
    assert str(refused.value) == str(expected.value)


def test_command_names_remembered_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(resp, "_HEADS", {})  # the process's own is left as it was, not full
    for number in range(3 * resp._MAX_HEADS):
        assert encode_command(f"NAME{number}", "k") == encoded(f"NAME{number}", "k")
    assert len(resp._HEADS) <= resp._MAX_HEADS
