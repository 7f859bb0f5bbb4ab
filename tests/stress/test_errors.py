"""Every error is counted once in stats().errors, and nothing follows an ERROR with id 0.

stats().errors counts (docs/protocol.md §8.7): each ERROR frame the server sends, whatever
its id, plus each connection it closes without one because the peer did not complete the
handshake in time (or TLS failed, or the server itself failed). A peer that just goes
away, a client's CLOSE and the idle timeout are not errors.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from dualio_transports.dualio_protocol import methods
from dualio_transports.dualio_protocol.client_protocol import decode_error
from dualio_transports.dualio_protocol.frames import HEADER, FrameKind, encode_frame
from dualio_transports.wire.errors import ErrorCode
from tests.conftest import ServerProcess, start_server
from tests.stress.probe import (
    HAVE_PROC,
    Watch,
    abort,
    connect,
    handshake,
    read_frame,
    read_until_eof,
    request,
    stats,
)

pytestmark = [pytest.mark.timeout(60), pytest.mark.skipif(not HAVE_PROC, reason="reads /proc")]

MODELS = ["async", "threaded"]
GARBAGE_FRAMES = 10_000


@contextmanager
def serving(*args: str) -> Iterator[ServerProcess]:
    server = start_server(*args)
    try:
        yield server
    finally:
        server.stop()


def garbage(rid: int, rng: random.Random) -> tuple[bytes, bool]:
    """One bad (or good) frame on a handshaken connection, and whether it gets an answer."""
    kind = rid % 6
    if kind == 0:  # envelope the protocol layer refuses: BAD_ARGUMENTS from ServerProtocol
        return encode_frame(FrameKind.REQUEST, rid, b"\x00" + rng.randbytes(rid % 5)), True
    if kind == 1:
        return request(rid, f"no_such_method_{rid % 7}", b""), True
    if kind == 2:
        return request(rid, "echo", b"abc"), True
    if kind == 3:
        return request(rid, "sleep", methods.F64.pack(-1.0)), True
    if kind == 4:
        return request(rid, "echo", methods.F64.pack(0.0) + b"fine"), True
    return encode_frame(FrameKind.CANCEL, rid + 1_000_000), False  # not open: ignored


@pytest.mark.parametrize("model", MODELS)
def test_errors_are_counted_once(model: str) -> None:
    """10,000 frames of request-level garbage, 20 connection-level garbage, 3 missed
    handshakes, 3 peers that vanish: stats().errors grows by exactly the ERROR frames sent
    plus the 3 missed handshakes (was: 1,366 short after 10,000 garbage frames)."""
    with serving("--model", model, "--handshake-timeout", "1") as server, Watch(
        server, f"{model}: {GARBAGE_FRAMES:,} garbage frames, counted", rss_growth_mb=32, p99_s=0.5,
    ) as watch:
        before = stats(server).errors
        rng = random.Random(7)
        frames = [garbage(rid, rng) for rid in range(1, GARBAGE_FRAMES + 1)]
        expected_answers = sum(answered for _, answered in frames)
        sock = connect(server)
        handshake(sock)
        sender = threading.Thread(target=sock.sendall, args=(b"".join(data for data, _ in frames),))
        sender.start()
        request_errors = 0
        sock.settimeout(10)
        for _ in range(expected_answers):
            frame = read_frame(sock)
            assert frame.id != 0, frame
            request_errors += frame.kind is FrameKind.ERROR
        sender.join()
        sock.close()

        connection_errors = 0
        for i in range(20):  # connection-level: ERROR id 0, then close
            bad = connect(server)
            if i % 2:
                handshake(bad)
            bad.sendall(HEADER.pack(5, 99, 1))
            received, _ = read_until_eof(bad, 5.0)
            assert [(f.kind, f.id) for f in received] == [(FrameKind.ERROR, 0)]
            connection_errors += 1
            bad.close()

        late = [connect(server) for _ in range(3)]  # no HELLO within the deadline: +1 each
        vanished = []
        for _ in range(3):  # a peer that goes away is not an error
            gone = connect(server)
            handshake(gone)
            gone.sendall(request(1, "sleep", methods.F64.pack(0.2)))
            vanished.append(gone)
        time.sleep(0.05)
        for gone in vanished:
            abort(gone)
        for sock in late:
            assert read_until_eof(sock, 5.0)[0] == []
            sock.close()
        watch.hold(0.5)  # and the server is idle again
        after = stats(server).errors
        print(f"[stress] {model}: stats().errors +{after - before} = {request_errors} request ERROR "
              f"frames + {connection_errors} connection ERROR frames + 3 missed handshakes")
        assert after - before == request_errors + connection_errors + 3


@pytest.mark.parametrize("model", MODELS)
def test_nothing_follows_a_connection_error(model: str) -> None:
    """protocol.md §5.1: after ERROR id 0 no frame follows, not even the answer of a request
    started before the bad frame, nor of one read in the same chunk."""
    with serving("--model", model) as server:
        for same_read in (False, True):
            sock = connect(server)
            handshake(sock)
            sock.sendall(request(1, "echo", methods.F64.pack(0.3) + b"late"))
            if not same_read:
                time.sleep(0.05)
            # a well-formed frame the server must refuse, right behind a request it could answer
            sock.sendall(request(2, "echo", methods.F64.pack(0.0) + b"now")
                         + encode_frame(FrameKind.RESPONSE, 9))
            received, _ = read_until_eof(sock, 5.0)
            sock.close()
            assert received, "no ERROR id 0"
            last = received[-1]
            assert (last.kind, last.id) == (FrameKind.ERROR, 0), received
            assert decode_error(last.payload).code == ErrorCode.BAD_FRAME
            # the threaded model serves request 1 before it reads the bad frame
            assert all(frame.id in (1, 2) for frame in received[:-1]), received
