"""Generate a blocking face from an async one, for your protocol as for dualio's own.

    python -m dualio.unasync                      # [tool.dualio.unasync] of ./pyproject.toml
    python -m dualio.unasync --config unasync.toml --check

The configuration names the files and, optionally, rules of your own, applied before
:data:`RULES` (whole-word regular expressions, multi-line)::

    [tool.dualio.unasync]
    files = {"mylib/aio.py" = "mylib/sync.py"}     # source -> generated, from the config's folder
    rules = [['\\bAsyncMyClient\\b', "MyClient"]]

:data:`RULES` turn ``dualio.toolkit`` into ``dualio_sync.toolkit`` (``AsyncFace`` into
``Face``), remove ``async``/``await``, and make the async protocols their blocking twins
(``__aenter__``, ``AsyncIterator``, ``aclose``...). A generated file starts with its
source's docstring and says it is generated. ``--check`` writes nothing and fails when a
generated file differs from what its source makes, when a rule of yours matches nothing
(the sources changed shape), or when a class comes out of the rules unchanged: nothing in
it is async, so it is a type both faces share, and a copy per face would be two types
(``isinstance`` fails across faces); keep it in a module both faces import.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import re
import sys
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

Substitutions = list[tuple[str, str]]

RULES: Substitutions = [
    (r"\bfrom dualio\.toolkit\b", "from dualio_sync.toolkit"),
    (r"\bimport dualio\.toolkit\b", "import dualio_sync.toolkit"),
    (r"\bAsyncFace\b", "Face"),
    (r"\bAsyncDedicated\b", "Dedicated"),
    (r"\n +\*\*async_only: Unpack\[AsyncOnly\],", ""),
    (r" \*\*async_only: Unpack\[AsyncOnly\],", ""),
    (r", \*\*async_only", ""),
    (r"\bAsyncOnly, ", ""),
    (r"^    AsyncOnly,\n", ""),
    (r"^from typing import Unpack\n", ""),
    (r", Unpack\b", ""),
    (r"\bUnpack, ", ""),
    (r'\bTransportName = "native"', 'TransportName = "blocking"'),
    (r"\bawait (\w+)\.aclose\(\)", r"\1.close()"),
    (r"\basync for\b", "for"),
    (r"\basync with\b", "with"),
    (r"\basync def\b", "def"),
    (r"\bawait ", ""),
    (r"\b__aenter__\b", "__enter__"),
    (r"\b__aexit__\b", "__exit__"),
    (r"\b__aiter__\b", "__iter__"),
    (r"\b__anext__\b", "__next__"),
    (r"\baclose\b", "close"),
    (r"\bStopAsyncIteration\b", "StopIteration"),
    (r"\bAsyncGenerator\[(.+?), None\]", r"Generator[\1, None, None]"),
    (r"\bAsyncGenerator\b", "Generator"),
    (r"\bAsyncIterator\b", "Iterator"),
    (r"\bAsyncIterable\b", "Iterable"),
    (r"\bAwaitable\[(\w+)\]", r"\1"),
]
"""What every blocking face needs changed from its async source, whatever the protocol."""

_DOCSTRING = re.compile(r'\A(?:#.*\n)*"""(.*?)"""\n', re.DOTALL)


@dataclass
class Plan:
    """What to generate: source -> target paths, and the rules, in the order applied."""

    files: dict[Path, Path]
    rules: Substitutions
    own_rules: Substitutions = field(default_factory=list)
    """The rules that must each match something (an author's, or a project's own)."""
    docstring: Callable[[Path, str], str] | None = None
    """The generated file's docstring, from its source's path and (rewritten) docstring."""


def load(config: Path) -> Plan:
    """The plan in ``config`` (a TOML file whose ``[tool.dualio.unasync]`` table names the files)."""
    try:
        table = tomllib.loads(config.read_text())["tool"]["dualio"]["unasync"]
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError) as exc:
        raise SystemExit(f"{config}: no [tool.dualio.unasync] table ({type(exc).__name__}: {exc})") from exc
    files, rules = table.get("files"), table.get("rules", [])
    if not isinstance(files, dict) or not files or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in files.items()
    ):
        raise SystemExit(f"{config}: files must map each source path to its generated path")
    if not isinstance(rules, list) or not all(
        isinstance(r, list) and len(r) == 2 and all(isinstance(x, str) for x in r) for r in rules
    ):
        raise SystemExit(f"{config}: rules must be [pattern, replacement] pairs of strings")
    for pattern, _ in rules:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise SystemExit(f"{config}: the rule {pattern!r} is not a regular expression: {exc}") from exc
    base = config.resolve().parent
    own = [(p, r) for p, r in rules]
    return Plan({base / s: base / t for s, t in files.items()}, own + RULES, own)


def generate(source: str, rules: Substitutions, docstring: str | None = None) -> tuple[str, set[str]]:
    """The blocking twin of ``source`` and the rules that matched in it. Its docstring is
    ``docstring`` if given, else the source's own, rewritten."""
    found = _DOCSTRING.match(source)
    if found is None:
        raise SystemExit("a source must start with a module docstring")
    body = source[found.end():]
    used = set()
    text = found.group(1)
    for pattern, replacement in rules:
        body, count = re.subn(pattern, replacement, body, flags=re.MULTILINE)
        text, also = re.subn(pattern, replacement, text, flags=re.MULTILINE)
        if count or also:
            used.add(pattern)
    if docstring is None:
        docstring = f'"""{text.rstrip()}\n\nGENERATED by python -m dualio.unasync: do not edit.\n"""\n'
    body = _ALL.sub(_sorted_all, body)
    body = _IMPORTED_ON_ONE_LINE.sub(_sorted_line, body)
    return docstring + _IMPORTED.sub(_sorted_imports, body), used


_ALL = re.compile(r"^__all__ = \[\n((?:    \"\w+\",\n)+)\]", re.MULTILINE)
_IMPORTED = re.compile(r"^(from [\w.]+ import \(\n)((?:    \w+,\n)+)\)", re.MULTILINE)
_IMPORTED_ON_ONE_LINE = re.compile(r"^( *from [\w.]+ import )((?:\w+, )+\w+)$", re.MULTILINE)


def _key(line: str) -> tuple[int, list[int | str]]:
    """Where a name goes in a sorted list, as the linter sorts it (isort-style: CONSTANTS,
    then Classes, then the rest, each in natural order)."""
    name = line.strip().strip('",')
    kind = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return kind, [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _sorted_all(found: re.Match[str]) -> str:
    """An ``__all__`` whose names a rule renamed, sorted again."""
    return "__all__ = [\n" + "".join(sorted(found.group(1).splitlines(keepends=True), key=_key)) + "]"


def _import_key(line: str) -> tuple[int, list[int | str], str]:
    """Where an imported name goes, as the linter sorts imports: CONSTANTS (two letters or
    more), Classes, the rest, each in natural order, case aside."""
    name = line.strip().strip(",")
    kind = 0 if len(name) > 1 and name.isupper() else 1 if name[:1].isupper() else 2
    return kind, [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name.lower())], name


def _sorted_line(found: re.Match[str]) -> str:
    """An import of several names on one line, some renamed, sorted again."""
    return found.group(1) + ", ".join(sorted(found.group(2).split(", "), key=_import_key))


def _sorted_imports(found: re.Match[str]) -> str:
    """An import of several names, one a line, some renamed, sorted again."""
    return found.group(1) + "".join(sorted(found.group(2).splitlines(keepends=True), key=_import_key)) + ")"


def split_types(source: str, generated: str) -> list[str]:
    """Module-level classes of ``source`` that the rules left unchanged: the same type,
    copied into each face."""
    def classes(text: str) -> dict[str, str]:
        tree = ast.parse(text)
        return {node.name: ast.get_source_segment(text, node) or "" for node in tree.body
                if isinstance(node, ast.ClassDef)}

    theirs = classes(generated)
    return sorted(name for name, text in classes(source).items() if theirs.get(name) == text)


def run(plan: Plan, *, check: bool, root: Path | None = None, out: Callable[[str], None] = print) -> int:
    """Generate (or, with ``check``, compare) every file of ``plan``; 1 if anything failed."""
    failed = False
    used: set[str] = set()
    for source_path, target_path in plan.files.items():
        name = _shown(source_path, root)
        try:
            source = source_path.read_text()
        except OSError as exc:
            _error(f"{name}: cannot be read ({exc})")
            failed = True
            continue
        docstring = None if plan.docstring is None else plan.docstring(source_path, source)
        generated, matched = generate(source, plan.rules, docstring)
        used |= matched
        for split in split_types(source, generated):
            _error(f"{name}: class {split} comes out of the rules unchanged: a type both faces share "
                   "belongs in a module both import, or each face has its own type")
            failed = True
        current = target_path.read_text() if target_path.exists() else ""
        if current == generated:
            continue
        target = _shown(target_path, root)
        if check:
            diff = difflib.unified_diff(
                generated.splitlines(keepends=True), current.splitlines(keepends=True),
                f"{target} (as generated)", f"{target} (on disk)",
            )
            sys.stderr.write("".join(diff))
            _error(f"{target} differs from what {name} generates: edit the source and generate again")
            failed = True
        else:
            target_path.parent.mkdir(parents=True, exist_ok=True)
            target_path.write_text(generated)
            out(f"wrote {target}")
    for pattern in _unused(plan.own_rules, used):
        _error(f"the rule {pattern!r} matched nothing in any source")
        failed = True
    return 1 if failed else 0


def _unused(rules: Iterable[tuple[str, str]], used: set[str]) -> list[str]:
    return [pattern for pattern, _ in rules if pattern not in used]


def _shown(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return str(path.relative_to(root))
        except ValueError:
            pass
    return str(path)


def _error(text: str) -> None:
    print(text, file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dualio.unasync", description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=Path("pyproject.toml"),
                        help="a TOML file with a [tool.dualio.unasync] table (default: ./pyproject.toml)")
    parser.add_argument("--check", action="store_true", help="compare, don't write")
    args = parser.parse_args(argv)
    plan = load(args.config)
    return run(plan, check=args.check, root=args.config.resolve().parent)


if __name__ == "__main__":
    raise SystemExit(main())
