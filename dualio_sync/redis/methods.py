"""Every Redis command a typed method of the blocking face.

GENERATED from dualio/redis/methods.py by dualio/devtools/unasync.py: do not edit.
Edit the source, then run ``python -m dualio.devtools.unasync``.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Literal

from dualio_sync.redis.method_support import (
    _UNARY,
    Arg,
    MethodSupport,
    S,
    Timeout,
    _flat,
    _many,
    _milliseconds,
    _one_of,
    _request,
    _seconds,
    _wrong,
)
from dualio_sync.toolkit import UNSET, Request
from dualio_transports.redis_protocol.resp import encode_command


class Methods(MethodSupport[S]):
    """The commands of Redis 7.0.15, one method each; every one takes ``timeout=``."""

    def acl_cat(self, categoryname: Arg | None = None, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """ACL CAT: List the ACL categories or the commands inside a category (Redis 6.0.0)."""
        try:
            words: builtins.list[Arg] = ["ACL", "CAT"]
            if categoryname is not None:
                words.append(categoryname)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("acl_cat", ("categoryname", categoryname, "arg")) from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("ACL CAT", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def acl_deluser(self, *usernames: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """ACL DELUSER: Remove the specified ACL users and the associated rules (Redis 6.0.0)."""
        if not usernames:
            raise TypeError("acl_deluser() needs at least one username")
        try:
            words: builtins.list[Arg] = ["ACL", "DELUSER"]
            words += _flat(usernames)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("acl_deluser", ("usernames", usernames, "flat")) from None
        request: Request[int] = _request(Request, ("ACL DELUSER", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def acl_dryrun(
        self, username: Arg, command2: Arg, *args: Arg | Sequence[Arg], timeout: Timeout = UNSET,
    ) -> bool | S:
        """ACL DRYRUN: Returns whether the user can execute the given command without executing the command
        (Redis 7.0.0).
        """
        try:
            words: builtins.list[Arg] = ["ACL", "DRYRUN"]
            words.append(username)
            words.append(command2)
            words += _flat(args)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "acl_dryrun",
                ("username", username, "arg"),
                ("command2", command2, "arg"),
                ("args", args, "flat"),
            ) from None
        request: Request[bool | S] = _request(Request, ("ACL DRYRUN", command, self._value, False, 1, _UNARY))
        return self.request(request, timeout)

    def acl_genpass(self, bits: int | None = None, *, timeout: Timeout = UNSET) -> S:
        """ACL GENPASS: Generate a pseudorandom secure password to use for ACL users (Redis 6.0.0)."""
        try:
            words: builtins.list[Arg] = ["ACL", "GENPASS"]
            if bits is not None:
                words.append(bits)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("acl_genpass", ("bits", bits, "arg")) from None
        request: Request[S] = _request(Request, ("ACL GENPASS", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def acl_getuser(self, username: Arg, *, timeout: Timeout = UNSET) -> builtins.dict[S, Any] | None:
        """ACL GETUSER: Get the rules for a specific ACL user (Redis 6.0.0)."""
        try:
            command = encode_command("ACL", "GETUSER", username)
        except TypeError:
            raise _wrong("acl_getuser", ("username", username, "arg")) from None
        request: Request[builtins.dict[S, Any] | None] = _request(
            Request,
            ("ACL GETUSER", command, self._mapping, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def acl_help(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """ACL HELP: Show helpful text about the different subcommands (Redis 6.0.0)."""
        try:
            command = encode_command("ACL", "HELP")
        except TypeError:
            raise _wrong("acl_help") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("ACL HELP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def acl_list(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """ACL LIST: List the current ACL rules in ACL config file format (Redis 6.0.0)."""
        try:
            command = encode_command("ACL", "LIST")
        except TypeError:
            raise _wrong("acl_list") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("ACL LIST", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def acl_load(self, *, timeout: Timeout = UNSET) -> bool:
        """ACL LOAD: Reload the ACLs from the configured ACL file (Redis 6.0.0)."""
        try:
            command = encode_command("ACL", "LOAD")
        except TypeError:
            raise _wrong("acl_load") from None
        request: Request[bool] = _request(Request, ("ACL LOAD", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def acl_log(
        self, *options: Arg, timeout: Timeout = UNSET,
    ) -> builtins.list[builtins.dict[S, Any]] | bool:
        """ACL LOG: List latest events denied because of ACLs in place (Redis 6.0.0). The arguments after
        the typed ones are given as Redis spells them.
        """
        try:
            words: builtins.list[Arg] = ["ACL", "LOG"]
            words += options
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("acl_log", ("options", options, "many")) from None
        request: Request[builtins.list[builtins.dict[S, Any]] | bool] = _request(
            Request,
            ("ACL LOG", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def acl_save(self, *, timeout: Timeout = UNSET) -> bool:
        """ACL SAVE: Save the current ACL rules in the configured ACL file (Redis 6.0.0)."""
        try:
            command = encode_command("ACL", "SAVE")
        except TypeError:
            raise _wrong("acl_save") from None
        request: Request[bool] = _request(Request, ("ACL SAVE", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def acl_setuser(self, username: Arg, *rules: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> bool:
        """ACL SETUSER: Modify or create the rules for a specific ACL user (Redis 6.0.0)."""
        try:
            words: builtins.list[Arg] = ["ACL", "SETUSER"]
            words.append(username)
            words += _flat(rules)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("acl_setuser", ("username", username, "arg"), ("rules", rules, "flat")) from None
        request: Request[bool] = _request(Request, ("ACL SETUSER", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def acl_users(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """ACL USERS: List the username of all the configured ACL rules (Redis 6.0.0)."""
        try:
            command = encode_command("ACL", "USERS")
        except TypeError:
            raise _wrong("acl_users") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("ACL USERS", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def acl_whoami(self, *, timeout: Timeout = UNSET) -> S:
        """ACL WHOAMI: Return the name of the user associated to the current connection (Redis 6.0.0)."""
        try:
            command = encode_command("ACL", "WHOAMI")
        except TypeError:
            raise _wrong("acl_whoami") from None
        request: Request[S] = _request(Request, ("ACL WHOAMI", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def append(self, name: Arg, value: Arg, *, timeout: Timeout = UNSET) -> int:
        """APPEND: Append a value to a key (Redis 2.0.0)."""
        try:
            command = encode_command("APPEND", name, value)
        except TypeError:
            raise _wrong("append", ("name", name, "arg"), ("value", value, "arg")) from None
        request: Request[int] = _request(Request, ("APPEND", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def asking(self, *, timeout: Timeout = UNSET) -> bool:
        """ASKING: Sent by cluster clients after an -ASK redirect (Redis 3.0.0)."""
        try:
            command = encode_command("ASKING")
        except TypeError:
            raise _wrong("asking") from None
        request: Request[bool] = _request(Request, ("ASKING", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def bgrewriteaof(self, *, timeout: Timeout = UNSET) -> S:
        """BGREWRITEAOF: Asynchronously rewrite the append-only file (Redis 1.0.0)."""
        try:
            command = encode_command("BGREWRITEAOF")
        except TypeError:
            raise _wrong("bgrewriteaof") from None
        request: Request[S] = _request(Request, ("BGREWRITEAOF", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def bgsave(self, *, schedule: bool = False, timeout: Timeout = UNSET) -> S:
        """BGSAVE: Asynchronously save the dataset to disk (Redis 1.0.0)."""
        try:
            words: builtins.list[Arg] = ["BGSAVE"]
            if schedule:
                words.append("SCHEDULE")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("bgsave") from None
        request: Request[S] = _request(Request, ("BGSAVE", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def bitcount(
        self, name: Arg, *, start: int | None = None, end: int | None = None, byte: bool = False,
        bit: bool = False, timeout: Timeout = UNSET,
    ) -> int:
        """BITCOUNT: Count set bits in a string (Redis 2.6.0)."""
        _one_of("bitcount", ("byte", byte), ("bit", bit))
        try:
            words: builtins.list[Arg] = ["BITCOUNT"]
            words.append(name)
            if start is not None:
                words.append(start)
                if end is not None:
                    words.append(end)
                if byte:
                    words.append("BYTE")
                if bit:
                    words.append("BIT")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "bitcount",
                ("name", name, "arg"),
                ("start", start, "arg"),
                ("end", end, "arg"),
            ) from None
        request: Request[int] = _request(Request, ("BITCOUNT", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def bitfield(self, name: Arg, *options: Arg, timeout: Timeout = UNSET) -> builtins.list[Any]:
        """BITFIELD: Perform arbitrary bitfield integer operations on strings (Redis 3.2.0). The arguments
        after the typed ones are given as Redis spells them.
        """
        try:
            words: builtins.list[Arg] = ["BITFIELD"]
            words.append(name)
            words += options
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("bitfield", ("name", name, "arg"), ("options", options, "many")) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("BITFIELD", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def bitfield_ro(self, name: Arg, *options: Arg, timeout: Timeout = UNSET) -> builtins.list[int]:
        """BITFIELD_RO: Perform arbitrary bitfield integer operations on strings. Read-only variant of
        BITFIELD (Redis 6.0.0). The arguments after the typed ones are given as Redis spells them.
        """
        try:
            words: builtins.list[Arg] = ["BITFIELD_RO"]
            words.append(name)
            words += options
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("bitfield_ro", ("name", name, "arg"), ("options", options, "many")) from None
        request: Request[builtins.list[int]] = _request(
            Request,
            ("BITFIELD_RO", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def bitop(
        self, operation: Arg, destkey: Arg, *keys: Arg | Sequence[Arg], timeout: Timeout = UNSET,
    ) -> int:
        """BITOP: Perform bitwise operations between strings (Redis 2.6.0)."""
        if not keys:
            raise TypeError("bitop() needs at least one key")
        try:
            words: builtins.list[Arg] = ["BITOP"]
            words.append(operation)
            words.append(destkey)
            words += _flat(keys)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "bitop",
                ("operation", operation, "arg"),
                ("destkey", destkey, "arg"),
                ("keys", keys, "flat"),
            ) from None
        request: Request[int] = _request(Request, ("BITOP", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def bitpos(
        self, name: Arg, bit: int, *, start: int | None = None, end: int | None = None, byte: bool = False,
        bit2: bool = False, timeout: Timeout = UNSET,
    ) -> int:
        """BITPOS: Find first bit set or clear in a string (Redis 2.8.7)."""
        _one_of("bitpos", ("byte", byte), ("bit2", bit2))
        try:
            words: builtins.list[Arg] = ["BITPOS"]
            words.append(name)
            words.append(bit)
            if start is not None:
                words.append(start)
                if end is not None:
                    words.append(end)
                    if byte:
                        words.append("BYTE")
                    if bit2:
                        words.append("BIT")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "bitpos",
                ("name", name, "arg"),
                ("bit", bit, "arg"),
                ("start", start, "arg"),
                ("end", end, "arg"),
            ) from None
        request: Request[int] = _request(Request, ("BITPOS", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def blmove(
        self, source: Arg, destination: Arg, wherefrom: Literal["LEFT", "RIGHT"],
        whereto: Literal["LEFT", "RIGHT"], wait: float, *, timeout: Timeout = UNSET,
    ) -> S | None:
        """BLMOVE: Pop an element from a list, push it to another list and return it; or block until one is
        available (Redis 6.2.0).
        """
        try:
            words: builtins.list[Arg] = ["BLMOVE"]
            words.append(source)
            words.append(destination)
            words.append(wherefrom)
            words.append(whereto)
            words.append(wait)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "blmove",
                ("source", source, "arg"),
                ("destination", destination, "arg"),
                ("wherefrom", wherefrom, "arg"),
                ("whereto", whereto, "arg"),
                ("wait", wait, "arg"),
            ) from None
        request: Request[S | None] = _request(Request, ("BLMOVE", command, self._string, False, 1, _UNARY))
        return self._held_command(request, wait, timeout)
        return self.request(request, timeout)

    def blmpop(
        self, wait: float, keys: Arg | Sequence[Arg], where: Literal["LEFT", "RIGHT"], *,
        count: int | None = None, timeout: Timeout = UNSET,
    ) -> builtins.list[Any] | None:
        """BLMPOP: Pop elements from a list, or block until one is available (Redis 7.0.0)."""
        try:
            words: builtins.list[Arg] = ["BLMPOP"]
            words.append(wait)
            words.append(len(_many(keys)))
            words += _many(keys)
            words.append(where)
            if count is not None:
                words += ("COUNT", count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "blmpop",
                ("wait", wait, "arg"),
                ("keys", keys, "many"),
                ("where", where, "arg"),
                ("count", count, "arg"),
            ) from None
        request: Request[builtins.list[Any] | None] = _request(
            Request,
            ("BLMPOP", command, self._value, False, 1, _UNARY),
        )
        return self._held_command(request, wait, timeout)
        return self.request(request, timeout)

    def blpop(
        self, keys: Arg | Sequence[Arg], wait: float, *, timeout: Timeout = UNSET,
    ) -> tuple[S, S] | None:
        """BLPOP: Remove and get the first element in a list, or block until one is available (Redis
        2.0.0).
        """
        try:
            words: builtins.list[Arg] = ["BLPOP"]
            words += _many(keys)
            words.append(wait)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("blpop", ("keys", keys, "many"), ("wait", wait, "arg")) from None
        request: Request[tuple[S, S] | None] = _request(
            Request,
            ("BLPOP", command, self._pair, False, 1, _UNARY),
        )
        return self._held_command(request, wait, timeout)
        return self.request(request, timeout)

    def brpop(
        self, keys: Arg | Sequence[Arg], wait: float, *, timeout: Timeout = UNSET,
    ) -> tuple[S, S] | None:
        """BRPOP: Remove and get the last element in a list, or block until one is available (Redis 2.0.0)."""
        try:
            words: builtins.list[Arg] = ["BRPOP"]
            words += _many(keys)
            words.append(wait)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("brpop", ("keys", keys, "many"), ("wait", wait, "arg")) from None
        request: Request[tuple[S, S] | None] = _request(
            Request,
            ("BRPOP", command, self._pair, False, 1, _UNARY),
        )
        return self._held_command(request, wait, timeout)
        return self.request(request, timeout)

    def brpoplpush(
        self, source: Arg, destination: Arg, wait: float, *, timeout: Timeout = UNSET,
    ) -> S | None:
        """BRPOPLPUSH: Pop an element from a list, push it to another list and return it; or block until
        one is available (Redis 2.2.0). Deprecated since Redis 6.2.0: `BLMOVE` with the `RIGHT` and
        `LEFT` arguments.
        """
        try:
            words: builtins.list[Arg] = ["BRPOPLPUSH"]
            words.append(source)
            words.append(destination)
            words.append(wait)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "brpoplpush",
                ("source", source, "arg"),
                ("destination", destination, "arg"),
                ("wait", wait, "arg"),
            ) from None
        request: Request[S | None] = _request(
            Request,
            ("BRPOPLPUSH", command, self._string, False, 1, _UNARY),
        )
        return self._held_command(request, wait, timeout)
        return self.request(request, timeout)

    def bzmpop(
        self, wait: float, keys: Arg | Sequence[Arg], where: Literal["MIN", "MAX"], *,
        count: int | None = None, timeout: Timeout = UNSET,
    ) -> builtins.list[Any] | None:
        """BZMPOP: Remove and return members with scores in a sorted set or block until one is available
        (Redis 7.0.0).
        """
        try:
            words: builtins.list[Arg] = ["BZMPOP"]
            words.append(wait)
            words.append(len(_many(keys)))
            words += _many(keys)
            words.append(where)
            if count is not None:
                words += ("COUNT", count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "bzmpop",
                ("wait", wait, "arg"),
                ("keys", keys, "many"),
                ("where", where, "arg"),
                ("count", count, "arg"),
            ) from None
        request: Request[builtins.list[Any] | None] = _request(
            Request,
            ("BZMPOP", command, self._value, False, 1, _UNARY),
        )
        return self._held_command(request, wait, timeout)
        return self.request(request, timeout)

    def bzpopmax(
        self, keys: Arg | Sequence[Arg], wait: float, *, timeout: Timeout = UNSET,
    ) -> tuple[S, S, float] | None:
        """BZPOPMAX: Remove and return the member with the highest score from one or more sorted sets, or
        block until one is available (Redis 5.0.0).
        """
        try:
            words: builtins.list[Arg] = ["BZPOPMAX"]
            words += _many(keys)
            words.append(wait)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("bzpopmax", ("keys", keys, "many"), ("wait", wait, "arg")) from None
        request: Request[tuple[S, S, float] | None] = _request(
            Request,
            ("BZPOPMAX", command, self._triple, False, 1, _UNARY),
        )
        return self._held_command(request, wait, timeout)
        return self.request(request, timeout)

    def bzpopmin(
        self, keys: Arg | Sequence[Arg], wait: float, *, timeout: Timeout = UNSET,
    ) -> tuple[S, S, float] | None:
        """BZPOPMIN: Remove and return the member with the lowest score from one or more sorted sets, or
        block until one is available (Redis 5.0.0).
        """
        try:
            words: builtins.list[Arg] = ["BZPOPMIN"]
            words += _many(keys)
            words.append(wait)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("bzpopmin", ("keys", keys, "many"), ("wait", wait, "arg")) from None
        request: Request[tuple[S, S, float] | None] = _request(
            Request,
            ("BZPOPMIN", command, self._triple, False, 1, _UNARY),
        )
        return self._held_command(request, wait, timeout)
        return self.request(request, timeout)

    def client_getname(self, *, timeout: Timeout = UNSET) -> S | None:
        """CLIENT GETNAME: Get the current connection name (Redis 2.6.9)."""
        try:
            command = encode_command("CLIENT", "GETNAME")
        except TypeError:
            raise _wrong("client_getname") from None
        request: Request[S | None] = _request(
            Request,
            ("CLIENT GETNAME", command, self._string, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def client_getredir(self, *, timeout: Timeout = UNSET) -> int:
        """CLIENT GETREDIR: Get tracking notifications redirection client ID if any (Redis 6.0.0)."""
        try:
            command = encode_command("CLIENT", "GETREDIR")
        except TypeError:
            raise _wrong("client_getredir") from None
        request: Request[int] = _request(
            Request,
            ("CLIENT GETREDIR", command, self._integer, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def client_help(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """CLIENT HELP: Show helpful text about the different subcommands (Redis 5.0.0)."""
        try:
            command = encode_command("CLIENT", "HELP")
        except TypeError:
            raise _wrong("client_help") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("CLIENT HELP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def client_id(self, *, timeout: Timeout = UNSET) -> int:
        """CLIENT ID: Returns the client ID for the current connection (Redis 5.0.0)."""
        try:
            command = encode_command("CLIENT", "ID")
        except TypeError:
            raise _wrong("client_id") from None
        request: Request[int] = _request(Request, ("CLIENT ID", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def client_info(self, *, timeout: Timeout = UNSET) -> S:
        """CLIENT INFO: Returns information about the current client connection (Redis 6.2.0)."""
        try:
            command = encode_command("CLIENT", "INFO")
        except TypeError:
            raise _wrong("client_info") from None
        request: Request[S] = _request(Request, ("CLIENT INFO", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def client_kill(self, *options: Arg, timeout: Timeout = UNSET) -> bool | int:
        """CLIENT KILL: Kill the connection of a client (Redis 2.4.0). The arguments after the typed ones
        are given as Redis spells them.
        """
        try:
            words: builtins.list[Arg] = ["CLIENT", "KILL"]
            words += options
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("client_kill", ("options", options, "many")) from None
        request: Request[bool | int] = _request(
            Request,
            ("CLIENT KILL", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def client_list(
        self, *, type: Literal["normal", "master", "replica", "pubsub"] | None = None,
        client_id: int | Sequence[int] | None = None, timeout: Timeout = UNSET,
    ) -> S:
        """CLIENT LIST: Get the list of client connections (Redis 2.4.0)."""
        try:
            words: builtins.list[Arg] = ["CLIENT", "LIST"]
            if type is not None:
                words += ("TYPE", type)
            if client_id is not None:
                words.append("ID")
                words += _many(client_id)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("client_list", ("type", type, "arg"), ("client_id", client_id, "many")) from None
        request: Request[S] = _request(Request, ("CLIENT LIST", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def client_pause(
        self, server_timeout: int, *, write: bool = False, all: bool = False, timeout: Timeout = UNSET,
    ) -> bool:
        """CLIENT PAUSE: Stop processing commands from clients for some time (Redis 2.9.50)."""
        _one_of("client_pause", ("write", write), ("all", all))
        try:
            words: builtins.list[Arg] = ["CLIENT", "PAUSE"]
            words.append(server_timeout)
            if write:
                words.append("WRITE")
            if all:
                words.append("ALL")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("client_pause", ("server_timeout", server_timeout, "arg")) from None
        request: Request[bool] = _request(Request, ("CLIENT PAUSE", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def client_trackinginfo(self, *, timeout: Timeout = UNSET) -> builtins.dict[S, Any]:
        """CLIENT TRACKINGINFO: Return information about server assisted client side caching for the
        current connection (Redis 6.2.0).
        """
        try:
            command = encode_command("CLIENT", "TRACKINGINFO")
        except TypeError:
            raise _wrong("client_trackinginfo") from None
        request: Request[builtins.dict[S, Any]] = _request(
            Request,
            ("CLIENT TRACKINGINFO", command, self._mapping, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def client_unblock(
        self, client_id: int, *, server_timeout: bool = False, error: bool = False,
        timeout: Timeout = UNSET,
    ) -> bool:
        """CLIENT UNBLOCK: Unblock a client blocked in a blocking command from a different connection
        (Redis 5.0.0).
        """
        _one_of("client_unblock", ("server_timeout", server_timeout), ("error", error))
        try:
            words: builtins.list[Arg] = ["CLIENT", "UNBLOCK"]
            words.append(client_id)
            if server_timeout:
                words.append("TIMEOUT")
            if error:
                words.append("ERROR")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("client_unblock", ("client_id", client_id, "arg")) from None
        request: Request[bool] = _request(Request, ("CLIENT UNBLOCK", command, self._flag, False, 1, _UNARY))
        return self.request(request, timeout)

    def client_unpause(self, *, timeout: Timeout = UNSET) -> bool:
        """CLIENT UNPAUSE: Resume processing of clients that were paused (Redis 6.2.0)."""
        try:
            command = encode_command("CLIENT", "UNPAUSE")
        except TypeError:
            raise _wrong("client_unpause") from None
        request: Request[bool] = _request(Request, ("CLIENT UNPAUSE", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def cluster_addslots(self, *slots: int | Sequence[int], timeout: Timeout = UNSET) -> bool:
        """CLUSTER ADDSLOTS: Assign new hash slots to receiving node (Redis 3.0.0)."""
        if not slots:
            raise TypeError("cluster_addslots() needs at least one slot")
        try:
            words: builtins.list[Arg] = ["CLUSTER", "ADDSLOTS"]
            words += _flat(slots)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("cluster_addslots", ("slots", slots, "flat")) from None
        request: Request[bool] = _request(
            Request,
            ("CLUSTER ADDSLOTS", command, self._okay, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_addslotsrange(
        self, start_slot_end_slot: Mapping[Arg, Arg], *, timeout: Timeout = UNSET,
    ) -> bool:
        """CLUSTER ADDSLOTSRANGE: Assign new hash slots to receiving node (Redis 7.0.0)."""
        if not start_slot_end_slot:
            raise TypeError("cluster_addslotsrange() needs at least one pair in start_slot_end_slot")
        try:
            words: builtins.list[Arg] = ["CLUSTER", "ADDSLOTSRANGE"]
            for pair_key, pair_value in start_slot_end_slot.items():
                words += (pair_key, pair_value)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "cluster_addslotsrange",
                ("start_slot_end_slot", start_slot_end_slot, "pairs"),
            ) from None
        request: Request[bool] = _request(
            Request,
            ("CLUSTER ADDSLOTSRANGE", command, self._okay, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_bumpepoch(self, *, timeout: Timeout = UNSET) -> S:
        """CLUSTER BUMPEPOCH: Advance the cluster config epoch (Redis 3.0.0)."""
        try:
            command = encode_command("CLUSTER", "BUMPEPOCH")
        except TypeError:
            raise _wrong("cluster_bumpepoch") from None
        request: Request[S] = _request(
            Request,
            ("CLUSTER BUMPEPOCH", command, self._string, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_count_failure_reports(self, node_id: Arg, *, timeout: Timeout = UNSET) -> int:
        """CLUSTER COUNT-FAILURE-REPORTS: Return the number of failure reports active for a given node
        (Redis 3.0.0).
        """
        try:
            command = encode_command("CLUSTER", "COUNT-FAILURE-REPORTS", node_id)
        except TypeError:
            raise _wrong("cluster_count_failure_reports", ("node_id", node_id, "arg")) from None
        request: Request[int] = _request(
            Request,
            ("CLUSTER COUNT-FAILURE-REPORTS", command, self._integer, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_countkeysinslot(self, slot: int, *, timeout: Timeout = UNSET) -> int:
        """CLUSTER COUNTKEYSINSLOT: Return the number of local keys in the specified hash slot (Redis
        3.0.0).
        """
        try:
            command = encode_command("CLUSTER", "COUNTKEYSINSLOT", slot)
        except TypeError:
            raise _wrong("cluster_countkeysinslot", ("slot", slot, "arg")) from None
        request: Request[int] = _request(
            Request,
            ("CLUSTER COUNTKEYSINSLOT", command, self._integer, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_delslots(self, *slots: int | Sequence[int], timeout: Timeout = UNSET) -> bool:
        """CLUSTER DELSLOTS: Set hash slots as unbound in receiving node (Redis 3.0.0)."""
        if not slots:
            raise TypeError("cluster_delslots() needs at least one slot")
        try:
            words: builtins.list[Arg] = ["CLUSTER", "DELSLOTS"]
            words += _flat(slots)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("cluster_delslots", ("slots", slots, "flat")) from None
        request: Request[bool] = _request(
            Request,
            ("CLUSTER DELSLOTS", command, self._okay, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_delslotsrange(
        self, start_slot_end_slot: Mapping[Arg, Arg], *, timeout: Timeout = UNSET,
    ) -> bool:
        """CLUSTER DELSLOTSRANGE: Set hash slots as unbound in receiving node (Redis 7.0.0)."""
        if not start_slot_end_slot:
            raise TypeError("cluster_delslotsrange() needs at least one pair in start_slot_end_slot")
        try:
            words: builtins.list[Arg] = ["CLUSTER", "DELSLOTSRANGE"]
            for pair_key, pair_value in start_slot_end_slot.items():
                words += (pair_key, pair_value)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "cluster_delslotsrange",
                ("start_slot_end_slot", start_slot_end_slot, "pairs"),
            ) from None
        request: Request[bool] = _request(
            Request,
            ("CLUSTER DELSLOTSRANGE", command, self._okay, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_failover(
        self, *, force: bool = False, takeover: bool = False, timeout: Timeout = UNSET,
    ) -> bool:
        """CLUSTER FAILOVER: Forces a replica to perform a manual failover of its master (Redis 3.0.0)."""
        _one_of("cluster_failover", ("force", force), ("takeover", takeover))
        try:
            words: builtins.list[Arg] = ["CLUSTER", "FAILOVER"]
            if force:
                words.append("FORCE")
            if takeover:
                words.append("TAKEOVER")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("cluster_failover") from None
        request: Request[bool] = _request(
            Request,
            ("CLUSTER FAILOVER", command, self._okay, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_flushslots(self, *, timeout: Timeout = UNSET) -> bool:
        """CLUSTER FLUSHSLOTS: Delete a node's own slots information (Redis 3.0.0)."""
        try:
            command = encode_command("CLUSTER", "FLUSHSLOTS")
        except TypeError:
            raise _wrong("cluster_flushslots") from None
        request: Request[bool] = _request(
            Request,
            ("CLUSTER FLUSHSLOTS", command, self._okay, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_forget(self, node_id: Arg, *, timeout: Timeout = UNSET) -> bool:
        """CLUSTER FORGET: Remove a node from the nodes table (Redis 3.0.0)."""
        try:
            command = encode_command("CLUSTER", "FORGET", node_id)
        except TypeError:
            raise _wrong("cluster_forget", ("node_id", node_id, "arg")) from None
        request: Request[bool] = _request(Request, ("CLUSTER FORGET", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def cluster_getkeysinslot(
        self, slot: int, count: int, *, timeout: Timeout = UNSET,
    ) -> builtins.list[S]:
        """CLUSTER GETKEYSINSLOT: Return local key names in the specified hash slot (Redis 3.0.0)."""
        try:
            command = encode_command("CLUSTER", "GETKEYSINSLOT", slot, count)
        except TypeError:
            raise _wrong("cluster_getkeysinslot", ("slot", slot, "arg"), ("count", count, "arg")) from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("CLUSTER GETKEYSINSLOT", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_help(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """CLUSTER HELP: Show helpful text about the different subcommands (Redis 5.0.0)."""
        try:
            command = encode_command("CLUSTER", "HELP")
        except TypeError:
            raise _wrong("cluster_help") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("CLUSTER HELP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_info(self, *, timeout: Timeout = UNSET) -> S:
        """CLUSTER INFO: Provides info about Redis Cluster node state (Redis 3.0.0)."""
        try:
            command = encode_command("CLUSTER", "INFO")
        except TypeError:
            raise _wrong("cluster_info") from None
        request: Request[S] = _request(Request, ("CLUSTER INFO", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def cluster_keyslot(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """CLUSTER KEYSLOT: Returns the hash slot of the specified key (Redis 3.0.0)."""
        try:
            command = encode_command("CLUSTER", "KEYSLOT", name)
        except TypeError:
            raise _wrong("cluster_keyslot", ("name", name, "arg")) from None
        request: Request[int] = _request(
            Request,
            ("CLUSTER KEYSLOT", command, self._integer, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_links(self, *, timeout: Timeout = UNSET) -> builtins.list[builtins.dict[S, Any]]:
        """CLUSTER LINKS: Returns a list of all TCP links to and from peer nodes in cluster (Redis 7.0.0)."""
        try:
            command = encode_command("CLUSTER", "LINKS")
        except TypeError:
            raise _wrong("cluster_links") from None
        request: Request[builtins.list[builtins.dict[S, Any]]] = _request(
            Request,
            ("CLUSTER LINKS", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_meet(
        self, ip: Arg, port: int, cluster_bus_port: int | None = None, *, timeout: Timeout = UNSET,
    ) -> bool:
        """CLUSTER MEET: Force a node cluster to handshake with another node (Redis 3.0.0)."""
        try:
            words: builtins.list[Arg] = ["CLUSTER", "MEET"]
            words.append(ip)
            words.append(port)
            if cluster_bus_port is not None:
                words.append(cluster_bus_port)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "cluster_meet",
                ("ip", ip, "arg"),
                ("port", port, "arg"),
                ("cluster_bus_port", cluster_bus_port, "arg"),
            ) from None
        request: Request[bool] = _request(Request, ("CLUSTER MEET", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def cluster_myid(self, *, timeout: Timeout = UNSET) -> S:
        """CLUSTER MYID: Return the node id (Redis 3.0.0)."""
        try:
            command = encode_command("CLUSTER", "MYID")
        except TypeError:
            raise _wrong("cluster_myid") from None
        request: Request[S] = _request(Request, ("CLUSTER MYID", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def cluster_nodes(self, *, timeout: Timeout = UNSET) -> S:
        """CLUSTER NODES: Get Cluster config for the node (Redis 3.0.0)."""
        try:
            command = encode_command("CLUSTER", "NODES")
        except TypeError:
            raise _wrong("cluster_nodes") from None
        request: Request[S] = _request(Request, ("CLUSTER NODES", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def cluster_replicas(self, node_id: Arg, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """CLUSTER REPLICAS: List replica nodes of the specified master node (Redis 5.0.0)."""
        try:
            command = encode_command("CLUSTER", "REPLICAS", node_id)
        except TypeError:
            raise _wrong("cluster_replicas", ("node_id", node_id, "arg")) from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("CLUSTER REPLICAS", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_replicate(self, node_id: Arg, *, timeout: Timeout = UNSET) -> bool:
        """CLUSTER REPLICATE: Reconfigure a node as a replica of the specified master node (Redis 3.0.0)."""
        try:
            command = encode_command("CLUSTER", "REPLICATE", node_id)
        except TypeError:
            raise _wrong("cluster_replicate", ("node_id", node_id, "arg")) from None
        request: Request[bool] = _request(
            Request,
            ("CLUSTER REPLICATE", command, self._okay, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_reset(
        self, *, hard: bool = False, soft: bool = False, timeout: Timeout = UNSET,
    ) -> bool:
        """CLUSTER RESET: Reset a Redis Cluster node (Redis 3.0.0)."""
        _one_of("cluster_reset", ("hard", hard), ("soft", soft))
        try:
            words: builtins.list[Arg] = ["CLUSTER", "RESET"]
            if hard:
                words.append("HARD")
            if soft:
                words.append("SOFT")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("cluster_reset") from None
        request: Request[bool] = _request(Request, ("CLUSTER RESET", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def cluster_saveconfig(self, *, timeout: Timeout = UNSET) -> bool:
        """CLUSTER SAVECONFIG: Forces the node to save cluster state on disk (Redis 3.0.0)."""
        try:
            command = encode_command("CLUSTER", "SAVECONFIG")
        except TypeError:
            raise _wrong("cluster_saveconfig") from None
        request: Request[bool] = _request(
            Request,
            ("CLUSTER SAVECONFIG", command, self._okay, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_set_config_epoch(self, config_epoch: int, *, timeout: Timeout = UNSET) -> bool:
        """CLUSTER SET-CONFIG-EPOCH: Set the configuration epoch in a new node (Redis 3.0.0)."""
        try:
            command = encode_command("CLUSTER", "SET-CONFIG-EPOCH", config_epoch)
        except TypeError:
            raise _wrong("cluster_set_config_epoch", ("config_epoch", config_epoch, "arg")) from None
        request: Request[bool] = _request(
            Request,
            ("CLUSTER SET-CONFIG-EPOCH", command, self._okay, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_setslot(self, slot: int, *options: Arg, timeout: Timeout = UNSET) -> bool:
        """CLUSTER SETSLOT: Bind a hash slot to a specific node (Redis 3.0.0). The arguments after the
        typed ones are given as Redis spells them.
        """
        try:
            words: builtins.list[Arg] = ["CLUSTER", "SETSLOT"]
            words.append(slot)
            words += options
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("cluster_setslot", ("slot", slot, "arg"), ("options", options, "many")) from None
        request: Request[bool] = _request(Request, ("CLUSTER SETSLOT", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def cluster_shards(self, *, timeout: Timeout = UNSET) -> builtins.list[builtins.dict[S, Any]]:
        """CLUSTER SHARDS: Get array of cluster slots to node mappings (Redis 7.0.0)."""
        try:
            command = encode_command("CLUSTER", "SHARDS")
        except TypeError:
            raise _wrong("cluster_shards") from None
        request: Request[builtins.list[builtins.dict[S, Any]]] = _request(
            Request,
            ("CLUSTER SHARDS", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_slaves(self, node_id: Arg, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """CLUSTER SLAVES: List replica nodes of the specified master node (Redis 3.0.0). Deprecated since
        Redis 5.0.0: `CLUSTER REPLICAS`.
        """
        try:
            command = encode_command("CLUSTER", "SLAVES", node_id)
        except TypeError:
            raise _wrong("cluster_slaves", ("node_id", node_id, "arg")) from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("CLUSTER SLAVES", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def cluster_slots(self, *, timeout: Timeout = UNSET) -> builtins.list[builtins.list[Any]]:
        """CLUSTER SLOTS: Get array of Cluster slot to node mappings (Redis 3.0.0). Deprecated since Redis
        7.0.0: `CLUSTER SHARDS`.
        """
        try:
            command = encode_command("CLUSTER", "SLOTS")
        except TypeError:
            raise _wrong("cluster_slots") from None
        request: Request[builtins.list[builtins.list[Any]]] = _request(
            Request,
            ("CLUSTER SLOTS", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def command_count(self, *, timeout: Timeout = UNSET) -> int:
        """COMMAND COUNT: Get total number of Redis commands (Redis 2.8.13)."""
        try:
            command = encode_command("COMMAND", "COUNT")
        except TypeError:
            raise _wrong("command_count") from None
        request: Request[int] = _request(Request, ("COMMAND COUNT", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def command_docs(
        self, *command_names: Arg | Sequence[Arg], timeout: Timeout = UNSET,
    ) -> builtins.dict[S, Any]:
        """COMMAND DOCS: Get array of specific Redis command documentation (Redis 7.0.0)."""
        try:
            words: builtins.list[Arg] = ["COMMAND", "DOCS"]
            words += _flat(command_names)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("command_docs", ("command_names", command_names, "flat")) from None
        request: Request[builtins.dict[S, Any]] = _request(
            Request,
            ("COMMAND DOCS", command, self._mapping, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def command_getkeys(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """COMMAND GETKEYS: Extract keys given a full Redis command (Redis 2.8.13)."""
        try:
            command = encode_command("COMMAND", "GETKEYS")
        except TypeError:
            raise _wrong("command_getkeys") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("COMMAND GETKEYS", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def command_getkeysandflags(self, *, timeout: Timeout = UNSET) -> builtins.list[builtins.list[Any]]:
        """COMMAND GETKEYSANDFLAGS: Extract keys and access flags given a full Redis command (Redis 7.0.0)."""
        try:
            command = encode_command("COMMAND", "GETKEYSANDFLAGS")
        except TypeError:
            raise _wrong("command_getkeysandflags") from None
        request: Request[builtins.list[builtins.list[Any]]] = _request(
            Request,
            ("COMMAND GETKEYSANDFLAGS", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def command_help(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """COMMAND HELP: Show helpful text about the different subcommands (Redis 5.0.0)."""
        try:
            command = encode_command("COMMAND", "HELP")
        except TypeError:
            raise _wrong("command_help") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("COMMAND HELP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def command_info(
        self, *command_names: Arg | Sequence[Arg], timeout: Timeout = UNSET,
    ) -> builtins.list[Any]:
        """COMMAND INFO: Get array of specific Redis command details, or all when no argument is given
        (Redis 2.8.13).
        """
        try:
            words: builtins.list[Arg] = ["COMMAND", "INFO"]
            words += _flat(command_names)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("command_info", ("command_names", command_names, "flat")) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("COMMAND INFO", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def command_list(self, *options: Arg, timeout: Timeout = UNSET) -> builtins.list[S]:
        """COMMAND LIST: Get an array of Redis command names (Redis 7.0.0). The arguments after the typed
        ones are given as Redis spells them.
        """
        try:
            words: builtins.list[Arg] = ["COMMAND", "LIST"]
            words += options
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("command_list", ("options", options, "many")) from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("COMMAND LIST", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def config_get(
        self, parameter: Sequence[tuple[Arg]], *, timeout: Timeout = UNSET,
    ) -> builtins.dict[S, S]:
        """CONFIG GET: Get the values of configuration parameters (Redis 2.0.0)."""
        try:
            words: builtins.list[Arg] = ["CONFIG", "GET"]
            for row in parameter:
                words += row
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("config_get", ("parameter", parameter, "rows")) from None
        request: Request[builtins.dict[S, S]] = _request(
            Request,
            ("CONFIG GET", command, self._mapping, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def config_help(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """CONFIG HELP: Show helpful text about the different subcommands (Redis 5.0.0)."""
        try:
            command = encode_command("CONFIG", "HELP")
        except TypeError:
            raise _wrong("config_help") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("CONFIG HELP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def config_resetstat(self, *, timeout: Timeout = UNSET) -> bool:
        """CONFIG RESETSTAT: Reset the stats returned by INFO (Redis 2.0.0)."""
        try:
            command = encode_command("CONFIG", "RESETSTAT")
        except TypeError:
            raise _wrong("config_resetstat") from None
        request: Request[bool] = _request(
            Request,
            ("CONFIG RESETSTAT", command, self._okay, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def config_rewrite(self, *, timeout: Timeout = UNSET) -> bool:
        """CONFIG REWRITE: Rewrite the configuration file with the in memory configuration (Redis 2.8.0)."""
        try:
            command = encode_command("CONFIG", "REWRITE")
        except TypeError:
            raise _wrong("config_rewrite") from None
        request: Request[bool] = _request(Request, ("CONFIG REWRITE", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def config_set(self, parameter_value: Mapping[Arg, Arg], *, timeout: Timeout = UNSET) -> bool:
        """CONFIG SET: Set configuration parameters to the given values (Redis 2.0.0)."""
        if not parameter_value:
            raise TypeError("config_set() needs at least one pair in parameter_value")
        try:
            words: builtins.list[Arg] = ["CONFIG", "SET"]
            for pair_key, pair_value in parameter_value.items():
                words += (pair_key, pair_value)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("config_set", ("parameter_value", parameter_value, "pairs")) from None
        request: Request[bool] = _request(Request, ("CONFIG SET", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def copy(
        self, source: Arg, destination: Arg, *, db: int | None = None, replace: bool = False,
        timeout: Timeout = UNSET,
    ) -> bool:
        """COPY: Copy a key (Redis 6.2.0)."""
        try:
            words: builtins.list[Arg] = ["COPY"]
            words.append(source)
            words.append(destination)
            if db is not None:
                words += ("DB", db)
            if replace:
                words.append("REPLACE")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "copy",
                ("source", source, "arg"),
                ("destination", destination, "arg"),
                ("db", db, "arg"),
            ) from None
        request: Request[bool] = _request(Request, ("COPY", command, self._flag, False, 1, _UNARY))
        return self.request(request, timeout)

    def dbsize(self, *, timeout: Timeout = UNSET) -> int:
        """DBSIZE: Return the number of keys in the selected database (Redis 1.0.0)."""
        try:
            command = encode_command("DBSIZE")
        except TypeError:
            raise _wrong("dbsize") from None
        request: Request[int] = _request(Request, ("DBSIZE", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def debug(self, *, timeout: Timeout = UNSET) -> Any:
        """DEBUG: A container for debugging commands (Redis 1.0.0)."""
        try:
            command = encode_command("DEBUG")
        except TypeError:
            raise _wrong("debug") from None
        request: Request[Any] = _request(Request, ("DEBUG", command, self._value, False, 1, _UNARY))
        return self.request(request, timeout)

    def decr(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """DECR: Decrement the integer value of a key by one (Redis 1.0.0)."""
        try:
            command = encode_command("DECR", name)
        except TypeError:
            raise _wrong("decr", ("name", name, "arg")) from None
        request: Request[int] = _request(Request, ("DECR", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def decrby(self, name: Arg, decrement: int, *, timeout: Timeout = UNSET) -> int:
        """DECRBY: Decrement the integer value of a key by the given number (Redis 1.0.0)."""
        try:
            command = encode_command("DECRBY", name, decrement)
        except TypeError:
            raise _wrong("decrby", ("name", name, "arg"), ("decrement", decrement, "arg")) from None
        request: Request[int] = _request(Request, ("DECRBY", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def delete(self, *keys: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """DEL: Delete a key (Redis 1.0.0)."""
        if not keys:
            raise TypeError("delete() needs at least one key")
        try:
            words: builtins.list[Arg] = ["DEL"]
            words += _flat(keys)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("delete", ("keys", keys, "flat")) from None
        request: Request[int] = _request(Request, ("DEL", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def dump(self, name: Arg, *, timeout: Timeout = UNSET) -> S | None:
        """DUMP: Return a serialized version of the value stored at the specified key (Redis 2.6.0)."""
        try:
            command = encode_command("DUMP", name)
        except TypeError:
            raise _wrong("dump", ("name", name, "arg")) from None
        request: Request[S | None] = _request(Request, ("DUMP", command, self._string, True, 1, _UNARY))
        return self.request(request, timeout)

    def echo(self, message: Arg, *, timeout: Timeout = UNSET) -> S:
        """ECHO: Echo the given string (Redis 1.0.0)."""
        try:
            command = encode_command("ECHO", message)
        except TypeError:
            raise _wrong("echo", ("message", message, "arg")) from None
        request: Request[S] = _request(Request, ("ECHO", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def eval(
        self, script: Arg, keys: Arg | Sequence[Arg] = (), *args: Arg | Sequence[Arg],
        timeout: Timeout = UNSET,
    ) -> Any:
        """EVAL: Execute a Lua script server side (Redis 2.6.0)."""
        try:
            words: builtins.list[Arg] = ["EVAL"]
            words.append(script)
            words.append(len(_many(keys)))
            words += _many(keys)
            words += _flat(args)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "eval",
                ("script", script, "arg"),
                ("keys", keys, "many"),
                ("args", args, "flat"),
            ) from None
        request: Request[Any] = _request(Request, ("EVAL", command, self._value, False, 1, _UNARY))
        return self.request(request, timeout)

    def evalsha(
        self, sha1: Arg, keys: Arg | Sequence[Arg] = (), *args: Arg | Sequence[Arg],
        timeout: Timeout = UNSET,
    ) -> Any:
        """EVALSHA: Execute a Lua script server side (Redis 2.6.0)."""
        try:
            words: builtins.list[Arg] = ["EVALSHA"]
            words.append(sha1)
            words.append(len(_many(keys)))
            words += _many(keys)
            words += _flat(args)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "evalsha",
                ("sha1", sha1, "arg"),
                ("keys", keys, "many"),
                ("args", args, "flat"),
            ) from None
        request: Request[Any] = _request(Request, ("EVALSHA", command, self._value, False, 1, _UNARY))
        return self.request(request, timeout)

    def evalsha_ro(
        self, sha1: Arg, keys: Arg | Sequence[Arg] = (), *args: Arg | Sequence[Arg],
        timeout: Timeout = UNSET,
    ) -> Any:
        """EVALSHA_RO: Execute a read-only Lua script server side (Redis 7.0.0)."""
        try:
            words: builtins.list[Arg] = ["EVALSHA_RO"]
            words.append(sha1)
            words.append(len(_many(keys)))
            words += _many(keys)
            words += _flat(args)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "evalsha_ro",
                ("sha1", sha1, "arg"),
                ("keys", keys, "many"),
                ("args", args, "flat"),
            ) from None
        request: Request[Any] = _request(Request, ("EVALSHA_RO", command, self._value, True, 1, _UNARY))
        return self.request(request, timeout)

    def eval_ro(
        self, script: Arg, keys: Arg | Sequence[Arg] = (), *args: Arg | Sequence[Arg],
        timeout: Timeout = UNSET,
    ) -> Any:
        """EVAL_RO: Execute a read-only Lua script server side (Redis 7.0.0)."""
        try:
            words: builtins.list[Arg] = ["EVAL_RO"]
            words.append(script)
            words.append(len(_many(keys)))
            words += _many(keys)
            words += _flat(args)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "eval_ro",
                ("script", script, "arg"),
                ("keys", keys, "many"),
                ("args", args, "flat"),
            ) from None
        request: Request[Any] = _request(Request, ("EVAL_RO", command, self._value, True, 1, _UNARY))
        return self.request(request, timeout)

    def exists(self, *keys: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """EXISTS: Determine if a key exists (Redis 1.0.0)."""
        if not keys:
            raise TypeError("exists() needs at least one key")
        try:
            words: builtins.list[Arg] = ["EXISTS"]
            words += _flat(keys)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("exists", ("keys", keys, "flat")) from None
        request: Request[int] = _request(Request, ("EXISTS", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def expire(
        self, name: Arg, time: int | timedelta, *, nx: bool = False, xx: bool = False, gt: bool = False,
        lt: bool = False, timeout: Timeout = UNSET,
    ) -> bool:
        """EXPIRE: Set a key's time to live in seconds (Redis 1.0.0)."""
        _one_of("expire", ("nx", nx), ("xx", xx), ("gt", gt), ("lt", lt))
        try:
            words: builtins.list[Arg] = ["EXPIRE"]
            words.append(name)
            words.append(_seconds(time))
            if nx:
                words.append("NX")
            if xx:
                words.append("XX")
            if gt:
                words.append("GT")
            if lt:
                words.append("LT")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("expire", ("name", name, "arg"), ("time", time, "duration")) from None
        request: Request[bool] = _request(Request, ("EXPIRE", command, self._flag, False, 1, _UNARY))
        return self.request(request, timeout)

    def expireat(
        self, name: Arg, unix_time_seconds: int, *, nx: bool = False, xx: bool = False, gt: bool = False,
        lt: bool = False, timeout: Timeout = UNSET,
    ) -> bool:
        """EXPIREAT: Set the expiration for a key as a UNIX timestamp (Redis 1.2.0)."""
        _one_of("expireat", ("nx", nx), ("xx", xx), ("gt", gt), ("lt", lt))
        try:
            words: builtins.list[Arg] = ["EXPIREAT"]
            words.append(name)
            words.append(unix_time_seconds)
            if nx:
                words.append("NX")
            if xx:
                words.append("XX")
            if gt:
                words.append("GT")
            if lt:
                words.append("LT")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "expireat",
                ("name", name, "arg"),
                ("unix_time_seconds", unix_time_seconds, "arg"),
            ) from None
        request: Request[bool] = _request(Request, ("EXPIREAT", command, self._flag, False, 1, _UNARY))
        return self.request(request, timeout)

    def expiretime(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """EXPIRETIME: Get the expiration Unix timestamp for a key (Redis 7.0.0)."""
        try:
            command = encode_command("EXPIRETIME", name)
        except TypeError:
            raise _wrong("expiretime", ("name", name, "arg")) from None
        request: Request[int] = _request(Request, ("EXPIRETIME", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def failover(self, *options: Arg, timeout: Timeout = UNSET) -> bool:
        """FAILOVER: Start a coordinated failover between this server and one of its replicas (Redis
        6.2.0). The arguments after the typed ones are given as Redis spells them.
        """
        try:
            words: builtins.list[Arg] = ["FAILOVER"]
            words += options
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("failover", ("options", options, "many")) from None
        request: Request[bool] = _request(Request, ("FAILOVER", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def fcall(
        self, function: Arg, keys: Arg | Sequence[Arg] = (), *args: Arg | Sequence[Arg],
        timeout: Timeout = UNSET,
    ) -> Any:
        """FCALL: Invoke a function (Redis 7.0.0)."""
        try:
            words: builtins.list[Arg] = ["FCALL"]
            words.append(function)
            words.append(len(_many(keys)))
            words += _many(keys)
            words += _flat(args)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "fcall",
                ("function", function, "arg"),
                ("keys", keys, "many"),
                ("args", args, "flat"),
            ) from None
        request: Request[Any] = _request(Request, ("FCALL", command, self._value, False, 1, _UNARY))
        return self.request(request, timeout)

    def fcall_ro(
        self, function: Arg, keys: Arg | Sequence[Arg] = (), *args: Arg | Sequence[Arg],
        timeout: Timeout = UNSET,
    ) -> Any:
        """FCALL_RO: Invoke a read-only function (Redis 7.0.0)."""
        try:
            words: builtins.list[Arg] = ["FCALL_RO"]
            words.append(function)
            words.append(len(_many(keys)))
            words += _many(keys)
            words += _flat(args)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "fcall_ro",
                ("function", function, "arg"),
                ("keys", keys, "many"),
                ("args", args, "flat"),
            ) from None
        request: Request[Any] = _request(Request, ("FCALL_RO", command, self._value, True, 1, _UNARY))
        return self.request(request, timeout)

    def flushall(self, *, async_: bool = False, sync: bool = False, timeout: Timeout = UNSET) -> bool:
        """FLUSHALL: Remove all keys from all databases (Redis 1.0.0)."""
        _one_of("flushall", ("async_", async_), ("sync", sync))
        try:
            words: builtins.list[Arg] = ["FLUSHALL"]
            if async_:
                words.append("ASYNC")
            if sync:
                words.append("SYNC")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("flushall") from None
        request: Request[bool] = _request(Request, ("FLUSHALL", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def flushdb(self, *, async_: bool = False, sync: bool = False, timeout: Timeout = UNSET) -> bool:
        """FLUSHDB: Remove all keys from the current database (Redis 1.0.0)."""
        _one_of("flushdb", ("async_", async_), ("sync", sync))
        try:
            words: builtins.list[Arg] = ["FLUSHDB"]
            if async_:
                words.append("ASYNC")
            if sync:
                words.append("SYNC")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("flushdb") from None
        request: Request[bool] = _request(Request, ("FLUSHDB", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def function_delete(self, library_name: Arg, *, timeout: Timeout = UNSET) -> bool:
        """FUNCTION DELETE: Delete a function by name (Redis 7.0.0)."""
        try:
            command = encode_command("FUNCTION", "DELETE", library_name)
        except TypeError:
            raise _wrong("function_delete", ("library_name", library_name, "arg")) from None
        request: Request[bool] = _request(Request, ("FUNCTION DELETE", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def function_dump(self, *, timeout: Timeout = UNSET) -> S:
        """FUNCTION DUMP: Dump all functions into a serialized binary payload (Redis 7.0.0)."""
        try:
            command = encode_command("FUNCTION", "DUMP")
        except TypeError:
            raise _wrong("function_dump") from None
        request: Request[S] = _request(Request, ("FUNCTION DUMP", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def function_flush(
        self, *, async_: bool = False, sync: bool = False, timeout: Timeout = UNSET,
    ) -> bool:
        """FUNCTION FLUSH: Deleting all functions (Redis 7.0.0)."""
        _one_of("function_flush", ("async_", async_), ("sync", sync))
        try:
            words: builtins.list[Arg] = ["FUNCTION", "FLUSH"]
            if async_:
                words.append("ASYNC")
            if sync:
                words.append("SYNC")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("function_flush") from None
        request: Request[bool] = _request(Request, ("FUNCTION FLUSH", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def function_help(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """FUNCTION HELP: Show helpful text about the different subcommands (Redis 7.0.0)."""
        try:
            command = encode_command("FUNCTION", "HELP")
        except TypeError:
            raise _wrong("function_help") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("FUNCTION HELP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def function_kill(self, *, timeout: Timeout = UNSET) -> bool:
        """FUNCTION KILL: Kill the function currently in execution (Redis 7.0.0)."""
        try:
            command = encode_command("FUNCTION", "KILL")
        except TypeError:
            raise _wrong("function_kill") from None
        request: Request[bool] = _request(Request, ("FUNCTION KILL", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def function_list(
        self, *, libraryname: Arg | None = None, withcode: bool = False, timeout: Timeout = UNSET,
    ) -> builtins.list[builtins.dict[S, Any]]:
        """FUNCTION LIST: List information about all the functions (Redis 7.0.0)."""
        try:
            words: builtins.list[Arg] = ["FUNCTION", "LIST"]
            if libraryname is not None:
                words += ("LIBRARYNAME", libraryname)
            if withcode:
                words.append("WITHCODE")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("function_list", ("libraryname", libraryname, "arg")) from None
        request: Request[builtins.list[builtins.dict[S, Any]]] = _request(
            Request,
            ("FUNCTION LIST", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def function_load(
        self, function_code: Arg, *, replace: bool = False, timeout: Timeout = UNSET,
    ) -> S:
        """FUNCTION LOAD: Create a function with the given arguments (name, code, description) (Redis
        7.0.0).
        """
        try:
            words: builtins.list[Arg] = ["FUNCTION", "LOAD"]
            if replace:
                words.append("REPLACE")
            words.append(function_code)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("function_load", ("function_code", function_code, "arg")) from None
        request: Request[S] = _request(Request, ("FUNCTION LOAD", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def function_restore(
        self, serialized_value: Arg, *, flush: bool = False, append: bool = False, replace: bool = False,
        timeout: Timeout = UNSET,
    ) -> bool:
        """FUNCTION RESTORE: Restore all the functions on the given payload (Redis 7.0.0)."""
        _one_of("function_restore", ("flush", flush), ("append", append), ("replace", replace))
        try:
            words: builtins.list[Arg] = ["FUNCTION", "RESTORE"]
            words.append(serialized_value)
            if flush:
                words.append("FLUSH")
            if append:
                words.append("APPEND")
            if replace:
                words.append("REPLACE")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("function_restore", ("serialized_value", serialized_value, "arg")) from None
        request: Request[bool] = _request(
            Request,
            ("FUNCTION RESTORE", command, self._okay, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def function_stats(self, *, timeout: Timeout = UNSET) -> builtins.dict[S, Any]:
        """FUNCTION STATS: Return information about the function currently running (name, description,
        duration) (Redis 7.0.0).
        """
        try:
            command = encode_command("FUNCTION", "STATS")
        except TypeError:
            raise _wrong("function_stats") from None
        request: Request[builtins.dict[S, Any]] = _request(
            Request,
            ("FUNCTION STATS", command, self._mapping, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def geoadd(
        self, name: Arg, longitude_latitude_member: Sequence[tuple[Arg, Arg, Arg]], *, nx: bool = False,
        xx: bool = False, ch: bool = False, timeout: Timeout = UNSET,
    ) -> int:
        """GEOADD: Add one or more geospatial items in the geospatial index represented using a sorted set
        (Redis 3.2.0).
        """
        _one_of("geoadd", ("nx", nx), ("xx", xx))
        try:
            words: builtins.list[Arg] = ["GEOADD"]
            words.append(name)
            if nx:
                words.append("NX")
            if xx:
                words.append("XX")
            if ch:
                words.append("CH")
            for row in longitude_latitude_member:
                words += row
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "geoadd",
                ("name", name, "arg"),
                ("longitude_latitude_member", longitude_latitude_member, "rows"),
            ) from None
        request: Request[int] = _request(Request, ("GEOADD", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def geodist(
        self, name: Arg, member1: Arg, member2: Arg, *, m: bool = False, km: bool = False,
        ft: bool = False, mi: bool = False, timeout: Timeout = UNSET,
    ) -> S | None:
        """GEODIST: Returns the distance between two members of a geospatial index (Redis 3.2.0)."""
        _one_of("geodist", ("m", m), ("km", km), ("ft", ft), ("mi", mi))
        try:
            words: builtins.list[Arg] = ["GEODIST"]
            words.append(name)
            words.append(member1)
            words.append(member2)
            if m:
                words.append("m")
            if km:
                words.append("km")
            if ft:
                words.append("ft")
            if mi:
                words.append("mi")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "geodist",
                ("name", name, "arg"),
                ("member1", member1, "arg"),
                ("member2", member2, "arg"),
            ) from None
        request: Request[S | None] = _request(Request, ("GEODIST", command, self._string, True, 1, _UNARY))
        return self.request(request, timeout)

    def geohash(
        self, name: Arg, *members: Arg | Sequence[Arg], timeout: Timeout = UNSET,
    ) -> builtins.list[S]:
        """GEOHASH: Returns members of a geospatial index as standard geohash strings (Redis 3.2.0)."""
        if not members:
            raise TypeError("geohash() needs at least one member")
        try:
            words: builtins.list[Arg] = ["GEOHASH"]
            words.append(name)
            words += _flat(members)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("geohash", ("name", name, "arg"), ("members", members, "flat")) from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("GEOHASH", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def geopos(
        self, name: Arg, *members: Arg | Sequence[Arg], timeout: Timeout = UNSET,
    ) -> builtins.list[Any]:
        """GEOPOS: Returns longitude and latitude of members of a geospatial index (Redis 3.2.0)."""
        if not members:
            raise TypeError("geopos() needs at least one member")
        try:
            words: builtins.list[Arg] = ["GEOPOS"]
            words.append(name)
            words += _flat(members)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("geopos", ("name", name, "arg"), ("members", members, "flat")) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("GEOPOS", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def georadius(
        self, name: Arg, longitude: float, latitude: float, radius: float,
        unit: Literal["m", "km", "ft", "mi"], *, withcoord: bool = False, withdist: bool = False,
        withhash: bool = False, count: int | None = None, any: bool = False, asc: bool = False,
        desc: bool = False, store: Arg | None = None, storedist: Arg | None = None,
        timeout: Timeout = UNSET,
    ) -> builtins.list[S] | builtins.list[builtins.list[Any]] | int:
        """GEORADIUS: Query a sorted set representing a geospatial index to fetch members matching a given
        maximum distance from a point (Redis 3.2.0). Deprecated since Redis 6.2.0: `GEOSEARCH` and
        `GEOSEARCHSTORE` with the `BYRADIUS` argument.
        """
        _one_of("georadius", ("asc", asc), ("desc", desc))
        try:
            words: builtins.list[Arg] = ["GEORADIUS"]
            words.append(name)
            words.append(longitude)
            words.append(latitude)
            words.append(radius)
            words.append(unit)
            if withcoord:
                words.append("WITHCOORD")
            if withdist:
                words.append("WITHDIST")
            if withhash:
                words.append("WITHHASH")
            if count is not None:
                words += ("COUNT", count)
                if any:
                    words.append("ANY")
            if asc:
                words.append("ASC")
            if desc:
                words.append("DESC")
            if store is not None:
                words += ("STORE", store)
            if storedist is not None:
                words += ("STOREDIST", storedist)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "georadius",
                ("name", name, "arg"),
                ("longitude", longitude, "arg"),
                ("latitude", latitude, "arg"),
                ("radius", radius, "arg"),
                ("unit", unit, "arg"),
                ("count", count, "arg"),
                ("store", store, "arg"),
                ("storedist", storedist, "arg"),
            ) from None
        request: Request[builtins.list[S] | builtins.list[builtins.list[Any]] | int] = _request(
            Request,
            ("GEORADIUS", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def georadiusbymember(
        self, name: Arg, member: Arg, radius: float, unit: Literal["m", "km", "ft", "mi"], *,
        withcoord: bool = False, withdist: bool = False, withhash: bool = False, count: int | None = None,
        any: bool = False, asc: bool = False, desc: bool = False, store: Arg | None = None,
        storedist: Arg | None = None, timeout: Timeout = UNSET,
    ) -> builtins.list[S] | builtins.list[builtins.list[Any]] | int:
        """GEORADIUSBYMEMBER: Query a sorted set representing a geospatial index to fetch members matching
        a given maximum distance from a member (Redis 3.2.0). Deprecated since Redis 6.2.0: `GEOSEARCH`
        and `GEOSEARCHSTORE` with the `BYRADIUS` and `FROMMEMBER` arguments.
        """
        _one_of("georadiusbymember", ("asc", asc), ("desc", desc))
        try:
            words: builtins.list[Arg] = ["GEORADIUSBYMEMBER"]
            words.append(name)
            words.append(member)
            words.append(radius)
            words.append(unit)
            if withcoord:
                words.append("WITHCOORD")
            if withdist:
                words.append("WITHDIST")
            if withhash:
                words.append("WITHHASH")
            if count is not None:
                words += ("COUNT", count)
                if any:
                    words.append("ANY")
            if asc:
                words.append("ASC")
            if desc:
                words.append("DESC")
            if store is not None:
                words += ("STORE", store)
            if storedist is not None:
                words += ("STOREDIST", storedist)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "georadiusbymember",
                ("name", name, "arg"),
                ("member", member, "arg"),
                ("radius", radius, "arg"),
                ("unit", unit, "arg"),
                ("count", count, "arg"),
                ("store", store, "arg"),
                ("storedist", storedist, "arg"),
            ) from None
        request: Request[builtins.list[S] | builtins.list[builtins.list[Any]] | int] = _request(
            Request,
            ("GEORADIUSBYMEMBER", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def georadiusbymember_ro(
        self, name: Arg, member: Arg, radius: float, unit: Literal["m", "km", "ft", "mi"], *,
        withcoord: bool = False, withdist: bool = False, withhash: bool = False, count: int | None = None,
        any: bool = False, asc: bool = False, desc: bool = False, timeout: Timeout = UNSET,
    ) -> builtins.list[S] | builtins.list[builtins.list[Any]]:
        """GEORADIUSBYMEMBER_RO: A read-only variant for GEORADIUSBYMEMBER (Redis 3.2.10). Deprecated since
        Redis 6.2.0: `GEOSEARCH` with the `BYRADIUS` and `FROMMEMBER` arguments.
        """
        _one_of("georadiusbymember_ro", ("asc", asc), ("desc", desc))
        try:
            words: builtins.list[Arg] = ["GEORADIUSBYMEMBER_RO"]
            words.append(name)
            words.append(member)
            words.append(radius)
            words.append(unit)
            if withcoord:
                words.append("WITHCOORD")
            if withdist:
                words.append("WITHDIST")
            if withhash:
                words.append("WITHHASH")
            if count is not None:
                words += ("COUNT", count)
                if any:
                    words.append("ANY")
            if asc:
                words.append("ASC")
            if desc:
                words.append("DESC")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "georadiusbymember_ro",
                ("name", name, "arg"),
                ("member", member, "arg"),
                ("radius", radius, "arg"),
                ("unit", unit, "arg"),
                ("count", count, "arg"),
            ) from None
        request: Request[builtins.list[S] | builtins.list[builtins.list[Any]]] = _request(
            Request,
            ("GEORADIUSBYMEMBER_RO", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def georadius_ro(
        self, name: Arg, longitude: float, latitude: float, radius: float,
        unit: Literal["m", "km", "ft", "mi"], *, withcoord: bool = False, withdist: bool = False,
        withhash: bool = False, count: int | None = None, any: bool = False, asc: bool = False,
        desc: bool = False, timeout: Timeout = UNSET,
    ) -> builtins.list[S] | builtins.list[builtins.list[Any]]:
        """GEORADIUS_RO: A read-only variant for GEORADIUS (Redis 3.2.10). Deprecated since Redis 6.2.0:
        `GEOSEARCH` with the `BYRADIUS` argument.
        """
        _one_of("georadius_ro", ("asc", asc), ("desc", desc))
        try:
            words: builtins.list[Arg] = ["GEORADIUS_RO"]
            words.append(name)
            words.append(longitude)
            words.append(latitude)
            words.append(radius)
            words.append(unit)
            if withcoord:
                words.append("WITHCOORD")
            if withdist:
                words.append("WITHDIST")
            if withhash:
                words.append("WITHHASH")
            if count is not None:
                words += ("COUNT", count)
                if any:
                    words.append("ANY")
            if asc:
                words.append("ASC")
            if desc:
                words.append("DESC")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "georadius_ro",
                ("name", name, "arg"),
                ("longitude", longitude, "arg"),
                ("latitude", latitude, "arg"),
                ("radius", radius, "arg"),
                ("unit", unit, "arg"),
                ("count", count, "arg"),
            ) from None
        request: Request[builtins.list[S] | builtins.list[builtins.list[Any]]] = _request(
            Request,
            ("GEORADIUS_RO", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def geosearch(
        self, name: Arg, *options: Arg, timeout: Timeout = UNSET,
    ) -> builtins.list[S] | builtins.list[builtins.list[Any]]:
        """GEOSEARCH: Query a sorted set representing a geospatial index to fetch members inside an area of
        a box or a circle (Redis 6.2.0). The arguments after the typed ones are given as Redis spells
        them.
        """
        try:
            words: builtins.list[Arg] = ["GEOSEARCH"]
            words.append(name)
            words += options
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("geosearch", ("name", name, "arg"), ("options", options, "many")) from None
        request: Request[builtins.list[S] | builtins.list[builtins.list[Any]]] = _request(
            Request,
            ("GEOSEARCH", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def geosearchstore(
        self, destination: Arg, source: Arg, *options: Arg, timeout: Timeout = UNSET,
    ) -> int:
        """GEOSEARCHSTORE: Query a sorted set representing a geospatial index to fetch members inside an
        area of a box or a circle, and store the result in another key (Redis 6.2.0). The arguments
        after the typed ones are given as Redis spells them.
        """
        try:
            words: builtins.list[Arg] = ["GEOSEARCHSTORE"]
            words.append(destination)
            words.append(source)
            words += options
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "geosearchstore",
                ("destination", destination, "arg"),
                ("source", source, "arg"),
                ("options", options, "many"),
            ) from None
        request: Request[int] = _request(
            Request,
            ("GEOSEARCHSTORE", command, self._integer, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def get(self, name: Arg, *, timeout: Timeout = UNSET) -> S | None:
        """GET: Get the value of a key (Redis 1.0.0)."""
        try:
            command = encode_command("GET", name)
        except TypeError:
            raise _wrong("get", ("name", name, "arg")) from None
        request: Request[S | None] = _request(Request, ("GET", command, self._string, True, 1, _UNARY))
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def getbit(self, name: Arg, offset: int, *, timeout: Timeout = UNSET) -> bool:
        """GETBIT: Returns the bit value at offset in the string value stored at key (Redis 2.2.0)."""
        try:
            command = encode_command("GETBIT", name, offset)
        except TypeError:
            raise _wrong("getbit", ("name", name, "arg"), ("offset", offset, "arg")) from None
        request: Request[bool] = _request(Request, ("GETBIT", command, self._flag, True, 1, _UNARY))
        return self.request(request, timeout)

    def getdel(self, name: Arg, *, timeout: Timeout = UNSET) -> S | None:
        """GETDEL: Get the value of a key and delete the key (Redis 6.2.0)."""
        try:
            command = encode_command("GETDEL", name)
        except TypeError:
            raise _wrong("getdel", ("name", name, "arg")) from None
        request: Request[S | None] = _request(Request, ("GETDEL", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def getex(
        self, name: Arg, *, ex: int | timedelta | None = None, px: int | timedelta | None = None,
        exat: int | None = None, pxat: int | None = None, persist: bool = False, timeout: Timeout = UNSET,
    ) -> S | None:
        """GETEX: Get the value of a key and optionally set its expiration (Redis 6.2.0)."""
        _one_of("getex", ("ex", ex), ("px", px), ("exat", exat), ("pxat", pxat), ("persist", persist))
        try:
            words: builtins.list[Arg] = ["GETEX"]
            words.append(name)
            if ex is not None:
                words += ("EX", _seconds(ex))
            if px is not None:
                words += ("PX", _milliseconds(px))
            if exat is not None:
                words += ("EXAT", exat)
            if pxat is not None:
                words += ("PXAT", pxat)
            if persist:
                words.append("PERSIST")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "getex",
                ("name", name, "arg"),
                ("ex", ex, "duration"),
                ("px", px, "duration"),
                ("exat", exat, "arg"),
                ("pxat", pxat, "arg"),
            ) from None
        request: Request[S | None] = _request(Request, ("GETEX", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def getrange(self, name: Arg, start: int, end: int, *, timeout: Timeout = UNSET) -> S:
        """GETRANGE: Get a substring of the string stored at a key (Redis 2.4.0)."""
        try:
            command = encode_command("GETRANGE", name, start, end)
        except TypeError:
            raise _wrong(
                "getrange",
                ("name", name, "arg"),
                ("start", start, "arg"),
                ("end", end, "arg"),
            ) from None
        request: Request[S] = _request(Request, ("GETRANGE", command, self._string, True, 1, _UNARY))
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def getset(self, name: Arg, value: Arg, *, timeout: Timeout = UNSET) -> S | None:
        """GETSET: Set the string value of a key and return its old value (Redis 1.0.0). Deprecated since
        Redis 6.2.0: `SET` with the `!GET` argument.
        """
        try:
            command = encode_command("GETSET", name, value)
        except TypeError:
            raise _wrong("getset", ("name", name, "arg"), ("value", value, "arg")) from None
        request: Request[S | None] = _request(Request, ("GETSET", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def hdel(self, name: Arg, *fields: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """HDEL: Delete one or more hash fields (Redis 2.0.0)."""
        if not fields:
            raise TypeError("hdel() needs at least one field")
        try:
            words: builtins.list[Arg] = ["HDEL"]
            words.append(name)
            words += _flat(fields)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("hdel", ("name", name, "arg"), ("fields", fields, "flat")) from None
        request: Request[int] = _request(Request, ("HDEL", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def hexists(self, name: Arg, field: Arg, *, timeout: Timeout = UNSET) -> bool:
        """HEXISTS: Determine if a hash field exists (Redis 2.0.0)."""
        try:
            command = encode_command("HEXISTS", name, field)
        except TypeError:
            raise _wrong("hexists", ("name", name, "arg"), ("field", field, "arg")) from None
        request: Request[bool] = _request(Request, ("HEXISTS", command, self._flag, True, 1, _UNARY))
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def hget(self, name: Arg, field: Arg, *, timeout: Timeout = UNSET) -> S | None:
        """HGET: Get the value of a hash field (Redis 2.0.0)."""
        try:
            command = encode_command("HGET", name, field)
        except TypeError:
            raise _wrong("hget", ("name", name, "arg"), ("field", field, "arg")) from None
        request: Request[S | None] = _request(Request, ("HGET", command, self._string, True, 1, _UNARY))
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def hgetall(self, name: Arg, *, timeout: Timeout = UNSET) -> builtins.dict[S, S]:
        """HGETALL: Get all the fields and values in a hash (Redis 2.0.0)."""
        try:
            command = encode_command("HGETALL", name)
        except TypeError:
            raise _wrong("hgetall", ("name", name, "arg")) from None
        request: Request[builtins.dict[S, S]] = _request(
            Request,
            ("HGETALL", command, self._mapping, True, 1, _UNARY),
        )
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def hincrby(self, name: Arg, field: Arg, increment: int, *, timeout: Timeout = UNSET) -> int:
        """HINCRBY: Increment the integer value of a hash field by the given number (Redis 2.0.0)."""
        try:
            command = encode_command("HINCRBY", name, field, increment)
        except TypeError:
            raise _wrong(
                "hincrby",
                ("name", name, "arg"),
                ("field", field, "arg"),
                ("increment", increment, "arg"),
            ) from None
        request: Request[int] = _request(Request, ("HINCRBY", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def hincrbyfloat(
        self, name: Arg, field: Arg, increment: float, *, timeout: Timeout = UNSET,
    ) -> float:
        """HINCRBYFLOAT: Increment the float value of a hash field by the given amount (Redis 2.6.0)."""
        try:
            command = encode_command("HINCRBYFLOAT", name, field, increment)
        except TypeError:
            raise _wrong(
                "hincrbyfloat",
                ("name", name, "arg"),
                ("field", field, "arg"),
                ("increment", increment, "arg"),
            ) from None
        request: Request[float] = _request(Request, ("HINCRBYFLOAT", command, self._number, False, 1, _UNARY))
        return self.request(request, timeout)

    def hkeys(self, name: Arg, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """HKEYS: Get all the fields in a hash (Redis 2.0.0)."""
        try:
            command = encode_command("HKEYS", name)
        except TypeError:
            raise _wrong("hkeys", ("name", name, "arg")) from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("HKEYS", command, self._value, True, 1, _UNARY),
        )
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def hlen(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """HLEN: Get the number of fields in a hash (Redis 2.0.0)."""
        try:
            command = encode_command("HLEN", name)
        except TypeError:
            raise _wrong("hlen", ("name", name, "arg")) from None
        request: Request[int] = _request(Request, ("HLEN", command, self._integer, True, 1, _UNARY))
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def hmget(
        self, name: Arg, *fields: Arg | Sequence[Arg], timeout: Timeout = UNSET,
    ) -> builtins.list[S | None]:
        """HMGET: Get the values of all the given hash fields (Redis 2.0.0)."""
        if not fields:
            raise TypeError("hmget() needs at least one field")
        try:
            words: builtins.list[Arg] = ["HMGET"]
            words.append(name)
            words += _flat(fields)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("hmget", ("name", name, "arg"), ("fields", fields, "flat")) from None
        request: Request[builtins.list[S | None]] = _request(
            Request,
            ("HMGET", command, self._value, True, 1, _UNARY),
        )
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def hmset(self, name: Arg, mapping: Mapping[Arg, Arg], *, timeout: Timeout = UNSET) -> bool:
        """HMSET: Set multiple hash fields to multiple values (Redis 2.0.0). Deprecated since Redis 4.0.0:
        `HSET` with multiple field-value pairs.
        """
        if not mapping:
            raise TypeError("hmset() needs at least one pair in mapping")
        try:
            words: builtins.list[Arg] = ["HMSET"]
            words.append(name)
            for pair_key, pair_value in mapping.items():
                words += (pair_key, pair_value)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("hmset", ("name", name, "arg"), ("mapping", mapping, "pairs")) from None
        request: Request[bool] = _request(Request, ("HMSET", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def hrandfield(
        self, name: Arg, *, count: int | None = None, withvalues: bool = False, timeout: Timeout = UNSET,
    ) -> Any:
        """HRANDFIELD: Get one or multiple random fields from a hash (Redis 6.2.0)."""
        try:
            words: builtins.list[Arg] = ["HRANDFIELD"]
            words.append(name)
            if count is not None:
                words.append(count)
                if withvalues:
                    words.append("WITHVALUES")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("hrandfield", ("name", name, "arg"), ("count", count, "arg")) from None
        request: Request[Any] = _request(Request, ("HRANDFIELD", command, self._value, True, 1, _UNARY))
        return self.request(request, timeout)

    def hscan(
        self, name: Arg, cursor: int, *, match: Arg | None = None, count: int | None = None,
        timeout: Timeout = UNSET,
    ) -> builtins.list[Any]:
        """HSCAN: Incrementally iterate hash fields and associated values (Redis 2.8.0)."""
        try:
            words: builtins.list[Arg] = ["HSCAN"]
            words.append(name)
            words.append(cursor)
            if match is not None:
                words += ("MATCH", match)
            if count is not None:
                words += ("COUNT", count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "hscan",
                ("name", name, "arg"),
                ("cursor", cursor, "arg"),
                ("match", match, "arg"),
                ("count", count, "arg"),
            ) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("HSCAN", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def hset(
        self, name: Arg, key: Arg | None = None, value: Arg | None = None, *,
        mapping: Mapping[Arg, Arg] | None = None, timeout: Timeout = UNSET,
    ) -> int:
        """HSET: Set the string value of a hash field (Redis 2.0.0)."""
        if (key is None) != (value is None) or (key is None and not mapping):
            raise TypeError("hset() needs key and value, or mapping")
        try:
            words: builtins.list[Arg] = ["HSET"]
            words.append(name)
            if key is not None and value is not None:
                words += (key, value)
            if mapping:
                for pair_key, pair_value in mapping.items():
                    words += (pair_key, pair_value)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "hset",
                ("name", name, "arg"),
                ("key", key, "arg"),
                ("value", value, "arg"),
                ("mapping", mapping, "pairs"),
            ) from None
        request: Request[int] = _request(Request, ("HSET", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def hsetnx(self, name: Arg, field: Arg, value: Arg, *, timeout: Timeout = UNSET) -> bool:
        """HSETNX: Set the value of a hash field, only if the field does not exist (Redis 2.0.0)."""
        try:
            command = encode_command("HSETNX", name, field, value)
        except TypeError:
            raise _wrong(
                "hsetnx",
                ("name", name, "arg"),
                ("field", field, "arg"),
                ("value", value, "arg"),
            ) from None
        request: Request[bool] = _request(Request, ("HSETNX", command, self._flag, False, 1, _UNARY))
        return self.request(request, timeout)

    def hstrlen(self, name: Arg, field: Arg, *, timeout: Timeout = UNSET) -> int:
        """HSTRLEN: Get the length of the value of a hash field (Redis 3.2.0)."""
        try:
            command = encode_command("HSTRLEN", name, field)
        except TypeError:
            raise _wrong("hstrlen", ("name", name, "arg"), ("field", field, "arg")) from None
        request: Request[int] = _request(Request, ("HSTRLEN", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def hvals(self, name: Arg, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """HVALS: Get all the values in a hash (Redis 2.0.0)."""
        try:
            command = encode_command("HVALS", name)
        except TypeError:
            raise _wrong("hvals", ("name", name, "arg")) from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("HVALS", command, self._value, True, 1, _UNARY),
        )
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def incr(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """INCR: Increment the integer value of a key by one (Redis 1.0.0)."""
        try:
            command = encode_command("INCR", name)
        except TypeError:
            raise _wrong("incr", ("name", name, "arg")) from None
        request: Request[int] = _request(Request, ("INCR", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def incrby(self, name: Arg, increment: int, *, timeout: Timeout = UNSET) -> int:
        """INCRBY: Increment the integer value of a key by the given amount (Redis 1.0.0)."""
        try:
            command = encode_command("INCRBY", name, increment)
        except TypeError:
            raise _wrong("incrby", ("name", name, "arg"), ("increment", increment, "arg")) from None
        request: Request[int] = _request(Request, ("INCRBY", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def incrbyfloat(self, name: Arg, increment: float, *, timeout: Timeout = UNSET) -> float:
        """INCRBYFLOAT: Increment the float value of a key by the given amount (Redis 2.6.0)."""
        try:
            command = encode_command("INCRBYFLOAT", name, increment)
        except TypeError:
            raise _wrong("incrbyfloat", ("name", name, "arg"), ("increment", increment, "arg")) from None
        request: Request[float] = _request(Request, ("INCRBYFLOAT", command, self._number, False, 1, _UNARY))
        return self.request(request, timeout)

    def info(self, *sections: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> builtins.dict[str, Any]:
        """INFO: Get information and statistics about the server (Redis 1.0.0)."""
        try:
            words: builtins.list[Arg] = ["INFO"]
            words += _flat(sections)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("info", ("sections", sections, "flat")) from None
        request: Request[builtins.dict[str, Any]] = _request(
            Request,
            ("INFO", command, self._info, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def keys(self, pattern: Arg, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """KEYS: Find all keys matching the given pattern (Redis 1.0.0)."""
        try:
            command = encode_command("KEYS", pattern)
        except TypeError:
            raise _wrong("keys", ("pattern", pattern, "arg")) from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("KEYS", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def lastsave(self, *, timeout: Timeout = UNSET) -> int:
        """LASTSAVE: Get the UNIX time stamp of the last successful save to disk (Redis 1.0.0)."""
        try:
            command = encode_command("LASTSAVE")
        except TypeError:
            raise _wrong("lastsave") from None
        request: Request[int] = _request(Request, ("LASTSAVE", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def latency_doctor(self, *, timeout: Timeout = UNSET) -> S:
        """LATENCY DOCTOR: Return a human readable latency analysis report (Redis 2.8.13)."""
        try:
            command = encode_command("LATENCY", "DOCTOR")
        except TypeError:
            raise _wrong("latency_doctor") from None
        request: Request[S] = _request(Request, ("LATENCY DOCTOR", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def latency_graph(self, event: Arg, *, timeout: Timeout = UNSET) -> S:
        """LATENCY GRAPH: Return a latency graph for the event (Redis 2.8.13)."""
        try:
            command = encode_command("LATENCY", "GRAPH", event)
        except TypeError:
            raise _wrong("latency_graph", ("event", event, "arg")) from None
        request: Request[S] = _request(Request, ("LATENCY GRAPH", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def latency_help(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """LATENCY HELP: Show helpful text about the different subcommands (Redis 2.8.13)."""
        try:
            command = encode_command("LATENCY", "HELP")
        except TypeError:
            raise _wrong("latency_help") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("LATENCY HELP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def latency_histogram(
        self, *commands: Arg | Sequence[Arg], timeout: Timeout = UNSET,
    ) -> builtins.dict[S, Any]:
        """LATENCY HISTOGRAM: Return the cumulative distribution of latencies of a subset of commands or
        all (Redis 7.0.0).
        """
        try:
            words: builtins.list[Arg] = ["LATENCY", "HISTOGRAM"]
            words += _flat(commands)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("latency_histogram", ("commands", commands, "flat")) from None
        request: Request[builtins.dict[S, Any]] = _request(
            Request,
            ("LATENCY HISTOGRAM", command, self._mapping, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def latency_history(
        self, event: Arg, *, timeout: Timeout = UNSET,
    ) -> builtins.list[builtins.list[Any]]:
        """LATENCY HISTORY: Return timestamp-latency samples for the event (Redis 2.8.13)."""
        try:
            command = encode_command("LATENCY", "HISTORY", event)
        except TypeError:
            raise _wrong("latency_history", ("event", event, "arg")) from None
        request: Request[builtins.list[builtins.list[Any]]] = _request(
            Request,
            ("LATENCY HISTORY", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def latency_latest(self, *, timeout: Timeout = UNSET) -> builtins.list[builtins.list[Any]]:
        """LATENCY LATEST: Return the latest latency samples for all events (Redis 2.8.13)."""
        try:
            command = encode_command("LATENCY", "LATEST")
        except TypeError:
            raise _wrong("latency_latest") from None
        request: Request[builtins.list[builtins.list[Any]]] = _request(
            Request,
            ("LATENCY LATEST", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def latency_reset(self, *events: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """LATENCY RESET: Reset latency data for one or more events (Redis 2.8.13)."""
        try:
            words: builtins.list[Arg] = ["LATENCY", "RESET"]
            words += _flat(events)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("latency_reset", ("events", events, "flat")) from None
        request: Request[int] = _request(Request, ("LATENCY RESET", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def lcs(
        self, key1: Arg, key2: Arg, *, len: bool = False, idx: bool = False,
        minmatchlen: int | None = None, withmatchlen: bool = False, timeout: Timeout = UNSET,
    ) -> S | int | builtins.dict[S, Any]:
        """LCS: Find longest common substring (Redis 7.0.0)."""
        try:
            words: builtins.list[Arg] = ["LCS"]
            words.append(key1)
            words.append(key2)
            if len:
                words.append("LEN")
            if idx:
                words.append("IDX")
            if minmatchlen is not None:
                words += ("MINMATCHLEN", minmatchlen)
            if withmatchlen:
                words.append("WITHMATCHLEN")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "lcs",
                ("key1", key1, "arg"),
                ("key2", key2, "arg"),
                ("minmatchlen", minmatchlen, "arg"),
            ) from None
        request: Request[S | int | builtins.dict[S, Any]] = _request(
            Request,
            ("LCS", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def lindex(self, name: Arg, index: int, *, timeout: Timeout = UNSET) -> S | None:
        """LINDEX: Get an element from a list by its index (Redis 1.0.0)."""
        try:
            command = encode_command("LINDEX", name, index)
        except TypeError:
            raise _wrong("lindex", ("name", name, "arg"), ("index", index, "arg")) from None
        request: Request[S | None] = _request(Request, ("LINDEX", command, self._string, True, 1, _UNARY))
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def linsert(
        self, name: Arg, where: Literal["BEFORE", "AFTER"], pivot: Arg, element: Arg, *,
        timeout: Timeout = UNSET,
    ) -> int:
        """LINSERT: Insert an element before or after another element in a list (Redis 2.2.0)."""
        try:
            command = encode_command("LINSERT", name, where, pivot, element)
        except TypeError:
            raise _wrong(
                "linsert",
                ("name", name, "arg"),
                ("where", where, "arg"),
                ("pivot", pivot, "arg"),
                ("element", element, "arg"),
            ) from None
        request: Request[int] = _request(Request, ("LINSERT", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def llen(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """LLEN: Get the length of a list (Redis 1.0.0)."""
        try:
            command = encode_command("LLEN", name)
        except TypeError:
            raise _wrong("llen", ("name", name, "arg")) from None
        request: Request[int] = _request(Request, ("LLEN", command, self._integer, True, 1, _UNARY))
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def lmove(
        self, source: Arg, destination: Arg, wherefrom: Literal["LEFT", "RIGHT"],
        whereto: Literal["LEFT", "RIGHT"], *, timeout: Timeout = UNSET,
    ) -> S:
        """LMOVE: Pop an element from a list, push it to another list and return it (Redis 6.2.0)."""
        try:
            command = encode_command("LMOVE", source, destination, wherefrom, whereto)
        except TypeError:
            raise _wrong(
                "lmove",
                ("source", source, "arg"),
                ("destination", destination, "arg"),
                ("wherefrom", wherefrom, "arg"),
                ("whereto", whereto, "arg"),
            ) from None
        request: Request[S] = _request(Request, ("LMOVE", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def lmpop(
        self, keys: Arg | Sequence[Arg], where: Literal["LEFT", "RIGHT"], *, count: int | None = None,
        timeout: Timeout = UNSET,
    ) -> builtins.list[Any] | None:
        """LMPOP: Pop elements from a list (Redis 7.0.0)."""
        try:
            words: builtins.list[Arg] = ["LMPOP"]
            words.append(len(_many(keys)))
            words += _many(keys)
            words.append(where)
            if count is not None:
                words += ("COUNT", count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "lmpop",
                ("keys", keys, "many"),
                ("where", where, "arg"),
                ("count", count, "arg"),
            ) from None
        request: Request[builtins.list[Any] | None] = _request(
            Request,
            ("LMPOP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def lolwut(self, *, version: int | None = None, timeout: Timeout = UNSET) -> S:
        """LOLWUT: Display some computer art and the Redis version (Redis 5.0.0)."""
        try:
            words: builtins.list[Arg] = ["LOLWUT"]
            if version is not None:
                words += ("VERSION", version)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("lolwut", ("version", version, "arg")) from None
        request: Request[S] = _request(Request, ("LOLWUT", command, self._string, True, 1, _UNARY))
        return self.request(request, timeout)

    def lpop(
        self, name: Arg, count: int | None = None, *, timeout: Timeout = UNSET,
    ) -> S | builtins.list[S] | None:
        """LPOP: Remove and get the first elements in a list (Redis 1.0.0)."""
        try:
            words: builtins.list[Arg] = ["LPOP"]
            words.append(name)
            if count is not None:
                words.append(count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("lpop", ("name", name, "arg"), ("count", count, "arg")) from None
        request: Request[S | builtins.list[S] | None] = _request(
            Request,
            ("LPOP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def lpos(
        self, name: Arg, element: Arg, *, rank: int | None = None, count: int | None = None,
        maxlen: int | None = None, timeout: Timeout = UNSET,
    ) -> int | builtins.list[int] | None:
        """LPOS: Return the index of matching elements on a list (Redis 6.0.6)."""
        try:
            words: builtins.list[Arg] = ["LPOS"]
            words.append(name)
            words.append(element)
            if rank is not None:
                words += ("RANK", rank)
            if count is not None:
                words += ("COUNT", count)
            if maxlen is not None:
                words += ("MAXLEN", maxlen)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "lpos",
                ("name", name, "arg"),
                ("element", element, "arg"),
                ("rank", rank, "arg"),
                ("count", count, "arg"),
                ("maxlen", maxlen, "arg"),
            ) from None
        request: Request[int | builtins.list[int] | None] = _request(
            Request,
            ("LPOS", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def lpush(self, name: Arg, *elements: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """LPUSH: Prepend one or multiple elements to a list (Redis 1.0.0)."""
        if not elements:
            raise TypeError("lpush() needs at least one element")
        try:
            words: builtins.list[Arg] = ["LPUSH"]
            words.append(name)
            words += _flat(elements)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("lpush", ("name", name, "arg"), ("elements", elements, "flat")) from None
        request: Request[int] = _request(Request, ("LPUSH", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def lpushx(self, name: Arg, *elements: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """LPUSHX: Prepend an element to a list, only if the list exists (Redis 2.2.0)."""
        if not elements:
            raise TypeError("lpushx() needs at least one element")
        try:
            words: builtins.list[Arg] = ["LPUSHX"]
            words.append(name)
            words += _flat(elements)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("lpushx", ("name", name, "arg"), ("elements", elements, "flat")) from None
        request: Request[int] = _request(Request, ("LPUSHX", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def lrange(self, name: Arg, start: int, stop: int, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """LRANGE: Get a range of elements from a list (Redis 1.0.0)."""
        try:
            command = encode_command("LRANGE", name, start, stop)
        except TypeError:
            raise _wrong(
                "lrange",
                ("name", name, "arg"),
                ("start", start, "arg"),
                ("stop", stop, "arg"),
            ) from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("LRANGE", command, self._value, True, 1, _UNARY),
        )
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def lrem(self, name: Arg, count: int, element: Arg, *, timeout: Timeout = UNSET) -> int:
        """LREM: Remove elements from a list (Redis 1.0.0)."""
        try:
            command = encode_command("LREM", name, count, element)
        except TypeError:
            raise _wrong(
                "lrem",
                ("name", name, "arg"),
                ("count", count, "arg"),
                ("element", element, "arg"),
            ) from None
        request: Request[int] = _request(Request, ("LREM", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def lset(self, name: Arg, index: int, element: Arg, *, timeout: Timeout = UNSET) -> bool:
        """LSET: Set the value of an element in a list by its index (Redis 1.0.0)."""
        try:
            command = encode_command("LSET", name, index, element)
        except TypeError:
            raise _wrong(
                "lset",
                ("name", name, "arg"),
                ("index", index, "arg"),
                ("element", element, "arg"),
            ) from None
        request: Request[bool] = _request(Request, ("LSET", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def ltrim(self, name: Arg, start: int, stop: int, *, timeout: Timeout = UNSET) -> bool:
        """LTRIM: Trim a list to the specified range (Redis 1.0.0)."""
        try:
            command = encode_command("LTRIM", name, start, stop)
        except TypeError:
            raise _wrong(
                "ltrim",
                ("name", name, "arg"),
                ("start", start, "arg"),
                ("stop", stop, "arg"),
            ) from None
        request: Request[bool] = _request(Request, ("LTRIM", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def memory_doctor(self, *, timeout: Timeout = UNSET) -> S:
        """MEMORY DOCTOR: Outputs memory problems report (Redis 4.0.0)."""
        try:
            command = encode_command("MEMORY", "DOCTOR")
        except TypeError:
            raise _wrong("memory_doctor") from None
        request: Request[S] = _request(Request, ("MEMORY DOCTOR", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def memory_help(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """MEMORY HELP: Show helpful text about the different subcommands (Redis 4.0.0)."""
        try:
            command = encode_command("MEMORY", "HELP")
        except TypeError:
            raise _wrong("memory_help") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("MEMORY HELP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def memory_malloc_stats(self, *, timeout: Timeout = UNSET) -> S:
        """MEMORY MALLOC-STATS: Show allocator internal stats (Redis 4.0.0)."""
        try:
            command = encode_command("MEMORY", "MALLOC-STATS")
        except TypeError:
            raise _wrong("memory_malloc_stats") from None
        request: Request[S] = _request(
            Request,
            ("MEMORY MALLOC-STATS", command, self._string, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def memory_purge(self, *, timeout: Timeout = UNSET) -> bool:
        """MEMORY PURGE: Ask the allocator to release memory (Redis 4.0.0)."""
        try:
            command = encode_command("MEMORY", "PURGE")
        except TypeError:
            raise _wrong("memory_purge") from None
        request: Request[bool] = _request(Request, ("MEMORY PURGE", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def memory_stats(self, *, timeout: Timeout = UNSET) -> builtins.dict[S, Any]:
        """MEMORY STATS: Show memory usage details (Redis 4.0.0)."""
        try:
            command = encode_command("MEMORY", "STATS")
        except TypeError:
            raise _wrong("memory_stats") from None
        request: Request[builtins.dict[S, Any]] = _request(
            Request,
            ("MEMORY STATS", command, self._mapping, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def memory_usage(
        self, name: Arg, *, samples: int | None = None, timeout: Timeout = UNSET,
    ) -> int | None:
        """MEMORY USAGE: Estimate the memory usage of a key (Redis 4.0.0)."""
        try:
            words: builtins.list[Arg] = ["MEMORY", "USAGE"]
            words.append(name)
            if samples is not None:
                words += ("SAMPLES", samples)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("memory_usage", ("name", name, "arg"), ("samples", samples, "arg")) from None
        request: Request[int | None] = _request(
            Request,
            ("MEMORY USAGE", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def mget(self, *keys: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> builtins.list[S | None]:
        """MGET: Get the values of all the given keys (Redis 1.0.0)."""
        if not keys:
            raise TypeError("mget() needs at least one key")
        try:
            words: builtins.list[Arg] = ["MGET"]
            words += _flat(keys)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("mget", ("keys", keys, "flat")) from None
        request: Request[builtins.list[S | None]] = _request(
            Request,
            ("MGET", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def migrate(
        self, host: Arg, port: int, key_or_empty_string: Arg, destination_db: int, server_timeout: int,
        *options: Arg, copy: bool = False, replace: bool = False, timeout: Timeout = UNSET,
    ) -> bool | S:
        """MIGRATE: Atomically transfer a key from a Redis instance to another one (Redis 2.6.0). The
        arguments after the typed ones are given as Redis spells them.
        """
        try:
            words: builtins.list[Arg] = ["MIGRATE"]
            words.append(host)
            words.append(port)
            words.append(key_or_empty_string)
            words.append(destination_db)
            words.append(server_timeout)
            if copy:
                words.append("COPY")
            if replace:
                words.append("REPLACE")
            words += options
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "migrate",
                ("host", host, "arg"),
                ("port", port, "arg"),
                ("key_or_empty_string", key_or_empty_string, "arg"),
                ("destination_db", destination_db, "arg"),
                ("server_timeout", server_timeout, "arg"),
                ("options", options, "many"),
            ) from None
        request: Request[bool | S] = _request(Request, ("MIGRATE", command, self._value, False, 1, _UNARY))
        return self.request(request, timeout)

    def module_help(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """MODULE HELP: Show helpful text about the different subcommands (Redis 5.0.0)."""
        try:
            command = encode_command("MODULE", "HELP")
        except TypeError:
            raise _wrong("module_help") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("MODULE HELP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def module_list(self, *, timeout: Timeout = UNSET) -> builtins.list[builtins.dict[S, Any]]:
        """MODULE LIST: List all modules loaded by the server (Redis 4.0.0)."""
        try:
            command = encode_command("MODULE", "LIST")
        except TypeError:
            raise _wrong("module_list") from None
        request: Request[builtins.list[builtins.dict[S, Any]]] = _request(
            Request,
            ("MODULE LIST", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def module_load(self, path: Arg, *args: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> bool:
        """MODULE LOAD: Load a module (Redis 4.0.0)."""
        try:
            words: builtins.list[Arg] = ["MODULE", "LOAD"]
            words.append(path)
            words += _flat(args)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("module_load", ("path", path, "arg"), ("args", args, "flat")) from None
        request: Request[bool] = _request(Request, ("MODULE LOAD", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def module_loadex(self, path: Arg, *options: Arg, timeout: Timeout = UNSET) -> bool:
        """MODULE LOADEX: Load a module with extended parameters (Redis 7.0.0). The arguments after the
        typed ones are given as Redis spells them.
        """
        try:
            words: builtins.list[Arg] = ["MODULE", "LOADEX"]
            words.append(path)
            words += options
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("module_loadex", ("path", path, "arg"), ("options", options, "many")) from None
        request: Request[bool] = _request(Request, ("MODULE LOADEX", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def module_unload(self, name: Arg, *, timeout: Timeout = UNSET) -> bool:
        """MODULE UNLOAD: Unload a module (Redis 4.0.0)."""
        try:
            command = encode_command("MODULE", "UNLOAD", name)
        except TypeError:
            raise _wrong("module_unload", ("name", name, "arg")) from None
        request: Request[bool] = _request(Request, ("MODULE UNLOAD", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def move(self, name: Arg, db: int, *, timeout: Timeout = UNSET) -> bool:
        """MOVE: Move a key to another database (Redis 1.0.0)."""
        try:
            command = encode_command("MOVE", name, db)
        except TypeError:
            raise _wrong("move", ("name", name, "arg"), ("db", db, "arg")) from None
        request: Request[bool] = _request(Request, ("MOVE", command, self._flag, False, 1, _UNARY))
        return self.request(request, timeout)

    def mset(self, mapping: Mapping[Arg, Arg], *, timeout: Timeout = UNSET) -> bool:
        """MSET: Set multiple keys to multiple values (Redis 1.0.1)."""
        if not mapping:
            raise TypeError("mset() needs at least one pair in mapping")
        try:
            words: builtins.list[Arg] = ["MSET"]
            for pair_key, pair_value in mapping.items():
                words += (pair_key, pair_value)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("mset", ("mapping", mapping, "pairs")) from None
        request: Request[bool] = _request(Request, ("MSET", command, self._okay, True, 1, _UNARY))
        return self.request(request, timeout)

    def msetnx(self, mapping: Mapping[Arg, Arg], *, timeout: Timeout = UNSET) -> bool:
        """MSETNX: Set multiple keys to multiple values, only if none of the keys exist (Redis 1.0.1)."""
        if not mapping:
            raise TypeError("msetnx() needs at least one pair in mapping")
        try:
            words: builtins.list[Arg] = ["MSETNX"]
            for pair_key, pair_value in mapping.items():
                words += (pair_key, pair_value)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("msetnx", ("mapping", mapping, "pairs")) from None
        request: Request[bool] = _request(Request, ("MSETNX", command, self._flag, True, 1, _UNARY))
        return self.request(request, timeout)

    def object_encoding(self, name: Arg, *, timeout: Timeout = UNSET) -> S | None:
        """OBJECT ENCODING: Inspect the internal encoding of a Redis object (Redis 2.2.3)."""
        try:
            command = encode_command("OBJECT", "ENCODING", name)
        except TypeError:
            raise _wrong("object_encoding", ("name", name, "arg")) from None
        request: Request[S | None] = _request(
            Request,
            ("OBJECT ENCODING", command, self._string, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def object_freq(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """OBJECT FREQ: Get the logarithmic access frequency counter of a Redis object (Redis 4.0.0)."""
        try:
            command = encode_command("OBJECT", "FREQ", name)
        except TypeError:
            raise _wrong("object_freq", ("name", name, "arg")) from None
        request: Request[int] = _request(Request, ("OBJECT FREQ", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def object_help(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """OBJECT HELP: Show helpful text about the different subcommands (Redis 6.2.0)."""
        try:
            command = encode_command("OBJECT", "HELP")
        except TypeError:
            raise _wrong("object_help") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("OBJECT HELP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def object_idletime(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """OBJECT IDLETIME: Get the time since a Redis object was last accessed (Redis 2.2.3)."""
        try:
            command = encode_command("OBJECT", "IDLETIME", name)
        except TypeError:
            raise _wrong("object_idletime", ("name", name, "arg")) from None
        request: Request[int] = _request(
            Request,
            ("OBJECT IDLETIME", command, self._integer, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def object_refcount(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """OBJECT REFCOUNT: Get the number of references to the value of the key (Redis 2.2.3)."""
        try:
            command = encode_command("OBJECT", "REFCOUNT", name)
        except TypeError:
            raise _wrong("object_refcount", ("name", name, "arg")) from None
        request: Request[int] = _request(
            Request,
            ("OBJECT REFCOUNT", command, self._integer, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def persist(self, name: Arg, *, timeout: Timeout = UNSET) -> bool:
        """PERSIST: Remove the expiration from a key (Redis 2.2.0)."""
        try:
            command = encode_command("PERSIST", name)
        except TypeError:
            raise _wrong("persist", ("name", name, "arg")) from None
        request: Request[bool] = _request(Request, ("PERSIST", command, self._flag, False, 1, _UNARY))
        return self.request(request, timeout)

    def pexpire(
        self, name: Arg, time: int | timedelta, *, nx: bool = False, xx: bool = False, gt: bool = False,
        lt: bool = False, timeout: Timeout = UNSET,
    ) -> bool:
        """PEXPIRE: Set a key's time to live in milliseconds (Redis 2.6.0)."""
        _one_of("pexpire", ("nx", nx), ("xx", xx), ("gt", gt), ("lt", lt))
        try:
            words: builtins.list[Arg] = ["PEXPIRE"]
            words.append(name)
            words.append(_milliseconds(time))
            if nx:
                words.append("NX")
            if xx:
                words.append("XX")
            if gt:
                words.append("GT")
            if lt:
                words.append("LT")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("pexpire", ("name", name, "arg"), ("time", time, "duration")) from None
        request: Request[bool] = _request(Request, ("PEXPIRE", command, self._flag, False, 1, _UNARY))
        return self.request(request, timeout)

    def pexpireat(
        self, name: Arg, unix_time_milliseconds: int, *, nx: bool = False, xx: bool = False,
        gt: bool = False, lt: bool = False, timeout: Timeout = UNSET,
    ) -> bool:
        """PEXPIREAT: Set the expiration for a key as a UNIX timestamp specified in milliseconds (Redis
        2.6.0).
        """
        _one_of("pexpireat", ("nx", nx), ("xx", xx), ("gt", gt), ("lt", lt))
        try:
            words: builtins.list[Arg] = ["PEXPIREAT"]
            words.append(name)
            words.append(unix_time_milliseconds)
            if nx:
                words.append("NX")
            if xx:
                words.append("XX")
            if gt:
                words.append("GT")
            if lt:
                words.append("LT")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "pexpireat",
                ("name", name, "arg"),
                ("unix_time_milliseconds", unix_time_milliseconds, "arg"),
            ) from None
        request: Request[bool] = _request(Request, ("PEXPIREAT", command, self._flag, False, 1, _UNARY))
        return self.request(request, timeout)

    def pexpiretime(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """PEXPIRETIME: Get the expiration Unix timestamp for a key in milliseconds (Redis 7.0.0)."""
        try:
            command = encode_command("PEXPIRETIME", name)
        except TypeError:
            raise _wrong("pexpiretime", ("name", name, "arg")) from None
        request: Request[int] = _request(Request, ("PEXPIRETIME", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def pfadd(self, name: Arg, *elements: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> bool:
        """PFADD: Adds the specified elements to the specified HyperLogLog (Redis 2.8.9)."""
        try:
            words: builtins.list[Arg] = ["PFADD"]
            words.append(name)
            words += _flat(elements)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("pfadd", ("name", name, "arg"), ("elements", elements, "flat")) from None
        request: Request[bool] = _request(Request, ("PFADD", command, self._flag, False, 1, _UNARY))
        return self.request(request, timeout)

    def pfcount(self, *keys: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """PFCOUNT: Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s)
        (Redis 2.8.9).
        """
        if not keys:
            raise TypeError("pfcount() needs at least one key")
        try:
            words: builtins.list[Arg] = ["PFCOUNT"]
            words += _flat(keys)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("pfcount", ("keys", keys, "flat")) from None
        request: Request[int] = _request(Request, ("PFCOUNT", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def pfdebug(self, subcommand: Arg, name: Arg, *, timeout: Timeout = UNSET) -> Any:
        """PFDEBUG: Internal commands for debugging HyperLogLog values (Redis 2.8.9)."""
        try:
            command = encode_command("PFDEBUG", subcommand, name)
        except TypeError:
            raise _wrong("pfdebug", ("subcommand", subcommand, "arg"), ("name", name, "arg")) from None
        request: Request[Any] = _request(Request, ("PFDEBUG", command, self._value, False, 1, _UNARY))
        return self.request(request, timeout)

    def pfmerge(self, destkey: Arg, *sourcekeys: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> bool:
        """PFMERGE: Merge N different HyperLogLogs into a single one (Redis 2.8.9)."""
        if not sourcekeys:
            raise TypeError("pfmerge() needs at least one sourcekey")
        try:
            words: builtins.list[Arg] = ["PFMERGE"]
            words.append(destkey)
            words += _flat(sourcekeys)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("pfmerge", ("destkey", destkey, "arg"), ("sourcekeys", sourcekeys, "flat")) from None
        request: Request[bool] = _request(Request, ("PFMERGE", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def pfselftest(self, *, timeout: Timeout = UNSET) -> bool:
        """PFSELFTEST: An internal command for testing HyperLogLog values (Redis 2.8.9)."""
        try:
            command = encode_command("PFSELFTEST")
        except TypeError:
            raise _wrong("pfselftest") from None
        request: Request[bool] = _request(Request, ("PFSELFTEST", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def psetex(
        self, name: Arg, time_ms: int | timedelta, value: Arg, *, timeout: Timeout = UNSET,
    ) -> bool:
        """PSETEX: Set the value and expiration in milliseconds of a key (Redis 2.6.0)."""
        try:
            command = encode_command("PSETEX", name, _milliseconds(time_ms), value)
        except TypeError:
            raise _wrong(
                "psetex",
                ("name", name, "arg"),
                ("time_ms", time_ms, "duration"),
                ("value", value, "arg"),
            ) from None
        request: Request[bool] = _request(Request, ("PSETEX", command, self._okay, True, 1, _UNARY))
        return self.request(request, timeout)

    def pttl(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """PTTL: Get the time to live for a key in milliseconds (Redis 2.6.0)."""
        try:
            command = encode_command("PTTL", name)
        except TypeError:
            raise _wrong("pttl", ("name", name, "arg")) from None
        request: Request[int] = _request(Request, ("PTTL", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def publish(self, channel: Arg, message: Arg, *, timeout: Timeout = UNSET) -> int:
        """PUBLISH: Post a message to a channel (Redis 2.0.0)."""
        try:
            command = encode_command("PUBLISH", channel, message)
        except TypeError:
            raise _wrong("publish", ("channel", channel, "arg"), ("message", message, "arg")) from None
        request: Request[int] = _request(Request, ("PUBLISH", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def pubsub_channels(
        self, pattern: Arg | None = None, *, timeout: Timeout = UNSET,
    ) -> builtins.list[S]:
        """PUBSUB CHANNELS: List active channels (Redis 2.8.0)."""
        try:
            words: builtins.list[Arg] = ["PUBSUB", "CHANNELS"]
            if pattern is not None:
                words.append(pattern)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("pubsub_channels", ("pattern", pattern, "arg")) from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("PUBSUB CHANNELS", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def pubsub_help(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """PUBSUB HELP: Show helpful text about the different subcommands (Redis 6.2.0)."""
        try:
            command = encode_command("PUBSUB", "HELP")
        except TypeError:
            raise _wrong("pubsub_help") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("PUBSUB HELP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def pubsub_numpat(self, *, timeout: Timeout = UNSET) -> int:
        """PUBSUB NUMPAT: Get the count of unique patterns pattern subscriptions (Redis 2.8.0)."""
        try:
            command = encode_command("PUBSUB", "NUMPAT")
        except TypeError:
            raise _wrong("pubsub_numpat") from None
        request: Request[int] = _request(Request, ("PUBSUB NUMPAT", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def pubsub_numsub(
        self, *channels: Arg | Sequence[Arg], timeout: Timeout = UNSET,
    ) -> builtins.list[Any]:
        """PUBSUB NUMSUB: Get the count of subscribers for channels (Redis 2.8.0)."""
        try:
            words: builtins.list[Arg] = ["PUBSUB", "NUMSUB"]
            words += _flat(channels)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("pubsub_numsub", ("channels", channels, "flat")) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("PUBSUB NUMSUB", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def pubsub_shardchannels(
        self, pattern: Arg | None = None, *, timeout: Timeout = UNSET,
    ) -> builtins.list[S]:
        """PUBSUB SHARDCHANNELS: List active shard channels (Redis 7.0.0)."""
        try:
            words: builtins.list[Arg] = ["PUBSUB", "SHARDCHANNELS"]
            if pattern is not None:
                words.append(pattern)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("pubsub_shardchannels", ("pattern", pattern, "arg")) from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("PUBSUB SHARDCHANNELS", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def pubsub_shardnumsub(
        self, *shardchannels: Arg | Sequence[Arg], timeout: Timeout = UNSET,
    ) -> builtins.list[Any]:
        """PUBSUB SHARDNUMSUB: Get the count of subscribers for shard channels (Redis 7.0.0)."""
        try:
            words: builtins.list[Arg] = ["PUBSUB", "SHARDNUMSUB"]
            words += _flat(shardchannels)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("pubsub_shardnumsub", ("shardchannels", shardchannels, "flat")) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("PUBSUB SHARDNUMSUB", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def randomkey(self, *, timeout: Timeout = UNSET) -> S | None:
        """RANDOMKEY: Return a random key from the keyspace (Redis 1.0.0)."""
        try:
            command = encode_command("RANDOMKEY")
        except TypeError:
            raise _wrong("randomkey") from None
        request: Request[S | None] = _request(Request, ("RANDOMKEY", command, self._string, True, 1, _UNARY))
        return self.request(request, timeout)

    def rename(self, name: Arg, newkey: Arg, *, timeout: Timeout = UNSET) -> bool:
        """RENAME: Rename a key (Redis 1.0.0)."""
        try:
            command = encode_command("RENAME", name, newkey)
        except TypeError:
            raise _wrong("rename", ("name", name, "arg"), ("newkey", newkey, "arg")) from None
        request: Request[bool] = _request(Request, ("RENAME", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def renamenx(self, name: Arg, newkey: Arg, *, timeout: Timeout = UNSET) -> bool:
        """RENAMENX: Rename a key, only if the new key does not exist (Redis 1.0.0)."""
        try:
            command = encode_command("RENAMENX", name, newkey)
        except TypeError:
            raise _wrong("renamenx", ("name", name, "arg"), ("newkey", newkey, "arg")) from None
        request: Request[bool] = _request(Request, ("RENAMENX", command, self._flag, False, 1, _UNARY))
        return self.request(request, timeout)

    def replicaof(self, *options: Arg, timeout: Timeout = UNSET) -> S:
        """REPLICAOF: Make the server a replica of another instance, or promote it as master (Redis 5.0.0).
        The arguments after the typed ones are given as Redis spells them.
        """
        try:
            words: builtins.list[Arg] = ["REPLICAOF"]
            words += options
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("replicaof", ("options", options, "many")) from None
        request: Request[S] = _request(Request, ("REPLICAOF", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def restore(
        self, name: Arg, ttl: int, serialized_value: Arg, *, replace: bool = False, absttl: bool = False,
        idletime: int | timedelta | None = None, freq: int | None = None, timeout: Timeout = UNSET,
    ) -> bool:
        """RESTORE: Create a key using the provided serialized value, previously obtained using DUMP (Redis
        2.6.0).
        """
        try:
            words: builtins.list[Arg] = ["RESTORE"]
            words.append(name)
            words.append(ttl)
            words.append(serialized_value)
            if replace:
                words.append("REPLACE")
            if absttl:
                words.append("ABSTTL")
            if idletime is not None:
                words += ("IDLETIME", _seconds(idletime))
            if freq is not None:
                words += ("FREQ", freq)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "restore",
                ("name", name, "arg"),
                ("ttl", ttl, "arg"),
                ("serialized_value", serialized_value, "arg"),
                ("idletime", idletime, "duration"),
                ("freq", freq, "arg"),
            ) from None
        request: Request[bool] = _request(Request, ("RESTORE", command, self._okay, True, 1, _UNARY))
        return self.request(request, timeout)

    def restore_asking(
        self, name: Arg, ttl: int, serialized_value: Arg, *, replace: bool = False, absttl: bool = False,
        idletime: int | timedelta | None = None, freq: int | None = None, timeout: Timeout = UNSET,
    ) -> bool:
        """RESTORE-ASKING: An internal command for migrating keys in a cluster (Redis 3.0.0)."""
        try:
            words: builtins.list[Arg] = ["RESTORE-ASKING"]
            words.append(name)
            words.append(ttl)
            words.append(serialized_value)
            if replace:
                words.append("REPLACE")
            if absttl:
                words.append("ABSTTL")
            if idletime is not None:
                words += ("IDLETIME", _seconds(idletime))
            if freq is not None:
                words += ("FREQ", freq)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "restore_asking",
                ("name", name, "arg"),
                ("ttl", ttl, "arg"),
                ("serialized_value", serialized_value, "arg"),
                ("idletime", idletime, "duration"),
                ("freq", freq, "arg"),
            ) from None
        request: Request[bool] = _request(Request, ("RESTORE-ASKING", command, self._okay, True, 1, _UNARY))
        return self.request(request, timeout)

    def role(self, *, timeout: Timeout = UNSET) -> builtins.list[Any]:
        """ROLE: Return the role of the instance in the context of replication (Redis 2.8.12)."""
        try:
            command = encode_command("ROLE")
        except TypeError:
            raise _wrong("role") from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("ROLE", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def rpop(
        self, name: Arg, count: int | None = None, *, timeout: Timeout = UNSET,
    ) -> S | builtins.list[S] | None:
        """RPOP: Remove and get the last elements in a list (Redis 1.0.0)."""
        try:
            words: builtins.list[Arg] = ["RPOP"]
            words.append(name)
            if count is not None:
                words.append(count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("rpop", ("name", name, "arg"), ("count", count, "arg")) from None
        request: Request[S | builtins.list[S] | None] = _request(
            Request,
            ("RPOP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def rpoplpush(self, source: Arg, destination: Arg, *, timeout: Timeout = UNSET) -> S | None:
        """RPOPLPUSH: Remove the last element in a list, prepend it to another list and return it (Redis
        1.2.0). Deprecated since Redis 6.2.0: `LMOVE` with the `RIGHT` and `LEFT` arguments.
        """
        try:
            command = encode_command("RPOPLPUSH", source, destination)
        except TypeError:
            raise _wrong(
                "rpoplpush",
                ("source", source, "arg"),
                ("destination", destination, "arg"),
            ) from None
        request: Request[S | None] = _request(Request, ("RPOPLPUSH", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def rpush(self, name: Arg, *elements: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """RPUSH: Append one or multiple elements to a list (Redis 1.0.0)."""
        if not elements:
            raise TypeError("rpush() needs at least one element")
        try:
            words: builtins.list[Arg] = ["RPUSH"]
            words.append(name)
            words += _flat(elements)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("rpush", ("name", name, "arg"), ("elements", elements, "flat")) from None
        request: Request[int] = _request(Request, ("RPUSH", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def rpushx(self, name: Arg, *elements: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """RPUSHX: Append an element to a list, only if the list exists (Redis 2.2.0)."""
        if not elements:
            raise TypeError("rpushx() needs at least one element")
        try:
            words: builtins.list[Arg] = ["RPUSHX"]
            words.append(name)
            words += _flat(elements)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("rpushx", ("name", name, "arg"), ("elements", elements, "flat")) from None
        request: Request[int] = _request(Request, ("RPUSHX", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def sadd(self, name: Arg, *members: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """SADD: Add one or more members to a set (Redis 1.0.0)."""
        if not members:
            raise TypeError("sadd() needs at least one member")
        try:
            words: builtins.list[Arg] = ["SADD"]
            words.append(name)
            words += _flat(members)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("sadd", ("name", name, "arg"), ("members", members, "flat")) from None
        request: Request[int] = _request(Request, ("SADD", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def save(self, *, timeout: Timeout = UNSET) -> bool:
        """SAVE: Synchronously save the dataset to disk (Redis 1.0.0)."""
        try:
            command = encode_command("SAVE")
        except TypeError:
            raise _wrong("save") from None
        request: Request[bool] = _request(Request, ("SAVE", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def scan(
        self, cursor: int, *, match: Arg | None = None, count: int | None = None, _type: Arg | None = None,
        timeout: Timeout = UNSET,
    ) -> builtins.list[Any]:
        """SCAN: Incrementally iterate the keys space (Redis 2.8.0)."""
        try:
            words: builtins.list[Arg] = ["SCAN"]
            words.append(cursor)
            if match is not None:
                words += ("MATCH", match)
            if count is not None:
                words += ("COUNT", count)
            if _type is not None:
                words += ("TYPE", _type)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "scan",
                ("cursor", cursor, "arg"),
                ("match", match, "arg"),
                ("count", count, "arg"),
                ("_type", _type, "arg"),
            ) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("SCAN", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def scard(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """SCARD: Get the number of members in a set (Redis 1.0.0)."""
        try:
            command = encode_command("SCARD", name)
        except TypeError:
            raise _wrong("scard", ("name", name, "arg")) from None
        request: Request[int] = _request(Request, ("SCARD", command, self._integer, True, 1, _UNARY))
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def script_debug(self, mode: Literal["YES", "SYNC", "NO"], *, timeout: Timeout = UNSET) -> bool:
        """SCRIPT DEBUG: Set the debug mode for executed scripts (Redis 3.2.0)."""
        try:
            command = encode_command("SCRIPT", "DEBUG", mode)
        except TypeError:
            raise _wrong("script_debug", ("mode", mode, "arg")) from None
        request: Request[bool] = _request(Request, ("SCRIPT DEBUG", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def script_exists(
        self, *sha1s: Arg | Sequence[Arg], timeout: Timeout = UNSET,
    ) -> builtins.list[int]:
        """SCRIPT EXISTS: Check existence of scripts in the script cache (Redis 2.6.0)."""
        if not sha1s:
            raise TypeError("script_exists() needs at least one sha1")
        try:
            words: builtins.list[Arg] = ["SCRIPT", "EXISTS"]
            words += _flat(sha1s)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("script_exists", ("sha1s", sha1s, "flat")) from None
        request: Request[builtins.list[int]] = _request(
            Request,
            ("SCRIPT EXISTS", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def script_flush(
        self, *, async_: bool = False, sync: bool = False, timeout: Timeout = UNSET,
    ) -> bool:
        """SCRIPT FLUSH: Remove all the scripts from the script cache (Redis 2.6.0)."""
        _one_of("script_flush", ("async_", async_), ("sync", sync))
        try:
            words: builtins.list[Arg] = ["SCRIPT", "FLUSH"]
            if async_:
                words.append("ASYNC")
            if sync:
                words.append("SYNC")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("script_flush") from None
        request: Request[bool] = _request(Request, ("SCRIPT FLUSH", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def script_help(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """SCRIPT HELP: Show helpful text about the different subcommands (Redis 5.0.0)."""
        try:
            command = encode_command("SCRIPT", "HELP")
        except TypeError:
            raise _wrong("script_help") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("SCRIPT HELP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def script_kill(self, *, timeout: Timeout = UNSET) -> bool:
        """SCRIPT KILL: Kill the script currently in execution (Redis 2.6.0)."""
        try:
            command = encode_command("SCRIPT", "KILL")
        except TypeError:
            raise _wrong("script_kill") from None
        request: Request[bool] = _request(Request, ("SCRIPT KILL", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def script_load(self, script: Arg, *, timeout: Timeout = UNSET) -> S:
        """SCRIPT LOAD: Load the specified Lua script into the script cache (Redis 2.6.0)."""
        try:
            command = encode_command("SCRIPT", "LOAD", script)
        except TypeError:
            raise _wrong("script_load", ("script", script, "arg")) from None
        request: Request[S] = _request(Request, ("SCRIPT LOAD", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def sdiff(self, *keys: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> builtins.set[S]:
        """SDIFF: Subtract multiple sets (Redis 1.0.0)."""
        if not keys:
            raise TypeError("sdiff() needs at least one key")
        try:
            words: builtins.list[Arg] = ["SDIFF"]
            words += _flat(keys)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("sdiff", ("keys", keys, "flat")) from None
        request: Request[builtins.set[S]] = _request(
            Request,
            ("SDIFF", command, self._members, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def sdiffstore(self, destination: Arg, *keys: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """SDIFFSTORE: Subtract multiple sets and store the resulting set in a key (Redis 1.0.0)."""
        if not keys:
            raise TypeError("sdiffstore() needs at least one key")
        try:
            words: builtins.list[Arg] = ["SDIFFSTORE"]
            words.append(destination)
            words += _flat(keys)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("sdiffstore", ("destination", destination, "arg"), ("keys", keys, "flat")) from None
        request: Request[int] = _request(Request, ("SDIFFSTORE", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def setbit(self, name: Arg, offset: int, value: int, *, timeout: Timeout = UNSET) -> bool:
        """SETBIT: Sets or clears the bit at offset in the string value stored at key (Redis 2.2.0)."""
        try:
            command = encode_command("SETBIT", name, offset, value)
        except TypeError:
            raise _wrong(
                "setbit",
                ("name", name, "arg"),
                ("offset", offset, "arg"),
                ("value", value, "arg"),
            ) from None
        request: Request[bool] = _request(Request, ("SETBIT", command, self._flag, False, 1, _UNARY))
        return self.request(request, timeout)

    def setex(self, name: Arg, time: int | timedelta, value: Arg, *, timeout: Timeout = UNSET) -> bool:
        """SETEX: Set the value and expiration of a key (Redis 2.0.0)."""
        try:
            command = encode_command("SETEX", name, _seconds(time), value)
        except TypeError:
            raise _wrong(
                "setex",
                ("name", name, "arg"),
                ("time", time, "duration"),
                ("value", value, "arg"),
            ) from None
        request: Request[bool] = _request(Request, ("SETEX", command, self._okay, True, 1, _UNARY))
        return self.request(request, timeout)

    def setnx(self, name: Arg, value: Arg, *, timeout: Timeout = UNSET) -> bool:
        """SETNX: Set the value of a key, only if the key does not exist (Redis 1.0.0)."""
        try:
            command = encode_command("SETNX", name, value)
        except TypeError:
            raise _wrong("setnx", ("name", name, "arg"), ("value", value, "arg")) from None
        request: Request[bool] = _request(Request, ("SETNX", command, self._flag, True, 1, _UNARY))
        return self.request(request, timeout)

    def setrange(self, name: Arg, offset: int, value: Arg, *, timeout: Timeout = UNSET) -> int:
        """SETRANGE: Overwrite part of a string at key starting at the specified offset (Redis 2.2.0)."""
        try:
            command = encode_command("SETRANGE", name, offset, value)
        except TypeError:
            raise _wrong(
                "setrange",
                ("name", name, "arg"),
                ("offset", offset, "arg"),
                ("value", value, "arg"),
            ) from None
        request: Request[int] = _request(Request, ("SETRANGE", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def shutdown(
        self, *, nosave: bool = False, save: bool = False, now: bool = False, force: bool = False,
        abort: bool = False, timeout: Timeout = UNSET,
    ) -> bool:
        """SHUTDOWN: Synchronously save the dataset to disk and then shut down the server (Redis 1.0.0)."""
        _one_of("shutdown", ("nosave", nosave), ("save", save))
        try:
            words: builtins.list[Arg] = ["SHUTDOWN"]
            if nosave:
                words.append("NOSAVE")
            if save:
                words.append("SAVE")
            if now:
                words.append("NOW")
            if force:
                words.append("FORCE")
            if abort:
                words.append("ABORT")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("shutdown") from None
        request: Request[bool] = _request(Request, ("SHUTDOWN", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def sinter(self, *keys: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> builtins.set[S]:
        """SINTER: Intersect multiple sets (Redis 1.0.0)."""
        if not keys:
            raise TypeError("sinter() needs at least one key")
        try:
            words: builtins.list[Arg] = ["SINTER"]
            words += _flat(keys)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("sinter", ("keys", keys, "flat")) from None
        request: Request[builtins.set[S]] = _request(
            Request,
            ("SINTER", command, self._members, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def sintercard(
        self, keys: Arg | Sequence[Arg], *, limit: int | None = None, timeout: Timeout = UNSET,
    ) -> int:
        """SINTERCARD: Intersect multiple sets and return the cardinality of the result (Redis 7.0.0)."""
        try:
            words: builtins.list[Arg] = ["SINTERCARD"]
            words.append(len(_many(keys)))
            words += _many(keys)
            if limit is not None:
                words += ("LIMIT", limit)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("sintercard", ("keys", keys, "many"), ("limit", limit, "arg")) from None
        request: Request[int] = _request(Request, ("SINTERCARD", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def sinterstore(
        self, destination: Arg, *keys: Arg | Sequence[Arg], timeout: Timeout = UNSET,
    ) -> int:
        """SINTERSTORE: Intersect multiple sets and store the resulting set in a key (Redis 1.0.0)."""
        if not keys:
            raise TypeError("sinterstore() needs at least one key")
        try:
            words: builtins.list[Arg] = ["SINTERSTORE"]
            words.append(destination)
            words += _flat(keys)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("sinterstore", ("destination", destination, "arg"), ("keys", keys, "flat")) from None
        request: Request[int] = _request(Request, ("SINTERSTORE", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def sismember(self, name: Arg, member: Arg, *, timeout: Timeout = UNSET) -> bool:
        """SISMEMBER: Determine if a given value is a member of a set (Redis 1.0.0)."""
        try:
            command = encode_command("SISMEMBER", name, member)
        except TypeError:
            raise _wrong("sismember", ("name", name, "arg"), ("member", member, "arg")) from None
        request: Request[bool] = _request(Request, ("SISMEMBER", command, self._flag, True, 1, _UNARY))
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def slaveof(self, *options: Arg, timeout: Timeout = UNSET) -> S:
        """SLAVEOF: Make the server a replica of another instance, or promote it as master (Redis 1.0.0).
        The arguments after the typed ones are given as Redis spells them. Deprecated since Redis 5.0.0:
        `REPLICAOF`.
        """
        try:
            words: builtins.list[Arg] = ["SLAVEOF"]
            words += options
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("slaveof", ("options", options, "many")) from None
        request: Request[S] = _request(Request, ("SLAVEOF", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def slowlog_get(
        self, count: int | None = None, *, timeout: Timeout = UNSET,
    ) -> builtins.list[builtins.list[Any]]:
        """SLOWLOG GET: Get the slow log's entries (Redis 2.2.12)."""
        try:
            words: builtins.list[Arg] = ["SLOWLOG", "GET"]
            if count is not None:
                words.append(count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("slowlog_get", ("count", count, "arg")) from None
        request: Request[builtins.list[builtins.list[Any]]] = _request(
            Request,
            ("SLOWLOG GET", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def slowlog_help(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """SLOWLOG HELP: Show helpful text about the different subcommands (Redis 6.2.0)."""
        try:
            command = encode_command("SLOWLOG", "HELP")
        except TypeError:
            raise _wrong("slowlog_help") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("SLOWLOG HELP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def slowlog_len(self, *, timeout: Timeout = UNSET) -> int:
        """SLOWLOG LEN: Get the slow log's length (Redis 2.2.12)."""
        try:
            command = encode_command("SLOWLOG", "LEN")
        except TypeError:
            raise _wrong("slowlog_len") from None
        request: Request[int] = _request(Request, ("SLOWLOG LEN", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def slowlog_reset(self, *, timeout: Timeout = UNSET) -> bool:
        """SLOWLOG RESET: Clear all entries from the slow log (Redis 2.2.12)."""
        try:
            command = encode_command("SLOWLOG", "RESET")
        except TypeError:
            raise _wrong("slowlog_reset") from None
        request: Request[bool] = _request(Request, ("SLOWLOG RESET", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def smembers(self, name: Arg, *, timeout: Timeout = UNSET) -> builtins.set[S]:
        """SMEMBERS: Get all the members in a set (Redis 1.0.0)."""
        try:
            command = encode_command("SMEMBERS", name)
        except TypeError:
            raise _wrong("smembers", ("name", name, "arg")) from None
        request: Request[builtins.set[S]] = _request(
            Request,
            ("SMEMBERS", command, self._members, True, 1, _UNARY),
        )
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def smismember(
        self, name: Arg, *members: Arg | Sequence[Arg], timeout: Timeout = UNSET,
    ) -> builtins.list[int]:
        """SMISMEMBER: Returns the membership associated with the given elements for a set (Redis 6.2.0)."""
        if not members:
            raise TypeError("smismember() needs at least one member")
        try:
            words: builtins.list[Arg] = ["SMISMEMBER"]
            words.append(name)
            words += _flat(members)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("smismember", ("name", name, "arg"), ("members", members, "flat")) from None
        request: Request[builtins.list[int]] = _request(
            Request,
            ("SMISMEMBER", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def smove(self, source: Arg, destination: Arg, member: Arg, *, timeout: Timeout = UNSET) -> bool:
        """SMOVE: Move a member from one set to another (Redis 1.0.0)."""
        try:
            command = encode_command("SMOVE", source, destination, member)
        except TypeError:
            raise _wrong(
                "smove",
                ("source", source, "arg"),
                ("destination", destination, "arg"),
                ("member", member, "arg"),
            ) from None
        request: Request[bool] = _request(Request, ("SMOVE", command, self._flag, False, 1, _UNARY))
        return self.request(request, timeout)

    def sort(
        self, name: Arg, *, by: Arg | None = None, offset: int | None = None, count: int | None = None,
        get: Arg | Sequence[Arg] = (), asc: bool = False, desc: bool = False, alpha: bool = False,
        store: Arg | None = None, timeout: Timeout = UNSET,
    ) -> int | builtins.list[S | None]:
        """SORT: Sort the elements in a list, set or sorted set (Redis 1.0.0)."""
        if (offset is not None or count is not None) and not (offset is not None and count is not None):
            raise TypeError("sort(): offset, count are given together")
        _one_of("sort", ("asc", asc), ("desc", desc))
        try:
            words: builtins.list[Arg] = ["SORT"]
            words.append(name)
            if by is not None:
                words += ("BY", by)
            if offset is not None and count is not None:
                words.append("LIMIT")
                words.append(offset)
                words.append(count)
            for item in _many(get):
                words += ("GET", item)
            if asc:
                words.append("ASC")
            if desc:
                words.append("DESC")
            if alpha:
                words.append("ALPHA")
            if store is not None:
                words += ("STORE", store)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "sort",
                ("name", name, "arg"),
                ("by", by, "arg"),
                ("offset", offset, "arg"),
                ("count", count, "arg"),
                ("get", get, "many"),
                ("store", store, "arg"),
            ) from None
        request: Request[int | builtins.list[S | None]] = _request(
            Request,
            ("SORT", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def sort_ro(
        self, name: Arg, *, by: Arg | None = None, offset: int | None = None, count: int | None = None,
        get: Arg | Sequence[Arg] = (), asc: bool = False, desc: bool = False, alpha: bool = False,
        timeout: Timeout = UNSET,
    ) -> builtins.list[S | None]:
        """SORT_RO: Sort the elements in a list, set or sorted set. Read-only variant of SORT (Redis
        7.0.0).
        """
        if (offset is not None or count is not None) and not (offset is not None and count is not None):
            raise TypeError("sort_ro(): offset, count are given together")
        _one_of("sort_ro", ("asc", asc), ("desc", desc))
        try:
            words: builtins.list[Arg] = ["SORT_RO"]
            words.append(name)
            if by is not None:
                words += ("BY", by)
            if offset is not None and count is not None:
                words.append("LIMIT")
                words.append(offset)
                words.append(count)
            for item in _many(get):
                words += ("GET", item)
            if asc:
                words.append("ASC")
            if desc:
                words.append("DESC")
            if alpha:
                words.append("ALPHA")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "sort_ro",
                ("name", name, "arg"),
                ("by", by, "arg"),
                ("offset", offset, "arg"),
                ("count", count, "arg"),
                ("get", get, "many"),
            ) from None
        request: Request[builtins.list[S | None]] = _request(
            Request,
            ("SORT_RO", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def spop(
        self, name: Arg, count: int | None = None, *, timeout: Timeout = UNSET,
    ) -> S | builtins.list[S] | None:
        """SPOP: Remove and return one or multiple random members from a set (Redis 1.0.0)."""
        try:
            words: builtins.list[Arg] = ["SPOP"]
            words.append(name)
            if count is not None:
                words.append(count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("spop", ("name", name, "arg"), ("count", count, "arg")) from None
        request: Request[S | builtins.list[S] | None] = _request(
            Request,
            ("SPOP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def spublish(self, shardchannel: Arg, message: Arg, *, timeout: Timeout = UNSET) -> int:
        """SPUBLISH: Post a message to a shard channel (Redis 7.0.0)."""
        try:
            command = encode_command("SPUBLISH", shardchannel, message)
        except TypeError:
            raise _wrong(
                "spublish",
                ("shardchannel", shardchannel, "arg"),
                ("message", message, "arg"),
            ) from None
        request: Request[int] = _request(Request, ("SPUBLISH", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def srandmember(self, name: Arg, count: int | None = None, *, timeout: Timeout = UNSET) -> Any:
        """SRANDMEMBER: Get one or multiple random members from a set (Redis 1.0.0)."""
        try:
            words: builtins.list[Arg] = ["SRANDMEMBER"]
            words.append(name)
            if count is not None:
                words.append(count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("srandmember", ("name", name, "arg"), ("count", count, "arg")) from None
        request: Request[Any] = _request(Request, ("SRANDMEMBER", command, self._value, True, 1, _UNARY))
        return self.request(request, timeout)

    def srem(self, name: Arg, *members: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """SREM: Remove one or more members from a set (Redis 1.0.0)."""
        if not members:
            raise TypeError("srem() needs at least one member")
        try:
            words: builtins.list[Arg] = ["SREM"]
            words.append(name)
            words += _flat(members)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("srem", ("name", name, "arg"), ("members", members, "flat")) from None
        request: Request[int] = _request(Request, ("SREM", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def sscan(
        self, name: Arg, cursor: int, *, match: Arg | None = None, count: int | None = None,
        timeout: Timeout = UNSET,
    ) -> builtins.list[Any]:
        """SSCAN: Incrementally iterate Set elements (Redis 2.8.0)."""
        try:
            words: builtins.list[Arg] = ["SSCAN"]
            words.append(name)
            words.append(cursor)
            if match is not None:
                words += ("MATCH", match)
            if count is not None:
                words += ("COUNT", count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "sscan",
                ("name", name, "arg"),
                ("cursor", cursor, "arg"),
                ("match", match, "arg"),
                ("count", count, "arg"),
            ) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("SSCAN", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def strlen(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """STRLEN: Get the length of the value stored in a key (Redis 2.2.0)."""
        try:
            command = encode_command("STRLEN", name)
        except TypeError:
            raise _wrong("strlen", ("name", name, "arg")) from None
        request: Request[int] = _request(Request, ("STRLEN", command, self._integer, True, 1, _UNARY))
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def substr(self, name: Arg, start: int, end: int, *, timeout: Timeout = UNSET) -> S:
        """SUBSTR: Get a substring of the string stored at a key (Redis 1.0.0). Deprecated since Redis
        2.0.0: `GETRANGE`.
        """
        try:
            command = encode_command("SUBSTR", name, start, end)
        except TypeError:
            raise _wrong(
                "substr",
                ("name", name, "arg"),
                ("start", start, "arg"),
                ("end", end, "arg"),
            ) from None
        request: Request[S] = _request(Request, ("SUBSTR", command, self._string, True, 1, _UNARY))
        return self.request(request, timeout)

    def sunion(self, *keys: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> builtins.set[S]:
        """SUNION: Add multiple sets (Redis 1.0.0)."""
        if not keys:
            raise TypeError("sunion() needs at least one key")
        try:
            words: builtins.list[Arg] = ["SUNION"]
            words += _flat(keys)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("sunion", ("keys", keys, "flat")) from None
        request: Request[builtins.set[S]] = _request(
            Request,
            ("SUNION", command, self._members, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def sunionstore(
        self, destination: Arg, *keys: Arg | Sequence[Arg], timeout: Timeout = UNSET,
    ) -> int:
        """SUNIONSTORE: Add multiple sets and store the resulting set in a key (Redis 1.0.0)."""
        if not keys:
            raise TypeError("sunionstore() needs at least one key")
        try:
            words: builtins.list[Arg] = ["SUNIONSTORE"]
            words.append(destination)
            words += _flat(keys)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("sunionstore", ("destination", destination, "arg"), ("keys", keys, "flat")) from None
        request: Request[int] = _request(Request, ("SUNIONSTORE", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def swapdb(self, index1: int, index2: int, *, timeout: Timeout = UNSET) -> bool:
        """SWAPDB: Swaps two Redis databases (Redis 4.0.0)."""
        try:
            command = encode_command("SWAPDB", index1, index2)
        except TypeError:
            raise _wrong("swapdb", ("index1", index1, "arg"), ("index2", index2, "arg")) from None
        request: Request[bool] = _request(Request, ("SWAPDB", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def time(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """TIME: Return the current server time (Redis 2.6.0)."""
        try:
            command = encode_command("TIME")
        except TypeError:
            raise _wrong("time") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("TIME", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def touch(self, *keys: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """TOUCH: Alters the last access time of a key(s). Returns the number of existing keys specified
        (Redis 3.2.1).
        """
        if not keys:
            raise TypeError("touch() needs at least one key")
        try:
            words: builtins.list[Arg] = ["TOUCH"]
            words += _flat(keys)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("touch", ("keys", keys, "flat")) from None
        request: Request[int] = _request(Request, ("TOUCH", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def ttl(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """TTL: Get the time to live for a key in seconds (Redis 1.0.0)."""
        try:
            command = encode_command("TTL", name)
        except TypeError:
            raise _wrong("ttl", ("name", name, "arg")) from None
        request: Request[int] = _request(Request, ("TTL", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def type(self, name: Arg, *, timeout: Timeout = UNSET) -> S | None:
        """TYPE: Determine the type stored at key (Redis 1.0.0)."""
        try:
            command = encode_command("TYPE", name)
        except TypeError:
            raise _wrong("type", ("name", name, "arg")) from None
        request: Request[S | None] = _request(Request, ("TYPE", command, self._string, True, 1, _UNARY))
        return self.request(request, timeout)

    def unlink(self, *keys: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """UNLINK: Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non
        blocking (Redis 4.0.0).
        """
        if not keys:
            raise TypeError("unlink() needs at least one key")
        try:
            words: builtins.list[Arg] = ["UNLINK"]
            words += _flat(keys)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("unlink", ("keys", keys, "flat")) from None
        request: Request[int] = _request(Request, ("UNLINK", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def wait(self, numreplicas: int, server_timeout: int, *, timeout: Timeout = UNSET) -> int:
        """WAIT: Wait for the synchronous replication of all the write commands sent in the context of the
        current connection (Redis 3.0.0).
        """
        try:
            words: builtins.list[Arg] = ["WAIT"]
            words.append(numreplicas)
            words.append(server_timeout)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "wait",
                ("numreplicas", numreplicas, "arg"),
                ("server_timeout", server_timeout, "arg"),
            ) from None
        request: Request[int] = _request(Request, ("WAIT", command, self._integer, False, 1, _UNARY))
        return self._held_command(request, server_timeout / 1000, timeout)
        return self.request(request, timeout)

    def xack(self, name: Arg, group: Arg, *ids: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """XACK: Marks a pending message as correctly processed, effectively removing it from the pending
        entries list of the consumer group. Return value of the command is the number of messages
        successfully acknowledged, that is, the IDs we were actually able to resolve in the PEL (Redis
        5.0.0).
        """
        if not ids:
            raise TypeError("xack() needs at least one ID")
        try:
            words: builtins.list[Arg] = ["XACK"]
            words.append(name)
            words.append(group)
            words += _flat(ids)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "xack",
                ("name", name, "arg"),
                ("group", group, "arg"),
                ("ids", ids, "flat"),
            ) from None
        request: Request[int] = _request(Request, ("XACK", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def xadd(
        self, name: Arg, fields: Mapping[Arg, Arg], id: Arg = "*", *, nomkstream: bool = False,
        strategy: Literal["MAXLEN", "MINID"] | None = None, equal: bool = False,
        approximately: bool = False, threshold: Arg | None = None, limit: int | None = None,
        timeout: Timeout = UNSET,
    ) -> S | None:
        """XADD: Appends a new entry to a stream (Redis 5.0.0)."""
        _one_of("xadd", ("equal", equal), ("approximately", approximately))
        if not fields:
            raise TypeError("xadd() needs at least one pair in fields")
        try:
            words: builtins.list[Arg] = ["XADD"]
            words.append(name)
            if nomkstream:
                words.append("NOMKSTREAM")
            if strategy is not None:
                words.append(strategy)
                if equal:
                    words.append("=")
                if approximately:
                    words.append("~")
                if threshold is not None:
                    words.append(threshold)
                if limit is not None:
                    words += ("LIMIT", limit)
            words.append(id)
            for pair_key, pair_value in fields.items():
                words += (pair_key, pair_value)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "xadd",
                ("name", name, "arg"),
                ("fields", fields, "pairs"),
                ("id", id, "arg"),
                ("strategy", strategy, "arg"),
                ("threshold", threshold, "arg"),
                ("limit", limit, "arg"),
            ) from None
        request: Request[S | None] = _request(Request, ("XADD", command, self._string, False, 1, _UNARY))
        return self.request(request, timeout)

    def xautoclaim(
        self, name: Arg, group: Arg, consumer: Arg, min_idle_time: Arg, start: Arg, *,
        count: int | None = None, justid: bool = False, timeout: Timeout = UNSET,
    ) -> builtins.list[Any]:
        """XAUTOCLAIM: Changes (or acquires) ownership of messages in a consumer group, as if the messages
        were delivered to the specified consumer (Redis 6.2.0).
        """
        try:
            words: builtins.list[Arg] = ["XAUTOCLAIM"]
            words.append(name)
            words.append(group)
            words.append(consumer)
            words.append(min_idle_time)
            words.append(start)
            if count is not None:
                words += ("COUNT", count)
            if justid:
                words.append("JUSTID")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "xautoclaim",
                ("name", name, "arg"),
                ("group", group, "arg"),
                ("consumer", consumer, "arg"),
                ("min_idle_time", min_idle_time, "arg"),
                ("start", start, "arg"),
                ("count", count, "arg"),
            ) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("XAUTOCLAIM", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def xclaim(
        self, name: Arg, group: Arg, consumer: Arg, min_idle_time: Arg, ids: Arg | Sequence[Arg], *,
        idle: int | None = None, time: int | None = None, retrycount: int | None = None,
        force: bool = False, justid: bool = False, lastid: Arg | None = None, timeout: Timeout = UNSET,
    ) -> builtins.list[S] | builtins.list[builtins.list[Any]]:
        """XCLAIM: Changes (or acquires) ownership of a message in a consumer group, as if the message was
        delivered to the specified consumer (Redis 5.0.0).
        """
        try:
            words: builtins.list[Arg] = ["XCLAIM"]
            words.append(name)
            words.append(group)
            words.append(consumer)
            words.append(min_idle_time)
            words += _many(ids)
            if idle is not None:
                words += ("IDLE", idle)
            if time is not None:
                words += ("TIME", time)
            if retrycount is not None:
                words += ("RETRYCOUNT", retrycount)
            if force:
                words.append("FORCE")
            if justid:
                words.append("JUSTID")
            if lastid is not None:
                words += ("LASTID", lastid)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "xclaim",
                ("name", name, "arg"),
                ("group", group, "arg"),
                ("consumer", consumer, "arg"),
                ("min_idle_time", min_idle_time, "arg"),
                ("ids", ids, "many"),
                ("idle", idle, "arg"),
                ("time", time, "arg"),
                ("retrycount", retrycount, "arg"),
                ("lastid", lastid, "arg"),
            ) from None
        request: Request[builtins.list[S] | builtins.list[builtins.list[Any]]] = _request(
            Request,
            ("XCLAIM", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def xdel(self, name: Arg, *ids: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """XDEL: Removes the specified entries from the stream. Returns the number of items actually
        deleted, that may be different from the number of IDs passed in case certain IDs do not exist
        (Redis 5.0.0).
        """
        if not ids:
            raise TypeError("xdel() needs at least one ID")
        try:
            words: builtins.list[Arg] = ["XDEL"]
            words.append(name)
            words += _flat(ids)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("xdel", ("name", name, "arg"), ("ids", ids, "flat")) from None
        request: Request[int] = _request(Request, ("XDEL", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def xgroup_create(
        self, name: Arg, groupname: Arg, id: Arg, *, mkstream: bool = False,
        entriesread: int | None = None, timeout: Timeout = UNSET,
    ) -> bool:
        """XGROUP CREATE: Create a consumer group (Redis 5.0.0)."""
        try:
            words: builtins.list[Arg] = ["XGROUP", "CREATE"]
            words.append(name)
            words.append(groupname)
            words.append(id)
            if mkstream:
                words.append("MKSTREAM")
            if entriesread is not None:
                words += ("ENTRIESREAD", entriesread)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "xgroup_create",
                ("name", name, "arg"),
                ("groupname", groupname, "arg"),
                ("id", id, "arg"),
                ("entriesread", entriesread, "arg"),
            ) from None
        request: Request[bool] = _request(Request, ("XGROUP CREATE", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def xgroup_createconsumer(
        self, name: Arg, groupname: Arg, consumername: Arg, *, timeout: Timeout = UNSET,
    ) -> bool:
        """XGROUP CREATECONSUMER: Create a consumer in a consumer group (Redis 6.2.0)."""
        try:
            command = encode_command("XGROUP", "CREATECONSUMER", name, groupname, consumername)
        except TypeError:
            raise _wrong(
                "xgroup_createconsumer",
                ("name", name, "arg"),
                ("groupname", groupname, "arg"),
                ("consumername", consumername, "arg"),
            ) from None
        request: Request[bool] = _request(
            Request,
            ("XGROUP CREATECONSUMER", command, self._flag, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def xgroup_delconsumer(
        self, name: Arg, groupname: Arg, consumername: Arg, *, timeout: Timeout = UNSET,
    ) -> int:
        """XGROUP DELCONSUMER: Delete a consumer from a consumer group (Redis 5.0.0)."""
        try:
            command = encode_command("XGROUP", "DELCONSUMER", name, groupname, consumername)
        except TypeError:
            raise _wrong(
                "xgroup_delconsumer",
                ("name", name, "arg"),
                ("groupname", groupname, "arg"),
                ("consumername", consumername, "arg"),
            ) from None
        request: Request[int] = _request(
            Request,
            ("XGROUP DELCONSUMER", command, self._integer, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def xgroup_destroy(self, name: Arg, groupname: Arg, *, timeout: Timeout = UNSET) -> bool:
        """XGROUP DESTROY: Destroy a consumer group (Redis 5.0.0)."""
        try:
            command = encode_command("XGROUP", "DESTROY", name, groupname)
        except TypeError:
            raise _wrong("xgroup_destroy", ("name", name, "arg"), ("groupname", groupname, "arg")) from None
        request: Request[bool] = _request(Request, ("XGROUP DESTROY", command, self._flag, False, 1, _UNARY))
        return self.request(request, timeout)

    def xgroup_help(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """XGROUP HELP: Show helpful text about the different subcommands (Redis 5.0.0)."""
        try:
            command = encode_command("XGROUP", "HELP")
        except TypeError:
            raise _wrong("xgroup_help") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("XGROUP HELP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def xgroup_setid(
        self, name: Arg, groupname: Arg, id: Arg, *, entriesread: int | None = None,
        timeout: Timeout = UNSET,
    ) -> bool:
        """XGROUP SETID: Set a consumer group to an arbitrary last delivered ID value (Redis 5.0.0)."""
        try:
            words: builtins.list[Arg] = ["XGROUP", "SETID"]
            words.append(name)
            words.append(groupname)
            words.append(id)
            if entriesread is not None:
                words += ("ENTRIESREAD", entriesread)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "xgroup_setid",
                ("name", name, "arg"),
                ("groupname", groupname, "arg"),
                ("id", id, "arg"),
                ("entriesread", entriesread, "arg"),
            ) from None
        request: Request[bool] = _request(Request, ("XGROUP SETID", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def xinfo_consumers(
        self, name: Arg, groupname: Arg, *, timeout: Timeout = UNSET,
    ) -> builtins.list[builtins.dict[S, Any]]:
        """XINFO CONSUMERS: List the consumers in a consumer group (Redis 5.0.0)."""
        try:
            command = encode_command("XINFO", "CONSUMERS", name, groupname)
        except TypeError:
            raise _wrong("xinfo_consumers", ("name", name, "arg"), ("groupname", groupname, "arg")) from None
        request: Request[builtins.list[builtins.dict[S, Any]]] = _request(
            Request,
            ("XINFO CONSUMERS", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def xinfo_groups(
        self, name: Arg, *, timeout: Timeout = UNSET,
    ) -> builtins.list[builtins.dict[S, Any]]:
        """XINFO GROUPS: List the consumer groups of a stream (Redis 5.0.0)."""
        try:
            command = encode_command("XINFO", "GROUPS", name)
        except TypeError:
            raise _wrong("xinfo_groups", ("name", name, "arg")) from None
        request: Request[builtins.list[builtins.dict[S, Any]]] = _request(
            Request,
            ("XINFO GROUPS", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def xinfo_help(self, *, timeout: Timeout = UNSET) -> builtins.list[S]:
        """XINFO HELP: Show helpful text about the different subcommands (Redis 5.0.0)."""
        try:
            command = encode_command("XINFO", "HELP")
        except TypeError:
            raise _wrong("xinfo_help") from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("XINFO HELP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def xinfo_stream(self, name: Arg, *options: Arg, timeout: Timeout = UNSET) -> builtins.dict[S, Any]:
        """XINFO STREAM: Get information about a stream (Redis 5.0.0). The arguments after the typed ones
        are given as Redis spells them.
        """
        try:
            words: builtins.list[Arg] = ["XINFO", "STREAM"]
            words.append(name)
            words += options
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("xinfo_stream", ("name", name, "arg"), ("options", options, "many")) from None
        request: Request[builtins.dict[S, Any]] = _request(
            Request,
            ("XINFO STREAM", command, self._mapping, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def xlen(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """XLEN: Return the number of entries in a stream (Redis 5.0.0)."""
        try:
            command = encode_command("XLEN", name)
        except TypeError:
            raise _wrong("xlen", ("name", name, "arg")) from None
        request: Request[int] = _request(Request, ("XLEN", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def xpending(
        self, name: Arg, group: Arg, *, idle: int | None = None, start: Arg | None = None,
        end: Arg | None = None, count: int | None = None, consumer: Arg | None = None,
        timeout: Timeout = UNSET,
    ) -> builtins.list[builtins.list[Any]] | builtins.list[Any]:
        """XPENDING: Return information and entries from a stream consumer group pending entries list, that
        are messages fetched but never acknowledged (Redis 5.0.0).
        """
        try:
            words: builtins.list[Arg] = ["XPENDING"]
            words.append(name)
            words.append(group)
            if start is not None:
                if idle is not None:
                    words += ("IDLE", idle)
                words.append(start)
                if end is not None:
                    words.append(end)
                if count is not None:
                    words.append(count)
                if consumer is not None:
                    words.append(consumer)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "xpending",
                ("name", name, "arg"),
                ("group", group, "arg"),
                ("idle", idle, "arg"),
                ("start", start, "arg"),
                ("end", end, "arg"),
                ("count", count, "arg"),
                ("consumer", consumer, "arg"),
            ) from None
        request: Request[builtins.list[builtins.list[Any]] | builtins.list[Any]] = _request(
            Request,
            ("XPENDING", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def xrange(
        self, name: Arg, start: Arg, end: Arg, *, count: int | None = None, timeout: Timeout = UNSET,
    ) -> builtins.list[tuple[S, builtins.dict[S, S]]]:
        """XRANGE: Return a range of elements in a stream, with IDs matching the specified IDs interval
        (Redis 5.0.0).
        """
        try:
            words: builtins.list[Arg] = ["XRANGE"]
            words.append(name)
            words.append(start)
            words.append(end)
            if count is not None:
                words += ("COUNT", count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "xrange",
                ("name", name, "arg"),
                ("start", start, "arg"),
                ("end", end, "arg"),
                ("count", count, "arg"),
            ) from None
        request: Request[builtins.list[tuple[S, builtins.dict[S, S]]]] = _request(
            Request,
            ("XRANGE", command, self._entries, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def xread(
        self, streams: Mapping[Arg, Arg], *, count: int | None = None,
        block: int | timedelta | None = None, timeout: Timeout = UNSET,
    ) -> builtins.dict[S, builtins.list[tuple[S, builtins.dict[S, S]]]] | None:
        """XREAD: Return never seen elements in multiple streams, with IDs greater than the ones reported
        by the caller for each stream. Can block (Redis 5.0.0).
        """
        try:
            words: builtins.list[Arg] = ["XREAD"]
            if count is not None:
                words += ("COUNT", count)
            if block is not None:
                words += ("BLOCK", _milliseconds(block))
            words.append("STREAMS")
            words += streams.keys()
            words += streams.values()
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "xread",
                ("count", count, "arg"),
                ("block", block, "duration"),
                ("streams", streams, "pairs"),
            ) from None
        request: Request[builtins.dict[S, builtins.list[tuple[S, builtins.dict[S, S]]]] | None] = _request(
            Request,
            ("XREAD", command, self._streams, True, 1, _UNARY),
        )
        if block is not None:
            return self._held_command(request, _milliseconds(block) / 1000, timeout)
        return self.request(request, timeout)

    def xreadgroup(
        self, group: Arg, consumer: Arg, streams: Mapping[Arg, Arg], *, count: int | None = None,
        block: int | timedelta | None = None, noack: bool = False, timeout: Timeout = UNSET,
    ) -> builtins.dict[S, builtins.list[tuple[S, builtins.dict[S, S]]]] | None:
        """XREADGROUP: Return new entries from a stream using a consumer group, or access the history of
        the pending entries for a given consumer. Can block (Redis 5.0.0).
        """
        try:
            words: builtins.list[Arg] = ["XREADGROUP"]
            words.append("GROUP")
            words.append(group)
            words.append(consumer)
            if count is not None:
                words += ("COUNT", count)
            if block is not None:
                words += ("BLOCK", _milliseconds(block))
            if noack:
                words.append("NOACK")
            words.append("STREAMS")
            words += streams.keys()
            words += streams.values()
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "xreadgroup",
                ("group", group, "arg"),
                ("consumer", consumer, "arg"),
                ("count", count, "arg"),
                ("block", block, "duration"),
                ("streams", streams, "pairs"),
            ) from None
        request: Request[builtins.dict[S, builtins.list[tuple[S, builtins.dict[S, S]]]] | None] = _request(
            Request,
            ("XREADGROUP", command, self._streams, False, 1, _UNARY),
        )
        if block is not None:
            return self._held_command(request, _milliseconds(block) / 1000, timeout)
        return self.request(request, timeout)

    def xrevrange(
        self, name: Arg, end: Arg, start: Arg, *, count: int | None = None, timeout: Timeout = UNSET,
    ) -> builtins.list[tuple[S, builtins.dict[S, S]]]:
        """XREVRANGE: Return a range of elements in a stream, with IDs matching the specified IDs interval,
        in reverse order (from greater to smaller IDs) compared to XRANGE (Redis 5.0.0).
        """
        try:
            words: builtins.list[Arg] = ["XREVRANGE"]
            words.append(name)
            words.append(end)
            words.append(start)
            if count is not None:
                words += ("COUNT", count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "xrevrange",
                ("name", name, "arg"),
                ("end", end, "arg"),
                ("start", start, "arg"),
                ("count", count, "arg"),
            ) from None
        request: Request[builtins.list[tuple[S, builtins.dict[S, S]]]] = _request(
            Request,
            ("XREVRANGE", command, self._entries, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def xsetid(
        self, name: Arg, last_id: Arg, *, entriesadded: int | None = None, maxdeletedid: Arg | None = None,
        timeout: Timeout = UNSET,
    ) -> bool:
        """XSETID: An internal command for replicating stream values (Redis 5.0.0)."""
        try:
            words: builtins.list[Arg] = ["XSETID"]
            words.append(name)
            words.append(last_id)
            if entriesadded is not None:
                words += ("ENTRIESADDED", entriesadded)
            if maxdeletedid is not None:
                words += ("MAXDELETEDID", maxdeletedid)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "xsetid",
                ("name", name, "arg"),
                ("last_id", last_id, "arg"),
                ("entriesadded", entriesadded, "arg"),
                ("maxdeletedid", maxdeletedid, "arg"),
            ) from None
        request: Request[bool] = _request(Request, ("XSETID", command, self._okay, False, 1, _UNARY))
        return self.request(request, timeout)

    def xtrim(
        self, name: Arg, strategy: Literal["MAXLEN", "MINID"], threshold: Arg, *, equal: bool = False,
        approximately: bool = False, limit: int | None = None, timeout: Timeout = UNSET,
    ) -> int:
        """XTRIM: Trims the stream to (approximately if '~' is passed) a certain size (Redis 5.0.0)."""
        _one_of("xtrim", ("equal", equal), ("approximately", approximately))
        try:
            words: builtins.list[Arg] = ["XTRIM"]
            words.append(name)
            words.append(strategy)
            if equal:
                words.append("=")
            if approximately:
                words.append("~")
            words.append(threshold)
            if limit is not None:
                words += ("LIMIT", limit)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "xtrim",
                ("name", name, "arg"),
                ("strategy", strategy, "arg"),
                ("threshold", threshold, "arg"),
                ("limit", limit, "arg"),
            ) from None
        request: Request[int] = _request(Request, ("XTRIM", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def zadd(
        self, name: Arg, mapping: Mapping[Arg, Arg], *, nx: bool = False, xx: bool = False,
        gt: bool = False, lt: bool = False, ch: bool = False, incr: bool = False, timeout: Timeout = UNSET,
    ) -> int | float | None:
        """ZADD: Add one or more members to a sorted set, or update its score if it already exists (Redis
        1.2.0).
        """
        _one_of("zadd", ("nx", nx), ("xx", xx))
        _one_of("zadd", ("gt", gt), ("lt", lt))
        if not mapping:
            raise TypeError("zadd() needs at least one pair in mapping")
        try:
            words: builtins.list[Arg] = ["ZADD"]
            words.append(name)
            if nx:
                words.append("NX")
            if xx:
                words.append("XX")
            if gt:
                words.append("GT")
            if lt:
                words.append("LT")
            if ch:
                words.append("CH")
            if incr:
                words.append("INCR")
            for pair_key, pair_value in mapping.items():
                words += (pair_value, pair_key)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("zadd", ("name", name, "arg"), ("mapping", mapping, "pairs")) from None
        request: Request[int | float | None] = _request(
            Request,
            ("ZADD", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zcard(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """ZCARD: Get the number of members in a sorted set (Redis 1.2.0)."""
        try:
            command = encode_command("ZCARD", name)
        except TypeError:
            raise _wrong("zcard", ("name", name, "arg")) from None
        request: Request[int] = _request(Request, ("ZCARD", command, self._integer, True, 1, _UNARY))
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def zcount(self, name: Arg, min: float, max: float, *, timeout: Timeout = UNSET) -> int:
        """ZCOUNT: Count the members in a sorted set with scores within the given values (Redis 2.0.0)."""
        try:
            command = encode_command("ZCOUNT", name, min, max)
        except TypeError:
            raise _wrong("zcount", ("name", name, "arg"), ("min", min, "arg"), ("max", max, "arg")) from None
        request: Request[int] = _request(Request, ("ZCOUNT", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def zdiff(
        self, keys: Arg | Sequence[Arg], *, withscores: bool = False, timeout: Timeout = UNSET,
    ) -> builtins.list[Any]:
        """ZDIFF: Subtract multiple sorted sets (Redis 6.2.0)."""
        try:
            words: builtins.list[Arg] = ["ZDIFF"]
            words.append(len(_many(keys)))
            words += _many(keys)
            if withscores:
                words.append("WITHSCORES")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("zdiff", ("keys", keys, "many")) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("ZDIFF", command, self._scored if withscores else self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zdiffstore(self, destination: Arg, *keys: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """ZDIFFSTORE: Subtract multiple sorted sets and store the resulting sorted set in a new key (Redis
        6.2.0).
        """
        if not keys:
            raise TypeError("zdiffstore() needs at least one key")
        try:
            words: builtins.list[Arg] = ["ZDIFFSTORE"]
            words.append(destination)
            words.append(len(_flat(keys)))
            words += _flat(keys)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("zdiffstore", ("destination", destination, "arg"), ("keys", keys, "flat")) from None
        request: Request[int] = _request(Request, ("ZDIFFSTORE", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def zincrby(self, name: Arg, increment: int, member: Arg, *, timeout: Timeout = UNSET) -> float:
        """ZINCRBY: Increment the score of a member in a sorted set (Redis 1.2.0)."""
        try:
            command = encode_command("ZINCRBY", name, increment, member)
        except TypeError:
            raise _wrong(
                "zincrby",
                ("name", name, "arg"),
                ("increment", increment, "arg"),
                ("member", member, "arg"),
            ) from None
        request: Request[float] = _request(Request, ("ZINCRBY", command, self._number, False, 1, _UNARY))
        return self.request(request, timeout)

    def zinter(
        self, keys: Arg | Sequence[Arg], *, weights: int | Sequence[int] = (),
        aggregate: Literal["SUM", "MIN", "MAX"] | None = None, withscores: bool = False,
        timeout: Timeout = UNSET,
    ) -> builtins.list[Any]:
        """ZINTER: Intersect multiple sorted sets (Redis 6.2.0)."""
        try:
            words: builtins.list[Arg] = ["ZINTER"]
            words.append(len(_many(keys)))
            words += _many(keys)
            if weights:
                words.append("WEIGHTS")
                words += _many(weights)
            if aggregate is not None:
                words += ("AGGREGATE", aggregate)
            if withscores:
                words.append("WITHSCORES")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "zinter",
                ("keys", keys, "many"),
                ("weights", weights, "many"),
                ("aggregate", aggregate, "arg"),
            ) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("ZINTER", command, self._scored if withscores else self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zintercard(
        self, keys: Arg | Sequence[Arg], *, limit: int | None = None, timeout: Timeout = UNSET,
    ) -> int:
        """ZINTERCARD: Intersect multiple sorted sets and return the cardinality of the result (Redis
        7.0.0).
        """
        try:
            words: builtins.list[Arg] = ["ZINTERCARD"]
            words.append(len(_many(keys)))
            words += _many(keys)
            if limit is not None:
                words += ("LIMIT", limit)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("zintercard", ("keys", keys, "many"), ("limit", limit, "arg")) from None
        request: Request[int] = _request(Request, ("ZINTERCARD", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def zinterstore(
        self, destination: Arg, keys: Arg | Sequence[Arg], *, weights: int | Sequence[int] = (),
        aggregate: Literal["SUM", "MIN", "MAX"] | None = None, timeout: Timeout = UNSET,
    ) -> int:
        """ZINTERSTORE: Intersect multiple sorted sets and store the resulting sorted set in a new key
        (Redis 2.0.0).
        """
        try:
            words: builtins.list[Arg] = ["ZINTERSTORE"]
            words.append(destination)
            words.append(len(_many(keys)))
            words += _many(keys)
            if weights:
                words.append("WEIGHTS")
                words += _many(weights)
            if aggregate is not None:
                words += ("AGGREGATE", aggregate)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "zinterstore",
                ("destination", destination, "arg"),
                ("keys", keys, "many"),
                ("weights", weights, "many"),
                ("aggregate", aggregate, "arg"),
            ) from None
        request: Request[int] = _request(Request, ("ZINTERSTORE", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def zlexcount(self, name: Arg, min: Arg, max: Arg, *, timeout: Timeout = UNSET) -> int:
        """ZLEXCOUNT: Count the number of members in a sorted set between a given lexicographical range
        (Redis 2.8.9).
        """
        try:
            command = encode_command("ZLEXCOUNT", name, min, max)
        except TypeError:
            raise _wrong(
                "zlexcount",
                ("name", name, "arg"),
                ("min", min, "arg"),
                ("max", max, "arg"),
            ) from None
        request: Request[int] = _request(Request, ("ZLEXCOUNT", command, self._integer, True, 1, _UNARY))
        return self.request(request, timeout)

    def zmpop(
        self, keys: Arg | Sequence[Arg], where: Literal["MIN", "MAX"], *, count: int | None = None,
        timeout: Timeout = UNSET,
    ) -> builtins.list[Any] | None:
        """ZMPOP: Remove and return members with scores in a sorted set (Redis 7.0.0)."""
        try:
            words: builtins.list[Arg] = ["ZMPOP"]
            words.append(len(_many(keys)))
            words += _many(keys)
            words.append(where)
            if count is not None:
                words += ("COUNT", count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "zmpop",
                ("keys", keys, "many"),
                ("where", where, "arg"),
                ("count", count, "arg"),
            ) from None
        request: Request[builtins.list[Any] | None] = _request(
            Request,
            ("ZMPOP", command, self._value, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zmscore(
        self, name: Arg, *members: Arg | Sequence[Arg], timeout: Timeout = UNSET,
    ) -> builtins.list[Any]:
        """ZMSCORE: Get the score associated with the given members in a sorted set (Redis 6.2.0)."""
        if not members:
            raise TypeError("zmscore() needs at least one member")
        try:
            words: builtins.list[Arg] = ["ZMSCORE"]
            words.append(name)
            words += _flat(members)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("zmscore", ("name", name, "arg"), ("members", members, "flat")) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("ZMSCORE", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zpopmax(
        self, name: Arg, count: int | None = None, *, timeout: Timeout = UNSET,
    ) -> builtins.list[tuple[S, float]]:
        """ZPOPMAX: Remove and return members with the highest scores in a sorted set (Redis 5.0.0)."""
        try:
            words: builtins.list[Arg] = ["ZPOPMAX"]
            words.append(name)
            if count is not None:
                words.append(count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("zpopmax", ("name", name, "arg"), ("count", count, "arg")) from None
        request: Request[builtins.list[tuple[S, float]]] = _request(
            Request,
            ("ZPOPMAX", command, self._scored, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zpopmin(
        self, name: Arg, count: int | None = None, *, timeout: Timeout = UNSET,
    ) -> builtins.list[tuple[S, float]]:
        """ZPOPMIN: Remove and return members with the lowest scores in a sorted set (Redis 5.0.0)."""
        try:
            words: builtins.list[Arg] = ["ZPOPMIN"]
            words.append(name)
            if count is not None:
                words.append(count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("zpopmin", ("name", name, "arg"), ("count", count, "arg")) from None
        request: Request[builtins.list[tuple[S, float]]] = _request(
            Request,
            ("ZPOPMIN", command, self._scored, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zrandmember(
        self, name: Arg, *, count: int | None = None, withscores: bool = False, timeout: Timeout = UNSET,
    ) -> Any:
        """ZRANDMEMBER: Get one or multiple random elements from a sorted set (Redis 6.2.0)."""
        try:
            words: builtins.list[Arg] = ["ZRANDMEMBER"]
            words.append(name)
            if count is not None:
                words.append(count)
                if withscores:
                    words.append("WITHSCORES")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("zrandmember", ("name", name, "arg"), ("count", count, "arg")) from None
        request: Request[Any] = _request(Request, ("ZRANDMEMBER", command, self._value, True, 1, _UNARY))
        return self.request(request, timeout)

    def zrange(
        self, name: Arg, start: Arg, stop: Arg, *, byscore: bool = False, bylex: bool = False,
        desc: bool = False, offset: int | None = None, num: int | None = None, withscores: bool = False,
        timeout: Timeout = UNSET,
    ) -> builtins.list[Any]:
        """ZRANGE: Return a range of members in a sorted set (Redis 1.2.0)."""
        _one_of("zrange", ("byscore", byscore), ("bylex", bylex))
        if (offset is not None or num is not None) and not (offset is not None and num is not None):
            raise TypeError("zrange(): offset, num are given together")
        try:
            words: builtins.list[Arg] = ["ZRANGE"]
            words.append(name)
            words.append(start)
            words.append(stop)
            if byscore:
                words.append("BYSCORE")
            if bylex:
                words.append("BYLEX")
            if desc:
                words.append("REV")
            if offset is not None and num is not None:
                words.append("LIMIT")
                words.append(offset)
                words.append(num)
            if withscores:
                words.append("WITHSCORES")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "zrange",
                ("name", name, "arg"),
                ("start", start, "arg"),
                ("stop", stop, "arg"),
                ("offset", offset, "arg"),
                ("num", num, "arg"),
            ) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("ZRANGE", command, self._scored if withscores else self._value, True, 1, _UNARY),
        )
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def zrangebylex(
        self, name: Arg, min: Arg, max: Arg, *, offset: int | None = None, count: int | None = None,
        timeout: Timeout = UNSET,
    ) -> builtins.list[S]:
        """ZRANGEBYLEX: Return a range of members in a sorted set, by lexicographical range (Redis 2.8.9).
        Deprecated since Redis 6.2.0: `ZRANGE` with the `BYLEX` argument.
        """
        if (offset is not None or count is not None) and not (offset is not None and count is not None):
            raise TypeError("zrangebylex(): offset, count are given together")
        try:
            words: builtins.list[Arg] = ["ZRANGEBYLEX"]
            words.append(name)
            words.append(min)
            words.append(max)
            if offset is not None and count is not None:
                words.append("LIMIT")
                words.append(offset)
                words.append(count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "zrangebylex",
                ("name", name, "arg"),
                ("min", min, "arg"),
                ("max", max, "arg"),
                ("offset", offset, "arg"),
                ("count", count, "arg"),
            ) from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("ZRANGEBYLEX", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zrangebyscore(
        self, name: Arg, min: float, max: float, *, withscores: bool = False, offset: int | None = None,
        count: int | None = None, timeout: Timeout = UNSET,
    ) -> builtins.list[Any]:
        """ZRANGEBYSCORE: Return a range of members in a sorted set, by score (Redis 1.0.5). Deprecated
        since Redis 6.2.0: `ZRANGE` with the `BYSCORE` argument.
        """
        if (offset is not None or count is not None) and not (offset is not None and count is not None):
            raise TypeError("zrangebyscore(): offset, count are given together")
        try:
            words: builtins.list[Arg] = ["ZRANGEBYSCORE"]
            words.append(name)
            words.append(min)
            words.append(max)
            if withscores:
                words.append("WITHSCORES")
            if offset is not None and count is not None:
                words.append("LIMIT")
                words.append(offset)
                words.append(count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "zrangebyscore",
                ("name", name, "arg"),
                ("min", min, "arg"),
                ("max", max, "arg"),
                ("offset", offset, "arg"),
                ("count", count, "arg"),
            ) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("ZRANGEBYSCORE", command, self._scored if withscores else self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zrangestore(
        self, dst: Arg, src: Arg, min: Arg, max: Arg, *, byscore: bool = False, bylex: bool = False,
        desc: bool = False, offset: int | None = None, num: int | None = None, timeout: Timeout = UNSET,
    ) -> int:
        """ZRANGESTORE: Store a range of members from sorted set into another key (Redis 6.2.0)."""
        _one_of("zrangestore", ("byscore", byscore), ("bylex", bylex))
        if (offset is not None or num is not None) and not (offset is not None and num is not None):
            raise TypeError("zrangestore(): offset, num are given together")
        try:
            words: builtins.list[Arg] = ["ZRANGESTORE"]
            words.append(dst)
            words.append(src)
            words.append(min)
            words.append(max)
            if byscore:
                words.append("BYSCORE")
            if bylex:
                words.append("BYLEX")
            if desc:
                words.append("REV")
            if offset is not None and num is not None:
                words.append("LIMIT")
                words.append(offset)
                words.append(num)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "zrangestore",
                ("dst", dst, "arg"),
                ("src", src, "arg"),
                ("min", min, "arg"),
                ("max", max, "arg"),
                ("offset", offset, "arg"),
                ("num", num, "arg"),
            ) from None
        request: Request[int] = _request(Request, ("ZRANGESTORE", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def zrank(
        self, name: Arg, member: Arg, *, timeout: Timeout = UNSET,
    ) -> int | builtins.list[Any] | None:
        """ZRANK: Determine the index of a member in a sorted set (Redis 2.0.0)."""
        try:
            command = encode_command("ZRANK", name, member)
        except TypeError:
            raise _wrong("zrank", ("name", name, "arg"), ("member", member, "arg")) from None
        request: Request[int | builtins.list[Any] | None] = _request(
            Request,
            ("ZRANK", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zrem(self, name: Arg, *members: Arg | Sequence[Arg], timeout: Timeout = UNSET) -> int:
        """ZREM: Remove one or more members from a sorted set (Redis 1.2.0)."""
        if not members:
            raise TypeError("zrem() needs at least one member")
        try:
            words: builtins.list[Arg] = ["ZREM"]
            words.append(name)
            words += _flat(members)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong("zrem", ("name", name, "arg"), ("members", members, "flat")) from None
        request: Request[int] = _request(Request, ("ZREM", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)

    def zremrangebylex(self, name: Arg, min: Arg, max: Arg, *, timeout: Timeout = UNSET) -> int:
        """ZREMRANGEBYLEX: Remove all members in a sorted set between the given lexicographical range
        (Redis 2.8.9).
        """
        try:
            command = encode_command("ZREMRANGEBYLEX", name, min, max)
        except TypeError:
            raise _wrong(
                "zremrangebylex",
                ("name", name, "arg"),
                ("min", min, "arg"),
                ("max", max, "arg"),
            ) from None
        request: Request[int] = _request(
            Request,
            ("ZREMRANGEBYLEX", command, self._integer, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zremrangebyrank(self, name: Arg, start: int, stop: int, *, timeout: Timeout = UNSET) -> int:
        """ZREMRANGEBYRANK: Remove all members in a sorted set within the given indexes (Redis 2.0.0)."""
        try:
            command = encode_command("ZREMRANGEBYRANK", name, start, stop)
        except TypeError:
            raise _wrong(
                "zremrangebyrank",
                ("name", name, "arg"),
                ("start", start, "arg"),
                ("stop", stop, "arg"),
            ) from None
        request: Request[int] = _request(
            Request,
            ("ZREMRANGEBYRANK", command, self._integer, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zremrangebyscore(self, name: Arg, min: float, max: float, *, timeout: Timeout = UNSET) -> int:
        """ZREMRANGEBYSCORE: Remove all members in a sorted set within the given scores (Redis 1.2.0)."""
        try:
            command = encode_command("ZREMRANGEBYSCORE", name, min, max)
        except TypeError:
            raise _wrong(
                "zremrangebyscore",
                ("name", name, "arg"),
                ("min", min, "arg"),
                ("max", max, "arg"),
            ) from None
        request: Request[int] = _request(
            Request,
            ("ZREMRANGEBYSCORE", command, self._integer, False, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zrevrange(
        self, name: Arg, start: int, stop: int, *, withscores: bool = False, timeout: Timeout = UNSET,
    ) -> builtins.list[Any]:
        """ZREVRANGE: Return a range of members in a sorted set, by index, with scores ordered from high to
        low (Redis 1.2.0). Deprecated since Redis 6.2.0: `ZRANGE` with the `REV` argument.
        """
        try:
            words: builtins.list[Arg] = ["ZREVRANGE"]
            words.append(name)
            words.append(start)
            words.append(stop)
            if withscores:
                words.append("WITHSCORES")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "zrevrange",
                ("name", name, "arg"),
                ("start", start, "arg"),
                ("stop", stop, "arg"),
            ) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("ZREVRANGE", command, self._scored if withscores else self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zrevrangebylex(
        self, name: Arg, max: Arg, min: Arg, *, offset: int | None = None, count: int | None = None,
        timeout: Timeout = UNSET,
    ) -> builtins.list[S]:
        """ZREVRANGEBYLEX: Return a range of members in a sorted set, by lexicographical range, ordered
        from higher to lower strings (Redis 2.8.9). Deprecated since Redis 6.2.0: `ZRANGE` with the
        `REV` and `BYLEX` arguments.
        """
        if (offset is not None or count is not None) and not (offset is not None and count is not None):
            raise TypeError("zrevrangebylex(): offset, count are given together")
        try:
            words: builtins.list[Arg] = ["ZREVRANGEBYLEX"]
            words.append(name)
            words.append(max)
            words.append(min)
            if offset is not None and count is not None:
                words.append("LIMIT")
                words.append(offset)
                words.append(count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "zrevrangebylex",
                ("name", name, "arg"),
                ("max", max, "arg"),
                ("min", min, "arg"),
                ("offset", offset, "arg"),
                ("count", count, "arg"),
            ) from None
        request: Request[builtins.list[S]] = _request(
            Request,
            ("ZREVRANGEBYLEX", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zrevrangebyscore(
        self, name: Arg, max: float, min: float, *, withscores: bool = False, offset: int | None = None,
        count: int | None = None, timeout: Timeout = UNSET,
    ) -> builtins.list[Any]:
        """ZREVRANGEBYSCORE: Return a range of members in a sorted set, by score, with scores ordered from
        high to low (Redis 2.2.0). Deprecated since Redis 6.2.0: `ZRANGE` with the `REV` and `BYSCORE`
        arguments.
        """
        if (offset is not None or count is not None) and not (offset is not None and count is not None):
            raise TypeError("zrevrangebyscore(): offset, count are given together")
        try:
            words: builtins.list[Arg] = ["ZREVRANGEBYSCORE"]
            words.append(name)
            words.append(max)
            words.append(min)
            if withscores:
                words.append("WITHSCORES")
            if offset is not None and count is not None:
                words.append("LIMIT")
                words.append(offset)
                words.append(count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "zrevrangebyscore",
                ("name", name, "arg"),
                ("max", max, "arg"),
                ("min", min, "arg"),
                ("offset", offset, "arg"),
                ("count", count, "arg"),
            ) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("ZREVRANGEBYSCORE", command, self._scored if withscores else self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zrevrank(
        self, name: Arg, member: Arg, *, timeout: Timeout = UNSET,
    ) -> int | builtins.list[Any] | None:
        """ZREVRANK: Determine the index of a member in a sorted set, with scores ordered from high to low
        (Redis 2.0.0).
        """
        try:
            command = encode_command("ZREVRANK", name, member)
        except TypeError:
            raise _wrong("zrevrank", ("name", name, "arg"), ("member", member, "arg")) from None
        request: Request[int | builtins.list[Any] | None] = _request(
            Request,
            ("ZREVRANK", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zscan(
        self, name: Arg, cursor: int, *, match: Arg | None = None, count: int | None = None,
        timeout: Timeout = UNSET,
    ) -> builtins.list[Any]:
        """ZSCAN: Incrementally iterate sorted sets elements and associated scores (Redis 2.8.0)."""
        try:
            words: builtins.list[Arg] = ["ZSCAN"]
            words.append(name)
            words.append(cursor)
            if match is not None:
                words += ("MATCH", match)
            if count is not None:
                words += ("COUNT", count)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "zscan",
                ("name", name, "arg"),
                ("cursor", cursor, "arg"),
                ("match", match, "arg"),
                ("count", count, "arg"),
            ) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("ZSCAN", command, self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zscore(self, name: Arg, member: Arg, *, timeout: Timeout = UNSET) -> float | None:
        """ZSCORE: Get the score associated with the given member in a sorted set (Redis 1.2.0)."""
        try:
            command = encode_command("ZSCORE", name, member)
        except TypeError:
            raise _wrong("zscore", ("name", name, "arg"), ("member", member, "arg")) from None
        request: Request[float | None] = _request(Request, ("ZSCORE", command, self._value, True, 1, _UNARY))
        if self._cache is not None:
            return self._cached(request, name, timeout)
        return self.request(request, timeout)

    def zunion(
        self, keys: Arg | Sequence[Arg], *, weights: int | Sequence[int] = (),
        aggregate: Literal["SUM", "MIN", "MAX"] | None = None, withscores: bool = False,
        timeout: Timeout = UNSET,
    ) -> builtins.list[Any]:
        """ZUNION: Add multiple sorted sets (Redis 6.2.0)."""
        try:
            words: builtins.list[Arg] = ["ZUNION"]
            words.append(len(_many(keys)))
            words += _many(keys)
            if weights:
                words.append("WEIGHTS")
                words += _many(weights)
            if aggregate is not None:
                words += ("AGGREGATE", aggregate)
            if withscores:
                words.append("WITHSCORES")
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "zunion",
                ("keys", keys, "many"),
                ("weights", weights, "many"),
                ("aggregate", aggregate, "arg"),
            ) from None
        request: Request[builtins.list[Any]] = _request(
            Request,
            ("ZUNION", command, self._scored if withscores else self._value, True, 1, _UNARY),
        )
        return self.request(request, timeout)

    def zunionstore(
        self, destination: Arg, keys: Arg | Sequence[Arg], *, weights: int | Sequence[int] = (),
        aggregate: Literal["SUM", "MIN", "MAX"] | None = None, timeout: Timeout = UNSET,
    ) -> int:
        """ZUNIONSTORE: Add multiple sorted sets and store the resulting sorted set in a new key (Redis
        2.0.0).
        """
        try:
            words: builtins.list[Arg] = ["ZUNIONSTORE"]
            words.append(destination)
            words.append(len(_many(keys)))
            words += _many(keys)
            if weights:
                words.append("WEIGHTS")
                words += _many(weights)
            if aggregate is not None:
                words += ("AGGREGATE", aggregate)
            command = encode_command(*words)
        except (TypeError, AttributeError):
            raise _wrong(
                "zunionstore",
                ("destination", destination, "arg"),
                ("keys", keys, "many"),
                ("weights", weights, "many"),
                ("aggregate", aggregate, "arg"),
            ) from None
        request: Request[int] = _request(Request, ("ZUNIONSTORE", command, self._integer, False, 1, _UNARY))
        return self.request(request, timeout)
