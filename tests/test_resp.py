"""RESP3's codec: every type, any split of the bytes, its bounds, garbage."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dualio_transports.redis_protocol.resp import (
    MAX_BULK,
    MAX_DEPTH,
    MAX_ELEMENTS,
    MAX_LINE,
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
    assert (MAX_BULK, MAX_ELEMENTS, MAX_DEPTH, MAX_LINE) == (64 << 20, 1 << 20, 64, 64 << 10)
    assert (reader.max_bulk, reader.max_elements, reader.max_depth, reader.max_line) == (
        MAX_BULK, MAX_ELEMENTS, MAX_DEPTH, MAX_LINE,
    )


@pytest.mark.parametrize("header", [b"$11\r\n", b"!11\r\n", b"=11\r\n"])
def test_a_bulk_over_its_bound_is_refused_from_its_header(header: bytes) -> None:
    reader = ReplyReader(max_bulk=10)
    with pytest.raises(FrameTooLarge, match="11 bytes exceeds the maximum of 10"):
        reader.feed(header)
    assert ReplyReader(max_bulk=11).feed(header + b"txt:abcdefg\r\n") != []


@pytest.mark.parametrize("header", [b"*5\r\n", b"~5\r\n", b">5\r\n", b"%5\r\n", b"|5\r\n"])
def test_an_aggregate_over_its_bound_is_refused_from_its_header(header: bytes) -> None:
    with pytest.raises(FrameTooLarge, match="5 elements exceeds the maximum of 4"):
        ReplyReader(max_elements=4).feed(header)


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
