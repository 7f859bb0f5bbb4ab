"""Which Redis commands the server holds: it answers them when data comes or their
timeout passes, so their reply may come at any time, and a connection on which one was
given up cannot be used again (the reply would be taken for a later command's). Which
they are is Redis's command spec's word (:mod:`.command_spec`, generated from it)."""

from __future__ import annotations

from dualio_transports.redis_protocol.command_spec import HELD as HELD
from dualio_transports.redis_protocol.command_spec import HELD_WITH_BLOCK as HELD_WITH_BLOCK
from dualio_transports.redis_protocol.resp import parse


def held(name: str, command: bytes) -> bool:
    """Whether the server holds ``command`` (an encoded command named ``name``, upper case)."""
    if name in HELD:
        return True
    options_from = HELD_WITH_BLOCK.get(name)
    if options_from is None:
        return False
    for option in parse(command)[options_from:]:
        word = option.upper() if isinstance(option, bytes) else b""
        if word == b"BLOCK":
            return True
        if word == b"STREAMS":  # the keys and ids follow, which may be named anything
            return False
    return False
