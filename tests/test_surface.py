"""Both faces expose the same service methods, parameters and defaults."""

from __future__ import annotations

import inspect

from dualio import AsyncClient
from dualio_sync import Client

LIFECYCLE = {"close", "aclose", "open", "closed", "from_url"}
ASYNC_ONLY_INIT = {"emulation", "max_workers", "executor"}
TRANSPORT_DEFAULTS = {"Client": "blocking", "AsyncClient": "native"}  # each face has its own transports


def public_methods(cls: type) -> set[str]:
    return {
        name for name, _ in inspect.getmembers(cls, callable) if not name.startswith("_")
    } - LIFECYCLE


def shape(fn: object) -> list[tuple[str, object, object]]:
    signature = inspect.signature(fn)  # type: ignore[arg-type]
    return [(p.name, p.kind, p.default) for p in signature.parameters.values()]


def test_same_method_names() -> None:
    assert public_methods(Client) == public_methods(AsyncClient)
    assert public_methods(Client) >= {
        "echo", "upper", "sleep", "blob", "words", "stats", "ping", "call",
    }


def test_same_parameters_and_defaults() -> None:
    for name in public_methods(Client):
        assert shape(getattr(Client, name)) == shape(getattr(AsyncClient, name)), name


def test_async_methods_are_coroutines_except_the_stream() -> None:
    for name in public_methods(AsyncClient):
        is_coroutine = inspect.iscoroutinefunction(getattr(AsyncClient, name))
        assert is_coroutine == (name != "words"), name


def test_constructor_extends_the_sync_one() -> None:
    """The same parameters in the same order, ``transport`` last of the shared ones; only
    its default differs (each face chooses among its own transports)."""
    sync = shape(Client.__init__)
    async_ = shape(AsyncClient.__init__)
    assert sync[-1][:2] == async_[len(sync) - 1][:2] == ("transport", inspect.Parameter.KEYWORD_ONLY)
    assert (sync[-1][2], async_[len(sync) - 1][2]) == (TRANSPORT_DEFAULTS["Client"],
                                                       TRANSPORT_DEFAULTS["AsyncClient"])
    assert async_[: len(sync) - 1] == sync[:-1]
    assert {name for name, _, _ in async_[len(sync) :]} == ASYNC_ONLY_INIT


def test_return_annotations_match_apart_from_async() -> None:
    for name in public_methods(Client) - {"words"}:
        sync = inspect.signature(getattr(Client, name)).return_annotation
        async_ = inspect.signature(getattr(AsyncClient, name)).return_annotation
        assert sync == async_, name
    assert inspect.signature(Client.words).return_annotation == "Iterator[str]"
    assert inspect.signature(AsyncClient.words).return_annotation == "AsyncIterator[str]"


def test_both_faces_are_made_from_a_url_the_same_way() -> None:
    assert shape(Client.from_url) == shape(AsyncClient.from_url)
