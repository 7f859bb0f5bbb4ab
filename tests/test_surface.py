"""Both faces of each protocol expose the same methods, parameters and defaults: dualio's
``Client`` and ``AsyncClient``, and the Redis faces, ``dualio_sync.redis.Redis`` and
``dualio.redis.Redis``."""

from __future__ import annotations

import inspect

import pytest

from dualio import AsyncClient
from dualio.devtools import redis_methods, redis_overrides
from dualio.face_connection import AsyncOnly
from dualio.redis import Redis as AsyncRedis
from dualio_sync import Client
from dualio_sync.redis import Redis as SyncRedis
from dualio_transports.policy.retry import DEFAULT_RETRY

LIFECYCLE = {"close", "aclose", "open", "closed", "from_url"}
ASYNC_ONLY_INIT = {"emulation", "max_workers", "executor"}
TRANSPORT_DEFAULTS = {"blocking": "blocking", "async": "native"}  # each face has its own transports
FACES = [
    pytest.param(Client, AsyncClient, id="dualio"),
    pytest.param(SyncRedis, AsyncRedis, id="redis"),
]
ITERATORS = {"scan_iter", "hscan_iter", "sscan_iter", "zscan_iter"}
NOT_COROUTINES = {"stream", "dedicated", "has_pending_input"}
STREAMS = {Client: {*NOT_COROUTINES, "words"},
           SyncRedis: {*NOT_COROUTINES, "subscribe", "psubscribe", "register_script", "watch", "lock",
                       *ITERATORS}}
"""Methods of the async face that are not coroutine functions: they give a stream, an
iterator, a script to call, a watch or a lock."""
GENERATED = {
    redis_methods.plan(name, spec).name for name, spec in redis_methods.commands(redis_methods.load()).items()
    if name not in redis_overrides.HAND_WRITTEN
}
FACE_BASE = {"request", "stream", "ping", "pause", "dedicated", "has_pending_input", "locate_server"}
"""What every face has from its base (dualio.extend), whatever its protocol."""
METHODS = {
    Client: {*FACE_BASE, "echo", "upper", "sleep", "blob", "words", "stats", "call"},
    SyncRedis: {
        *FACE_BASE, *GENERATED, "execute", "set", "pipeline", "transaction", "subscribe", "psubscribe",
        "register_script", "watch", "lock", *ITERATORS,
    },
}


def public_methods(cls: type) -> set[str]:
    return {
        name for name, _ in inspect.getmembers(cls, callable) if not name.startswith("_")
    } - LIFECYCLE


def shape(fn: object) -> list[tuple[str, object, object]]:
    signature = inspect.signature(fn)  # type: ignore[arg-type]
    return [(p.name, p.kind, p.default) for p in signature.parameters.values()]


@pytest.mark.parametrize(("sync", "async_"), FACES)
def test_same_method_names(sync: type, async_: type) -> None:
    assert public_methods(sync) == public_methods(async_)
    assert public_methods(sync) == METHODS[sync]


@pytest.mark.parametrize(("sync", "async_"), FACES)
def test_same_parameters_and_defaults(sync: type, async_: type) -> None:
    for name in public_methods(sync):
        assert shape(getattr(sync, name)) == shape(getattr(async_, name)), name


@pytest.mark.parametrize(("sync", "async_"), FACES)
def test_async_methods_are_coroutines_except_the_streams(sync: type, async_: type) -> None:
    for name in public_methods(async_):
        is_coroutine = inspect.iscoroutinefunction(getattr(async_, name))
        assert is_coroutine == (name not in STREAMS[sync]), name
    for name in public_methods(sync):
        assert not inspect.iscoroutinefunction(getattr(sync, name)), name


@pytest.mark.parametrize(("sync", "async_"), FACES)
def test_constructor_extends_the_sync_one(sync: type, async_: type) -> None:
    """The same parameters in the same order, ``transport`` last of the shared ones; only
    its default differs (each face chooses among its own transports). The async face's
    own arguments come after, as one TypedDict unpacked (``AsyncOnly``)."""
    sync_init = shape(sync.__init__)
    async_init = shape(async_.__init__)
    last = ("transport", inspect.Parameter.KEYWORD_ONLY)
    assert sync_init[-1][:2] == async_init[len(sync_init) - 1][:2] == last
    assert (sync_init[-1][2], async_init[len(sync_init) - 1][2]) == (TRANSPORT_DEFAULTS["blocking"],
                                                                     TRANSPORT_DEFAULTS["async"])
    assert async_init[: len(sync_init) - 1] == sync_init[:-1]
    unpacked = ("async_only", inspect.Parameter.VAR_KEYWORD, inspect.Parameter.empty)
    assert async_init[len(sync_init):] == [unpacked]
    assert set(AsyncOnly.__annotations__) == ASYNC_ONLY_INIT


def test_the_redis_constructor() -> None:
    assert [(name, default) for name, _, default in shape(SyncRedis.__init__)][1:] == [
        ("host", "127.0.0.1"), ("port", 6379), ("password", None), ("username", None), ("db", 0),
        ("client_name", None), ("unix_socket_path", None), ("timeout", 30.0), ("connect_timeout", 10.0),
        ("tls", None),
        ("server_hostname", None), ("keepalive", 15.0), ("retry", DEFAULT_RETRY),
        ("decode_responses", False), ("lazy", False), ("on_state", None), ("on_request", None),
        ("on_response", None), ("held_connections", 16), ("max_reply_size", 512 << 20), ("cache", None),
        ("readonly", False), ("sentinels", ()), ("service_name", None), ("sentinel_timeout", 1.0),
        ("sentinel_password", None),
        ("transport", "blocking"),
    ]


@pytest.mark.parametrize(("sync", "async_"), FACES)
def test_return_annotations_match_apart_from_async(sync: type, async_: type) -> None:
    for name in public_methods(sync) - STREAMS[sync]:
        sync_return = inspect.signature(getattr(sync, name)).return_annotation
        async_return = inspect.signature(getattr(async_, name)).return_annotation
        assert sync_return == async_return, name
    assert inspect.signature(Client.words).return_annotation == "Iterator[str]"
    assert inspect.signature(AsyncClient.words).return_annotation == "AsyncIterator[str]"
    assert inspect.signature(SyncRedis.subscribe).return_annotation == "Subscription[S]"
    assert inspect.signature(AsyncRedis.subscribe).return_annotation == "AsyncSubscription[S]"


@pytest.mark.parametrize(("sync", "async_"), FACES)
def test_both_faces_are_made_from_a_url_the_same_way(sync: type, async_: type) -> None:
    assert shape(sync.from_url) == shape(async_.from_url)
