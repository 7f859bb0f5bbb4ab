"""``dualio demo``: the embedded server and the sync Client, one of each call."""

from __future__ import annotations

import threading
import time

from dualio.server.embedded import EmbeddedServer, ServerModel
from dualio_sync import Client


def run_demo(model: ServerModel = "async") -> int:
    with EmbeddedServer(model=model) as server:
        print(f"embedded {server.model} server listening on {server.host}:{server.port}")
        with Client(server.host, server.port, timeout=10) as client:
            print(f"ping                       {client.ping() * 1e6:8.0f} µs round trip")
            print(f"echo(b'hello')             {client.echo(b'hello')!r}")
            started = time.perf_counter()
            text = client.upper("hello, dualio", delay=0.1)
            print(f"upper(.., delay=0.1)       {text!r} in {time.perf_counter() - started:.3f} s")
            data = client.blob(1 << 20)
            print(f"blob(1 MiB)                {len(data):,} bytes, content verified")
            words = list(client.words(5, wait=0.01))
            print(f"words(5, wait=0.01)        {words}")
            started = time.perf_counter()
            threads = [threading.Thread(target=client.sleep, args=(0.2,)) for _ in range(20)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.perf_counter() - started
            print(f"20 threads × sleep(0.2)    {elapsed:.3f} s on one shared connection")
            rounds = 2000
            started = time.perf_counter()
            for _ in range(rounds):
                client.echo(b"x" * 12)
            rate = rounds / (time.perf_counter() - started)
            print(f"sequential echo            {rate:,.0f} round trips/s")
            stats = client.stats()
            print(f"server stats               {stats}")
    return 0
