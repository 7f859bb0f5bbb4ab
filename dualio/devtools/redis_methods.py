"""Generate the Redis commands' methods from Redis's own command spec.

    python -m dualio.devtools.redis_methods          # rewrite the generated files
    python -m dualio.devtools.redis_methods --check  # exit 1 if one differs from the spec's

The spec (``dualio/devtools/redis_spec/commands.json``, Redis 7.0.15's command JSON with
7.2's reply schemas) says each command's arguments, flags and keys. This makes:

- ``dualio/redis/methods.py``: a typed method on the async face for every command and
  subcommand (``client_list``), from which ``dualio/devtools/unasync.py`` makes the
  blocking face's;
- ``transports/redis_protocol/command_spec.py``: what the transports and the faces ask of
  a command: whether the server holds it, whether it may be sent again, and its keys.

Parameters follow the spec's arguments in order, named as redis-py names them: the key as
``name`` (several: ``*keys``), an optional argument introduced by a token as a keyword
named by the token (``ex=``, ``count=``), an optional token alone as a flag (``nx=True``),
pairs as a mapping. :mod:`dualio.devtools.redis_overrides` holds the few names and cases
the spec cannot say. An argument shape this cannot type becomes ``*options`` after the
parameters before it: the rest of the command as Redis spells it.
"""

from __future__ import annotations

import argparse
import difflib
import json
import keyword
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dualio.devtools import redis_overrides as overrides

ROOT = Path(__file__).resolve().parents[2]
SPEC = Path(__file__).parent / "redis_spec" / "commands.json"
METHODS = "dualio/redis/methods.py"
COMMAND_SPEC = "transports/redis_protocol/command_spec.py"

q = json.dumps  # a Python string literal, double-quoted as the rest of dualio writes them

SIMPLE = {"key": "Arg", "string": "Arg", "pattern": "Arg", "integer": "int", "double": "float",
          "unix-time": "int"}


_DURATIONS = {"seconds": "_seconds", "milliseconds": "_milliseconds"}
"""Integer arguments that are a length of time: a ``timedelta`` is taken too."""


class Untypable(Exception):
    """An argument shape the generator does not type: the rest become ``*options``."""


@dataclass
class Param:
    name: str
    annotation: str
    default: str | None = None  # None: required
    star: bool = False  # *name
    keyword: bool = False  # after the *
    checked: str = "arg"  # what _wrong checks it for: arg, duration, many, flat, pairs, rows, flag


@dataclass
class Method:
    command: str  # as Redis names it, "CLIENT LIST"
    name: str
    spec: dict[str, Any]
    params: list[Param] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # the body that builds ``words``
    checks: list[str] = field(default_factory=list)  # local checks, before anything is built
    loose: bool = False  # the rest of the arguments are *args
    held_wait: str | None = None  # the expression of the server's wait, in seconds
    held_when: str | None = None  # held only when this is true (XREAD's BLOCK)

    @property
    def flags(self) -> list[str]:
        return [flag.upper() for flag in self.spec.get("command_flags", [])]


def _python_name(text: str) -> str:
    name = re.sub(r"[^0-9a-zA-Z_]", "_", text).lower().strip("_") or "arg"
    if name[0].isdigit():
        name = "_" + name
    return name + "_" if keyword.iskeyword(name) else name


class Planner:
    """The parameters and body of one command's method, argument by argument."""

    def __init__(self, method: Method):
        self.method = method
        self.used: set[str] = {"self", "timeout", "words", "command", "request", "item", "row"}
        top = method.command.split()[0]
        self.renamed = {**overrides.RENAMED["*"], **overrides.RENAMED.get(top, {}),
                        **overrides.RENAMED.get(method.command, {})}
        self.temp = 0

    def name(self, spec_name: str, wanted: str | None = None) -> str:
        name = (self.renamed.get(spec_name) or self.renamed.get(wanted or "")
                or _python_name(wanted or spec_name))
        if name == "key" and "name" not in self.used:
            name = "name"
        base, n = name, 2
        while name in self.used:
            name, n = f"{base}{n}", n + 1
        self.used.add(name)
        return name

    def add(self, param: Param) -> str:
        self.method.params.append(param)
        return param.name

    def emit(self, line: str, indent: int = 0) -> None:
        self.method.lines.append("    " * indent + line)

    # -- the arguments --------------------------------------------------------------

    def plan(self, arguments: list[dict[str, Any]]) -> None:
        method = self.method
        for index, argument in enumerate(arguments):
            rest = arguments[index + 1:]
            kept = (list(method.params), list(method.lines), list(method.checks), set(self.used),
                    method.held_wait)
            try:
                self.argument(argument, rest)
            except Untypable:
                method.params, method.lines, method.checks, self.used, method.held_wait = kept
                self.loose()
                return

    def loose(self) -> None:
        self.method.loose = True
        self.add(Param("options", "Arg", star=True, checked="many"))
        self.emit("words += options")

    def argument(self, arg: dict[str, Any], rest: list[dict[str, Any]]) -> None:
        kind: str = arg["type"]
        optional: bool = arg.get("optional", False)
        multiple: bool = arg.get("multiple", False)
        token: str | None = arg.get("token")
        later_required = any(not later.get("optional") for later in rest)
        if kind in SIMPLE:
            self.simple(arg, optional, multiple, token, later_required, rest)
        elif kind == "pure-token" and token is not None:
            if optional:
                name = self.name(arg["name"], _python_name(token))
                self.add(Param(name, "bool", "False", keyword=True, checked="flag"))
                self.emit(f"if {name}:")
                self.emit(f"words.append({q(token)})", 1)
            else:
                self.emit(f"words.append({q(token)})")
        elif kind == "oneof":
            self.oneof(arg, optional, multiple)
        elif kind == "block":
            self.block(arg, optional, multiple, token, rest)
        else:
            raise Untypable(kind)

    def simple(
        self, arg: dict[str, Any], optional: bool, multiple: bool, token: str | None, later_required: bool,
        rest: list[dict[str, Any]],
    ) -> None:
        annotation = SIMPLE[arg["type"]]
        if arg["name"] == "numkeys" and rest and rest[0].get("multiple") and rest[0]["type"] == "key":
            self.method.lines.append("NUMKEYS")  # the count of the keys that follow, filled in below
            return
        if self.method.held_wait is None and arg["name"] == "timeout" and "BLOCKING" in self.method.flags:
            name = self.name("wait", "wait")
            self.add(Param(name, "float", keyword=any(p.default is not None for p in self.method.params)))
            self.method.held_wait = name
            self.emit(f"words.append({name})")
            return
        duration = _DURATIONS.get(arg["name"]) if arg["type"] == "integer" else None
        if token is None:
            if not optional and not multiple:
                name = self.name(arg["name"])
                if duration:
                    self.add(Param(name, "int | timedelta", checked="duration"))
                    self.emit(f"words.append({duration}({name}))")
                    return
                self.add(Param(name, annotation))
                self.emit(f"words.append({name})")
            elif not optional:  # one or more
                name = self.name(arg["name"], _plural(arg["name"]))
                if not later_required and not rest:
                    self.add(Param(name, f"{annotation} | Sequence[{annotation}]", star=True, checked="flat"))
                    self.method.checks.append(
                        f'if not {name}:\n            raise TypeError("{self.method.name}() needs at least '
                        f'one {arg["name"]}")'
                    )
                else:
                    self.add(Param(name, f"{annotation} | Sequence[{annotation}]", checked="many"))
                self.fill_numkeys(name)
                star = self.method.params[-1].star
                self.emit(f"words += _flat({name})" if star else f"words += _many({name})")
            elif not multiple:
                if later_required:
                    raise Untypable("an optional argument before a required one")
                name = self.name(arg["name"])
                self.add(Param(name, f"{annotation} | None", "None"))
                self.emit(f"if {name} is not None:")
                self.emit(f"words.append({name})", 1)
            else:  # zero or more
                name = self.name(arg["name"], _plural(arg["name"]))
                if not rest and not any(p.star for p in self.method.params):
                    self.add(Param(name, f"{annotation} | Sequence[{annotation}]", star=True, checked="flat"))
                else:
                    self.add(Param(name, f"{annotation} | Sequence[{annotation}]", "()", checked="many"))
                self.fill_numkeys(name)
                star = self.method.params[-1].star
                self.emit(f"words += _flat({name})" if star else f"words += _many({name})")
            return
        if not optional:
            name = self.name(arg["name"])
            if multiple:
                self.add(Param(name, f"{annotation} | Sequence[{annotation}]", checked="many"))
                self.emit(f"words.append({q(token)})")
                self.emit(f"words += _many({name})")
            else:
                self.add(Param(name, annotation))
                self.emit(f"words += ({q(token)}, {name})")
            return
        name = self.name(arg["name"], _python_name(token) if token.isalnum() else arg["name"])
        if not multiple:
            self.add(Param(name, f"{annotation} | None", "None", keyword=True))
            self.emit(f"if {name} is not None:")
            self.emit(f"words += ({q(token)}, {name})", 1)
            if duration:
                self.method.params[-1].annotation = "int | timedelta | None"
                self.method.params[-1].checked = "duration"
                self.method.lines[-1] = f"    words += ({q(token)}, {duration}({name}))"
        elif arg.get("multiple_token"):
            many = f"{annotation} | Sequence[{annotation}]"
            self.add(Param(name, many, "()", keyword=True, checked="many"))
            self.emit(f"for item in _many({name}):")
            self.emit(f"words += ({q(token)}, item)", 1)
        else:
            many = f"{annotation} | Sequence[{annotation}]"
            self.add(Param(name, many, "()", keyword=True, checked="many"))
            self.emit(f"if {name}:")
            self.emit(f"words.append({q(token)})", 1)
            self.emit(f"words += _many({name})", 1)

    def fill_numkeys(self, name: str) -> None:
        lines = self.method.lines
        if lines and lines[-1] == "NUMKEYS":
            many = "_flat" if self.method.params[-1].star else "_many"
            lines[-1] = f"words.append(len({many}({name})))"

    def oneof(self, arg: dict[str, Any], optional: bool, multiple: bool) -> None:
        choices = arg["arguments"]
        if multiple:
            raise Untypable("several of a oneof")
        token = arg.get("token")
        if token is not None:  # TYPE NORMAL|MASTER|...: the token, then one of the words
            if not optional or not all(choice["type"] == "pure-token" for choice in choices):
                raise Untypable("a choice after a token")
            name = self.name(arg["name"], _python_name(token))
            words = ", ".join(q(choice["token"]) for choice in choices)
            self.add(Param(name, f"Literal[{words}] | None", "None", keyword=True))
            self.emit(f"if {name} is not None:")
            self.emit(f"words += ({q(token)}, {name})", 1)
            return
        if not optional and all(choice["type"] == "pure-token" for choice in choices):
            name = self.name(arg["name"])
            tokens = ", ".join(q(choice["token"]) for choice in choices)
            self.add(Param(name, f"Literal[{tokens}]", checked="arg"))
            self.emit(f"words.append({name})")
            return
        if not optional:
            if any(choice.get("token") and choice["type"] != "pure-token" for choice in choices) or any(
                choice["type"] not in (*SIMPLE, "pure-token") for choice in choices
            ):
                raise Untypable("a required choice of options")
            name = self.name(arg["name"])
            self.add(Param(name, "Arg"))
            self.emit(f"words.append({name})")
            return
        names = []
        for choice in choices:
            token = choice.get("token")
            if choice["type"] == "pure-token":
                name = self.name(choice["name"], _python_name(token) if token.isalnum() else choice["name"])
                self.add(Param(name, "bool", "False", keyword=True, checked="flag"))
                self.emit(f"if {name}:")
                self.emit(f"words.append({q(token)})", 1)
            elif choice["type"] in SIMPLE and token and not choice.get("multiple"):
                name = self.name(choice["name"], _python_name(token) if token.isalnum() else choice["name"])
                duration = _DURATIONS.get(choice["name"]) if choice["type"] == "integer" else None
                annotation = "int | timedelta" if duration else SIMPLE[choice["type"]]
                self.add(Param(name, f"{annotation} | None", "None", keyword=True,
                               checked="duration" if duration else "arg"))
                self.emit(f"if {name} is not None:")
                value = f"{duration}({name})" if duration else name
                self.emit(f"words += ({q(token)}, {value})", 1)
            else:
                raise Untypable("a choice of shapes")
            names.append(name)
        pairs = ", ".join(f'("{name}", {name})' for name in names)
        self.method.checks.append(f'_one_of("{self.method.name}", {pairs})')

    def block(
        self, arg: dict[str, Any], optional: bool, multiple: bool, token: str | None,
        rest: list[dict[str, Any]],
    ) -> None:
        parts = arg["arguments"]
        simple = all(part["type"] in SIMPLE and not part.get("optional") for part in parts)
        if not optional and not multiple:
            if token:
                self.emit(f"words.append({q(token)})")
            if len(parts) == 2 and all(part.get("multiple") and part["type"] in SIMPLE for part in parts):
                name = self.name(arg["name"])
                self.add(Param(name, "Mapping[Arg, Arg]", checked="pairs"))
                self.emit(f"words += {name}.keys()")
                self.emit(f"words += {name}.values()")
                return
            for index, part in enumerate(parts):
                self.argument(part, parts[index + 1:] + rest)
            return
        if multiple and not optional and not token and simple:
            name = self.name(arg["name"])
            also = overrides.PAIR_ALSO.get(self.method.command)
            if also is not None and len(parts) == 2:
                key, value = (self.name(word) for word in also)
                self.add(Param(key, "Arg | None", "None"))
                self.add(Param(value, "Arg | None", "None"))
                self.add(Param(name, "Mapping[Arg, Arg] | None", "None", keyword=True, checked="pairs"))
                self.method.checks.append(
                    f"if (key is None) != (value is None) or (key is None and not {name}):\n"
                    f'            raise TypeError("{self.method.name}() needs key and value, or {name}")'
                )
                self.emit(f"if {key} is not None and {value} is not None:")
                self.emit(f"words += ({key}, {value})", 1)
                self.emit(f"if {name}:")
                self.emit(f"for pair_key, pair_value in {name}.items():", 1)
                self.emit("words += (pair_key, pair_value)", 2)
                return
            if len(parts) == 2:
                self.add(Param(name, "Mapping[Arg, Arg]", checked="pairs"))
                first, second = ("pair_value", "pair_key") if self.method.command in overrides.VALUE_FIRST \
                    else ("pair_key", "pair_value")
                self.emit(f"for pair_key, pair_value in {name}.items():")
                self.emit(f"words += ({first}, {second})", 1)
                self.method.checks.append(
                    f'if not {name}:\n            raise TypeError("{self.method.name}() needs at least one '
                    f'pair in {name}")'
                )
            else:
                self.add(Param(name, f"Sequence[tuple[{', '.join('Arg' for _ in parts)}]]", checked="rows"))
                self.emit(f"for row in {name}:")
                self.emit("words += row", 1)
            return
        if optional and not multiple and token and simple:
            names = [self.name(part["name"]) for part in parts]
            for name, part in zip(names, parts, strict=True):
                annotation = SIMPLE[part["type"]]
                if part.get("multiple"):
                    annotation = f"{annotation} | Sequence[{annotation}]"
                self.add(Param(name, f"{annotation} | None", "None", keyword=True,
                               checked="many" if part.get("multiple") else "arg"))
            if len(names) > 1:
                given = " or ".join(f"{name} is not None" for name in names)
                every = " and ".join(f"{name} is not None" for name in names)
                self.method.checks.append(
                    f'if ({given}) and not ({every}):\n            raise TypeError("{self.method.name}(): '
                    f'{", ".join(names)} are given together")'
                )
            self.emit("if " + " and ".join(f"{name} is not None" for name in names) + ":")
            self.emit(f"words.append({q(token)})", 1)
            for name, part in zip(names, parts, strict=True):
                self.emit(f"words += _many({name})" if part.get("multiple") else f"words.append({name})", 1)
            return
        if optional and not multiple and not token:
            self.optional_block(arg)
            return
        raise Untypable("a block")

    def optional_block(self, arg: dict[str, Any], depth: int = 1) -> None:
        """An optional group without a token of its own (XADD's trimming, BITPOS's
        ``[start [end [BYTE|BIT]]]``): each part a keyword, sent when the group's first
        required part is given (a group inside it, when its own is)."""
        start = len(self.method.lines)
        trigger = None
        for part in arg["arguments"]:
            token = part.get("token")
            if part["type"] == "oneof" and all(c["type"] == "pure-token" for c in part["arguments"]):
                if not part.get("optional"):
                    name = self.name(part["name"])
                    tokens = ", ".join(q(c["token"]) for c in part["arguments"])
                    self.add(Param(name, f"Literal[{tokens}] | None", "None", keyword=True))
                    trigger = trigger or name
                    self.emit(f"words.append({name})", depth)
                else:
                    self.oneof_indented(part, depth)
            elif part["type"] == "pure-token" and part.get("optional"):
                name = self.name(part["name"], _python_name(token) if token and token.isalnum() else None)
                self.add(Param(name, "bool", "False", keyword=True, checked="flag"))
                self.emit(f"if {name}:", depth)
                self.emit(f"words.append({q(token)})", depth + 1)
            elif part["type"] == "block" and part.get("optional") and not part.get("token") \
                    and not part.get("multiple"):
                self.optional_block(part, depth + 1)
            elif part["type"] in SIMPLE and not part.get("multiple"):
                wanted = _python_name(token) if token and part.get("optional") else None
                name = self.name(part["name"], wanted)
                self.add(Param(name, f"{SIMPLE[part['type']]} | None", "None", keyword=True))
                sent = f"words += ({q(token)}, {name})" if token else f"words.append({name})"
                if part.get("optional") or trigger is not None:
                    self.emit(f"if {name} is not None:", depth)
                    self.emit(sent, depth + 1)
                else:
                    trigger = name
                    self.emit(sent, depth)
            else:
                raise Untypable("a part of an optional group")
        if trigger is None:
            raise Untypable("an optional group with nothing required")
        self.method.lines.insert(start, "    " * (depth - 1) + f"if {trigger} is not None:")

    def oneof_indented(self, part: dict[str, Any], depth: int = 1) -> None:
        names = []
        for choice in part["arguments"]:
            name = self.name(choice["name"])
            self.add(Param(name, "bool", "False", keyword=True, checked="flag"))
            self.emit(f"if {name}:", depth)
            self.emit(f"words.append({q(choice['token'])})", depth + 1)
            names.append(name)
        pairs = ", ".join(f'("{name}", {name})' for name in names)
        self.method.checks.append(f'_one_of("{self.method.name}", {pairs})')


def _plural(name: str) -> str:
    name = _python_name(name)
    return name if name.endswith("s") else name + "s"


# -- replies --------------------------------------------------------------------------


def reply(schema: dict[str, Any] | None, group: str = "") -> tuple[str, str]:
    """The return annotation and the decoder of a reply schema (a command of ``group``)."""
    if schema is None:
        return "Any", "self._value"
    if group == "set" and schema.get("type") == "array" and schema.get("uniqueItems"):
        inner = _annotation(schema["items"]) if isinstance(schema.get("items"), dict) else "Any"
        return f"builtins.set[{inner if ' | ' not in inner else 'Any'}]", "self._members"
    alternatives = schema.get("anyOf") or schema.get("oneOf") or []
    if sorted(str(alternative.get("const")) for alternative in alternatives) == ["0", "1"]:
        return "bool", "self._flag"  # 1 or 0: yes or no
    annotation = _annotation(schema)
    decoder = {
        "S | None": "self._string", "S": "self._string", "int": "self._integer", "float": "self._number",
        "bool": "self._okay", "int | None": "self._value",
    }.get(annotation)
    if decoder is None:
        if annotation.startswith("builtins.dict["):
            decoder = "self._mapping"
        elif annotation.startswith("builtins.set["):
            decoder = "self._members"
        else:
            decoder = "self._value"
    return annotation, decoder


def _annotation(schema: dict[str, Any]) -> str:
    if "const" in schema:
        const = schema["const"]
        return "bool" if const == "OK" else "int" if isinstance(const, int) else "S"
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if alternatives:
        kinds = []
        for alternative in alternatives:
            kind = _annotation(alternative)
            if kind not in kinds:
                kinds.append(kind)
        if "Any" in kinds or len(kinds) > 3:
            return "Any"
        if "None" in kinds:  # last, as the rest of dualio writes it
            kinds = [kind for kind in kinds if kind != "None"] + ["None"]
        return " | ".join(kinds)
    shape = schema.get("type")
    if shape == "string":
        return "S"
    if shape == "integer":
        return "int"
    if shape == "number":
        return "float"
    if shape == "null":
        return "None"
    if shape == "array":
        items = schema.get("items")
        inner = _annotation(items) if isinstance(items, dict) else "Any"
        if " | " in inner and inner != "S | None":
            inner = "Any"
        return f"builtins.list[{inner}]"  # uniqueItems: RESP3 sends a set only where the group is sets
    if shape == "object":
        values = schema.get("additionalProperties")
        inner = _annotation(values) if isinstance(values, dict) else "Any"
        if " | " in inner:
            inner = "Any"
        return f"builtins.dict[S, {inner}]" if "properties" not in schema else "builtins.dict[S, Any]"
    return "Any"


# -- one method -------------------------------------------------------------------------


def idempotent(spec: dict[str, Any]) -> bool:
    """Whether a command lost with its connection may be sent again: the spec marks it
    read-only, or every key it names is overwritten or removed whole (OW, RM)."""
    flags = {flag.upper() for flag in spec.get("command_flags", [])}
    if "READONLY" in flags:
        return True
    specs = spec.get("key_specs", [])
    return bool(specs) and "WRITE" in flags and all(
        {"OW", "RM"} & {flag.upper() for flag in key["flags"]} for key in specs
    )


def held(command: str, spec: dict[str, Any]) -> bool:
    return "BLOCKING" in {flag.upper() for flag in spec.get("command_flags", [])} or command in overrides.HELD


def method_name(command: str) -> str:
    return overrides.METHOD_NAMES.get(command) or _python_name(command.replace(" ", "_"))


def plan(command: str, spec: dict[str, Any]) -> Method:
    method = Method(command, method_name(command), spec)
    words = command.split()
    method.lines.append(f"words: builtins.list[Arg] = [{', '.join(q(word) for word in words)}]")
    planner = Planner(method)
    planner.plan(spec.get("arguments", []))
    if held(command, spec) and method.held_wait is None:
        block = next((p.name for p in method.params if p.name == "block"), None)
        if block is not None:  # XREAD's BLOCK milliseconds
            method.held_when = f"{block} is not None"
            method.held_wait = f"_milliseconds({block}) / 1000"
        elif command == "WAIT":
            method.held_wait = next(p.name for p in method.params if p.name == "server_timeout") + " / 1000"
    _reorder(method)
    return method


def _reorder(method: Method) -> None:
    """Positional parameters in redis-py's order (:data:`overrides.ORDER`), with their
    defaults (:data:`overrides.DEFAULTS`); what follows a defaulted one is a keyword."""
    top = method.command.split()[0]
    for param in method.params:
        default = overrides.DEFAULTS.get(top, {}).get(param.name)
        if default is not None:
            param.default = default
    order = overrides.ORDER.get(top)
    if order:
        placed = [next(p for p in method.params if p.name == name) for name in order]
        method.params = placed + [p for p in method.params if p not in placed]
    defaulted = False
    for param in method.params:
        if param.star:
            defaulted = True
            continue
        if defaulted and param.default is None:
            param.keyword = True
        if param.default is not None and not param.keyword:
            defaulted = True


def _signature(method: Method, returns: str) -> str:
    positional = [p for p in method.params if not p.keyword and not p.star]
    star = [p for p in method.params if p.star]
    keywords = [p for p in method.params if p.keyword and not p.star]
    parts = ["self"]
    for param in positional:
        parts.append(f"{param.name}: {param.annotation}" + (f" = {param.default}" if param.default else ""))
    if star:
        parts.append(f"*{star[0].name}: {star[0].annotation}")
    else:
        parts.append("*")
    for param in keywords:
        parts.append(f"{param.name}: {param.annotation}" + (f" = {param.default}" if param.default else ""))
    parts.append("timeout: Timeout = UNSET")
    head = f"    async def {method.name}("
    one_line = head + ", ".join(parts) + f") -> {returns}:"
    if len(one_line) <= 110:
        return one_line
    lines, line = [head.rstrip("(") + "("], "        "
    for part in parts:
        piece = part + ", "
        if len(line) + len(piece) > 108:
            lines.append(line.rstrip())
            line = "        "
        line += piece
    lines.append(line.rstrip())
    lines.append(f"    ) -> {returns}:")
    return "\n".join(lines)


def _doc(method: Method) -> str:
    spec = method.spec
    text = spec.get("summary", method.command).rstrip(".")
    text = f"{method.command}: {text} (Redis {spec.get('since', '?')})."
    if method.loose:
        text += " The arguments after the typed ones are given as Redis spells them."
    if "deprecated_since" in spec:
        text += f" Deprecated since Redis {spec['deprecated_since']}"
        text += f": {spec['replaced_by']}." if "replaced_by" in spec else "."
    words, lines, line = text.replace('"', "'").replace("\\", "/").split(), [], ""
    for word in words:
        if len(line) + len(word) + 1 > 96:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    if len(lines) == 1:
        return f'        """{lines[0]}"""'
    return '        """' + "\n        ".join(lines) + '\n        """'


def _fit(indent: int, head: str, items: list[str], tail: str) -> list[str]:
    """``head(items)tail`` on one line when it fits, else one item a line."""
    pad = "    " * indent
    line = f"{pad}{head}({', '.join(items)}){tail}"
    if len(line) <= 110:
        return [line]
    return [f"{pad}{head}(", *(f"{pad}    {item}," for item in items), f"{pad}){tail}"]


def render(method: Method) -> str:
    returns, decoder = overrides.DECODERS.get(method.command) or reply(
        method.spec.get("reply_schema"), method.spec.get("group", ""))
    command = method.command
    retry = idempotent(method.spec)
    out = [_signature(method, returns), _doc(method)]
    valued = [p for p in method.params if p.checked != "flag"]
    wrong = [q(method.name), *(f'("{p.name}", {p.name}, "{p.checked}")' for p in valued)]
    simple = not method.checks and all(
        line.startswith(("words: ", "words.append(")) and "(len" not in line for line in method.lines
    ) and method.held_wait is None
    name = "command"
    if simple:
        words = [q(word) for word in command.split()]
        values = [line[len("words.append("):-1] for line in method.lines[1:]]
        out.append("        try:")
        out += _fit(3, "command = encode_command", words + values, "")
        out.append("        except TypeError:")
    else:
        out.extend("        " + check for check in method.checks)
        out.append("        try:")
        out.extend("            " + line for line in method.lines)
        out.append("            command = encode_command(*words)")
        out.append("        except (TypeError, AttributeError):")
    out += _fit(3, "raise _wrong", wrong, " from None")
    request = f"({q(command)}, {name}, {decoder}, {retry}, 1, _UNARY)"
    out += _fit(2, f"request: Request[{returns}] = _request", ["Request", request], "")
    if command in overrides.CACHEABLE:
        key = next(p.name for p in method.params if p.name == "name")
        out.append("        if self._cache is not None:")
        out.append(f"            return await self._cached(request, {key}, timeout)")
    if method.held_wait is not None:
        call = f"return await self._held_command(request, {method.held_wait}, timeout)"
        if method.held_when:
            out.append(f"        if {method.held_when}:")
            out.append(f"            {call}")
        else:
            out.append(f"        {call}")
    out.append("        return await self.request(request, timeout)")
    return "\n".join(out)


# -- the files ---------------------------------------------------------------------------


def load() -> dict[str, Any]:
    spec: dict[str, Any] = json.loads(SPEC.read_text())
    return spec


def commands(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The commands a Redis server runs, by name: a container's subcommands, not the
    container itself; Sentinel's left out."""
    every = spec["commands"]
    containers = {name.split()[0] for name in every if " " in name}
    return {
        name: command for name, command in every.items()
        if name not in containers and command.get("group") not in overrides.GROUPS_LEFT_OUT
    }


def methods_file(spec: dict[str, Any]) -> str:
    rendered = []
    for command, details in commands(spec).items():
        if command in overrides.HAND_WRITTEN or command.split()[0] in overrides.HAND_WRITTEN:
            continue
        rendered.append(render(plan(command, details)))
    header = f'''"""Every command of Redis {spec["redis"]} a method of the async face, typed from Redis's own
command spec (dualio/devtools/redis_spec/).

GENERATED by dualio/devtools/redis_methods.py: do not edit. Run ``make generate``.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Literal

from dualio.redis.method_support import (
    Arg,
    AsyncMethodSupport,
    S,
    Timeout,
    _flat,
    _many,
    _milliseconds,
    _one_of,
    _request,
    _seconds,
    _UNARY,
    _wrong,
)
from dualio.toolkit import UNSET, Request
from dualio_transports.redis_protocol.resp import encode_command


class AsyncMethods(AsyncMethodSupport[S]):
    """The commands of Redis {spec["redis"]}, one method each; every one takes ``timeout=``."""

'''
    return header + "\n\n".join(rendered) + "\n"


def command_spec_file(spec: dict[str, Any]) -> str:
    every = commands(spec)
    held_always = sorted({name for name, c in every.items() if held(name, c) and not _block_arg(c)}
                         | overrides.HELD)
    with_block = {name: _options_from(c) for name, c in every.items() if held(name, c) and _block_arg(c)}
    readonly = sorted(name for name, c in every.items() if idempotent(c))
    reads = sorted(name for name, c in every.items()
                   if "READONLY" in {flag.upper() for flag in c.get("command_flags", [])}
                   and c.get("key_specs"))
    keys = {name: tuple(_key_spec(k) for k in c.get("key_specs", [])) for name, c in every.items()
            if c.get("key_specs")}
    requests, responses = _policies(every, "REQUEST_POLICY:"), _policies(every, "RESPONSE_POLICY:")
    lines = [
        f'"""What the faces and transports ask of a Redis {spec["redis"]} command, from Redis\'s command',
        "spec (dualio/devtools/redis_spec/).",
        "",
        "GENERATED by dualio/devtools/redis_methods.py: do not edit. Run ``make generate``.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        f'REDIS = "{spec["redis"]}"',
        "HELD = frozenset({",
        *[f"    {q(name)}," for name in held_always],
        "})",
        '"""Commands the server holds: it answers when data comes or their wait is over."""',
        "HELD_WITH_BLOCK = {" + ", ".join(f"{q(k)}: {v}" for k, v in sorted(with_block.items())) + "}",
        '"""Commands the server holds when given ``BLOCK``: where their options begin."""',
        "RETRIED = frozenset({",
        *[f"    {q(name)}," for name in readonly],
        "})",
        '"""Commands that may be sent again after a lost connection: read-only, or every key',
        'they name overwritten or removed whole."""',
        "READ_ONLY = frozenset({",
        *[f"    {q(name)}," for name in reads],
        "})",
        '"""Commands that only read the keys they name (the spec\'s READONLY flag): what a',
        'cluster replica may answer."""',
        "REQUEST_POLICY = {",
        *[f"    {q(name)}: {q(policy)}," for name, policy in sorted(requests.items())],
        "}",
        '"""Where a cluster client sends a command, by the spec\'s tip: ``all_shards`` (every',
        "primary), ``all_nodes`` (every node), ``multi_shard`` (its keys' slots, a part each),",
        '``special``; a command not here goes to the node of its keys\' slot, or any."""',
        "RESPONSE_POLICY = {",
        *[f"    {q(name)}: {q(policy)}," for name, policy in sorted(responses.items())],
        "}",
        '"""How a cluster client joins the answers of a command sent to several nodes, by the',
        "spec's tip: ``agg_sum``, ``agg_min``, ``agg_logical_and`` (element by element),",
        "``all_succeeded`` (an answer, once all succeeded), ``one_succeeded``, ``special``;",
        'a command not here: its answers\' items, joined."""',
        "KEY_SPECS: dict[str, tuple[tuple[str, int | str, int, str, int, int, int], ...]] = {",
        *[line for name, value in sorted(keys.items()) for line in _key_lines(name, value)],
        "}",
        '"""Where a command\'s keys are: (``index`` and the position, or ``keyword``, the word',
        "to look for and where the search starts (from the end if negative), after which",
        "``find_keys`` starts; ``range`` with last key, step, limit, or ``keynum`` with where",
        'the count is, where the first key is, step)."""',
    ]
    return "\n".join(lines) + "\n"


def _policies(every: dict[str, dict[str, Any]], prefix: str) -> dict[str, str]:
    """Each command's tip that starts with ``prefix``, lower-cased without it."""
    return {name: tip[len(prefix):].lower() for name, c in every.items()
            for tip in c.get("command_tips", []) if tip.startswith(prefix)}


def _key_lines(name: str, specs: tuple[tuple[str, int | str, int, str, int, int, int], ...]) -> list[str]:
    items = [_spec_text(spec) for spec in specs]
    line = f"    {q(name)}: ({', '.join(items)}{',' if len(items) == 1 else ''}),"
    if len(line) <= 110:
        return [line]
    return [f"    {q(name)}: (", *(f"        {item}," for item in items), "    ),"]


def _spec_text(spec: tuple[str, int | str, int, str, int, int, int]) -> str:
    return "(" + ", ".join(q(part) if isinstance(part, str) else str(part) for part in spec) + ")"


def _block_arg(spec: dict[str, Any]) -> bool:
    return any(arg.get("token") == "BLOCK" for arg in spec.get("arguments", []))


def _options_from(spec: dict[str, Any]) -> int:
    """Where a command's options begin: after its name and the arguments it must have."""
    position = 1
    for arg in spec.get("arguments", []):
        if arg.get("optional"):
            break
        position += (1 if arg.get("token") else 0) + (len(arg["arguments"]) if arg["type"] == "block" else 1)
    return position


def _key_spec(key: dict[str, Any]) -> tuple[str, int | str, int, str, int, int, int]:
    begin, find = key["begin_search"], key["find_keys"]
    if "index" in begin:
        start: tuple[str, int | str, int] = ("index", begin["index"]["pos"], 0)
    elif "keyword" in begin:
        start = ("keyword", begin["keyword"]["keyword"], begin["keyword"]["startfrom"])
    else:
        start = ("unknown", 0, 0)
    if "range" in find:
        r = find["range"]
        return (*start, "range", r["lastkey"], r["step"], r["limit"])
    if "keynum" in find:
        k = find["keynum"]
        return (*start, "keynum", k["keynumidx"], k["firstkey"], k["step"])
    return (*start, "unknown", 0, 0, 0)


def _formatted(text: str, path: str) -> str:
    """``text`` as ruff formats imports (sorted), so the check compares like with like."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", "I", "--fix", "--quiet",
         "--stdin-filename", path, "-"],
        input=text, capture_output=True, text=True, cwd=ROOT,
    )
    return done.stdout if done.returncode == 0 and done.stdout else text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, don't write")
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args(argv)
    spec = load()
    failed = False
    for path, text in ((METHODS, methods_file(spec)), (COMMAND_SPEC, command_spec_file(spec))):
        text = _formatted(text, path)
        target = args.root / path
        current = target.read_text() if target.exists() else ""
        if current == text:
            continue
        if args.check:
            diff = difflib.unified_diff(text.splitlines(keepends=True), current.splitlines(keepends=True),
                                        f"{path} (as generated)", f"{path} (on disk)", n=1)
            sys.stderr.write("".join(list(diff)[:60]))
            print(f"{path} differs from what the spec generates: run make generate", file=sys.stderr)
            failed = True
        else:
            target.write_text(text)
            print(f"wrote {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
