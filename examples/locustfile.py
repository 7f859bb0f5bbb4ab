"""A Locust load test of a dualio server: echo, upper and blob, weighted 6:3:1.

    .venv/bin/dualio serve --port 7878 &
    .venv/bin/locust -f examples/locustfile.py --headless -u 50 -r 10 -t 30s --host 127.0.0.1:7878

Without ``--headless`` Locust serves its web UI on http://localhost:8089.
docs/locust.md has the distributed run and what is reported.
"""

from __future__ import annotations

from typing import Any, ClassVar

from locust import between, task

from dualio.locust import DualioUser

PAYLOAD = b"x" * 256
BLOB_SIZE = 64 * 1024


class ServiceUser(DualioUser):
    wait_time = between(0.01, 0.05)
    dualio_options: ClassVar[dict[str, Any]] = {"timeout": 5.0}  # over DualioUser's defaults

    @task(6)
    def echo(self) -> None:
        self.client.echo(PAYLOAD)

    @task(3)
    def upper(self) -> None:
        self.client.upper("load test")

    @task(1)
    def blob(self) -> None:
        with self.named("blob 64 KiB"):
            self.client.blob(BLOB_SIZE)  # checked on arrival: a wrong byte is a failure
