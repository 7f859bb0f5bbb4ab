"""Rebuild ``commands.json`` from a clone of Redis's repository:
``python -m dualio.devtools.redis_spec.vendor /path/to/redis``.

Every command and subcommand of :data:`VERSION` (``src/commands/*.json`` at that tag),
with the reply schema of the same command at :data:`SCHEMAS_FROM` where it has one
(Redis wrote reply schemas from 7.2 on; both releases are BSD-3-Clause, ``COPYING``).
Only what the generator reads is kept."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

VERSION = "7.0.15"
SCHEMAS_FROM = "7.2.6"
KEPT = ("summary", "group", "since", "arity", "container", "command_flags", "doc_flags",
        "acl_categories", "key_specs", "arguments", "deprecated_since", "replaced_by", "command_tips")
HERE = Path(__file__).parent


def _files(repo: Path, tag: str) -> dict[str, dict[str, Any]]:
    listing = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "--name-only", tag, "src/commands/"],
        check=True, capture_output=True, text=True,
    ).stdout.split()
    found: dict[str, dict[str, Any]] = {}
    for path in listing:
        if not path.endswith(".json"):
            continue
        text = subprocess.run(
            ["git", "-C", str(repo), "show", f"{tag}:{path}"], check=True, capture_output=True, text=True
        ).stdout
        ((name, spec),) = json.loads(text).items()
        full = f"{spec['container']} {name}" if "container" in spec else name
        found[full] = spec
    return found


def vendor(repo: Path) -> dict[str, Any]:
    commands = _files(repo, VERSION)
    schemas = _files(repo, SCHEMAS_FROM)
    kept: dict[str, Any] = {}
    for full in sorted(commands):
        spec = {key: commands[full][key] for key in KEPT if key in commands[full]}
        schema = schemas.get(full, {}).get("reply_schema")
        if schema is not None:
            spec["reply_schema"] = schema
        kept[full] = spec
    return {"redis": VERSION, "reply_schemas_from": SCHEMAS_FROM, "commands": kept}


def main() -> None:
    spec = vendor(Path(sys.argv[1]))
    (HERE / "commands.json").write_text(json.dumps(spec, indent=1, sort_keys=True) + "\n")
    print(f"{len(spec['commands'])} commands of Redis {VERSION}")


if __name__ == "__main__":
    main()
