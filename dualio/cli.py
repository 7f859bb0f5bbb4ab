"""The ``dualio`` command: ``bench`` runs the lab, ``serve`` the server, ``demo`` a first contact."""

from __future__ import annotations

import argparse
import os
import ssl
import sys
from collections.abc import Sequence

from dualio.server.config import (
    DEFAULT_BACKLOG,
    DEFAULT_HANDSHAKE_TIMEOUT,
    DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_IN_FLIGHT,
    DEFAULT_MAX_IN_FLIGHT_BYTES,
    DEFAULT_WRITE_BUFFER_HIGH,
    MAX_WORKERS,
    SEQUENTIAL_BACKLOG,
    check_workers,
)
from dualio_transports.dualio_protocol.frames import DEFAULT_MAX_FRAME_SIZE
from dualio_transports.version import VERSION


def _parser(lab: bool = True) -> argparse.ArgumentParser:
    """The command line; ``lab=False`` leaves out the lab's own options, whose modules a
    server started a hundred times over (tests, the lab itself) need not import."""
    parser = argparse.ArgumentParser(prog="dualio", description=__doc__)
    parser.add_argument("--version", action="version", version=f"dualio {VERSION}")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the reference server until SIGINT/SIGTERM")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=7878, help="0 picks a free port")
    serve.add_argument("--model", choices=("async", "threaded", "sequential"), default="async",
                       help="async: one event loop for all connections; threaded: a thread per "
                            "connection; sequential: one connection at a time, the others wait "
                            "in the listen backlog (default %(default)s)")
    serve.add_argument("--loop", choices=("asyncio", "uvloop"), default="asyncio",
                       help="the async model's event loop; uvloop needs the uvloop package "
                            "(default %(default)s)")
    serve.add_argument("--token", default=None,
                       help="refuse clients without this token (a command line shows in ps: prefer "
                            f"--token-file or ${TOKEN_VARIABLE})")
    serve.add_argument("--token-file", default=None,
                       help="read the token from this file (its first line)")
    serve.add_argument("--max-frame-size", type=int, default=DEFAULT_MAX_FRAME_SIZE)
    serve.add_argument("--handshake-timeout", type=float, default=DEFAULT_HANDSHAKE_TIMEOUT,
                       help="seconds from accept to a completed handshake, TLS included "
                            "(default %(default)s)")
    serve.add_argument("--idle-timeout", type=float, default=DEFAULT_IDLE_TIMEOUT,
                       help="close a connection idle (nothing received, nothing in flight) or "
                            "not reading its answers for this long; 0 = never (default %(default)s)")
    serve.add_argument("--backlog", type=int, default=None,
                       help="listen backlog: connections the kernel queues until accepted "
                            f"(default {SEQUENTIAL_BACKLOG} for --model sequential, as "
                            f"socketserver.TCPServer; {DEFAULT_BACKLOG} otherwise)")
    serve.add_argument("--max-connections", type=int, default=DEFAULT_MAX_CONNECTIONS,
                       help="open connections; more are refused with BUSY (default %(default)s)")
    serve.add_argument("--max-in-flight", type=int, default=DEFAULT_MAX_IN_FLIGHT,
                       help="requests served at once per connection; beyond it the server "
                            "stops reading that connection (default %(default)s)")
    serve.add_argument("--max-in-flight-bytes", type=int, default=DEFAULT_MAX_IN_FLIGHT_BYTES,
                       help="payload bytes the requests in flight on one connection may hold "
                            "(default %(default)s)")
    serve.add_argument("--write-buffer-high", type=int, default=DEFAULT_WRITE_BUFFER_HIGH,
                       help="unsent bytes per connection above which it serves nothing more "
                            "until the peer reads (default %(default)s)")
    serve.add_argument("--workers", type=int, default=1, metavar="N",
                       help="serve the port with N processes (1.."
                            f"{MAX_WORKERS}), each running one --model server, under a "
                            "supervisor that restarts a worker that dies. The limits above "
                            "(--max-connections and the rest) apply to each worker: the server "
                            "as a whole takes N times as much. stats() answers the totals of "
                            "all workers (default %(default)s: one process, no supervisor)")
    serve.add_argument("--shared-socket", action="store_true", default=None,
                       help="with --workers: every worker accepts from one socket the "
                            "supervisor listens on, instead of each from its own with "
                            "SO_REUSEPORT (the default on Linux, where the kernel then spreads "
                            "the connections; elsewhere the socket is always shared)")
    serve.add_argument("--tls-cert", default=None, help="PEM certificate chain: serve TLS")
    serve.add_argument("--tls-key", default=None, help="PEM private key (if not in --tls-cert)")

    bench = commands.add_parser("bench", help="run the lab: executor pools vs coroutines")
    if lab:
        from dualio.lab.bench import command as lab_bench
        from dualio.lab.compare import command as lab_compare

        lab_bench.add_arguments(bench)
        bench_commands = bench.add_subparsers(dest="bench_command", metavar="{compare}")
        compare = bench_commands.add_parser(
            "compare", help="compare two runs' results.json, cell by cell, beyond their noise")
        lab_compare.add_arguments(compare)

    demo = commands.add_parser("demo", help="start an embedded server and run a short sync demo")
    demo.add_argument("--model", choices=("async", "threaded", "sequential"), default="async")
    return parser


TOKEN_VARIABLE = "DUALIO_TOKEN"


def _server_token(flag: str | None, path: str | None) -> str | None:
    """The token from ``--token``, ``--token-file`` or $DUALIO_TOKEN (one of them at most)."""
    given = [name for name, value in (("--token", flag), ("--token-file", path),
                                      (f"${TOKEN_VARIABLE}", os.environ.get(TOKEN_VARIABLE)))
             if value is not None]
    if len(given) > 1:
        raise ValueError(f"give the token one way only, not {' and '.join(given)}")
    if path is not None:
        try:
            with open(path, encoding="utf-8") as file:
                return file.readline().rstrip("\r\n")
        except OSError as exc:
            raise ValueError(f"cannot read the token file {path}: {exc.strerror or exc}") from exc
    return flag if flag is not None else os.environ.get(TOKEN_VARIABLE)


def _server_tls(cert: str | None, key: str | None) -> ssl.SSLContext | None:
    if cert is None:
        if key is not None:
            raise ValueError("--tls-key needs --tls-cert")
        return None
    for flag, path in (("--tls-cert", cert), ("--tls-key", key)):
        if path is not None and not os.path.isfile(path):
            raise ValueError(f"{flag}: no such file: {path}")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        files = cert if key is None else f"{cert} and {key}"
        raise ValueError(f"cannot load the TLS certificate and key from {files}: {exc}") from exc
    return context


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    args = _parser(lab=arguments[:1] != ["serve"]).parse_args(arguments)
    if args.command == "serve":
        from dualio.server.config import ServerConfig
        from dualio.server.main import LoopUnavailable, loop_factory, serve

        if not 0 <= args.port <= 65535:
            print("dualio serve: --port must be in 0..65535", file=sys.stderr)
            return 2
        if args.backlog is not None and not 1 <= args.backlog <= 65535:
            print(f"dualio serve: --backlog must be in 1..65535, got {args.backlog}", file=sys.stderr)
            return 2
        if args.model == "sequential" and args.idle_timeout == 0:
            print("dualio serve: --model sequential needs --idle-timeout above 0 (one idle "
                  "connection would hold the server forever)", file=sys.stderr)
            return 2
        try:
            check_workers(args.workers)
        except ValueError as exc:
            print(f"dualio serve: {exc}", file=sys.stderr)
            return 2
        if args.shared_socket and args.workers < 2:
            print("dualio serve: --shared-socket needs --workers 2 or more", file=sys.stderr)
            return 2
        if args.loop != "asyncio" and args.model != "async":
            print(f"dualio serve: --loop {args.loop} needs --model async", file=sys.stderr)
            return 2
        try:
            loop_factory(args.loop)
        except LoopUnavailable as exc:
            print(f"dualio serve: {exc}", file=sys.stderr)
            return 2
        try:
            config = ServerConfig(
                host=args.host, port=args.port, token=_server_token(args.token, args.token_file),
                max_frame_size=args.max_frame_size, handshake_timeout=args.handshake_timeout,
                idle_timeout=args.idle_timeout, max_connections=args.max_connections,
                max_in_flight=args.max_in_flight, max_in_flight_bytes=args.max_in_flight_bytes,
                write_buffer_high=args.write_buffer_high,
                backlog=args.backlog or (SEQUENTIAL_BACKLOG if args.model == "sequential"
                                         else DEFAULT_BACKLOG),
                tls=_server_tls(args.tls_cert, args.tls_key),
            )
            from dualio_transports.dualio_protocol.frames import validate_max_frame_size

            validate_max_frame_size(config.max_frame_size)
        except (ValueError, OSError) as exc:
            print(f"dualio serve: {exc}", file=sys.stderr)
            return 2
        return serve(config, args.model, args.loop, args.workers, args.shared_socket)
    if args.command == "bench":
        if args.bench_command == "compare":
            from dualio.lab.compare.command import run as compare_runs

            return compare_runs(args)
        from dualio.lab.bench.command import run

        args.argv = arguments
        return run(args)
    from dualio.demo import run_demo

    return run_demo(args.model)
