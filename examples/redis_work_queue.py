"""A work queue on Redis, both faces at once: producer threads on the blocking face push
jobs, consumer tasks on the async face take them with BLPOP and announce each result on
a channel, and a subscriber counts the announcements.

    python examples/redis_work_queue.py [--port 6379] [--jobs 200] [--producers 4]
                                        [--consumers 8] [--backend asyncio|trio]

Each consumer's BLPOP waits on a connection of its own (``held_connections``), so the
client's other calls (the results, the PUBLISHes) never wait behind it. The table at the
end adds up: every job pushed was taken once, none twice, and every result was heard.
"""

from __future__ import annotations

import argparse
import threading
import time
from collections import Counter

import anyio

from dualio.redis import Redis
from dualio_sync.redis import Redis as BlockingRedis


def produce(port: int, queue: str, numbers: range) -> None:
    with BlockingRedis(port=port) as r:
        for start in range(numbers.start, numbers.stop, 10):  # ten jobs per round trip
            batch = [("RPUSH", queue, n) for n in range(start, min(start + 10, numbers.stop))]
            r.pipeline(*batch)


async def consume(r: Redis[str], queue: str, channel: str, taken: Counter[int], name: str) -> None:
    while True:
        job = await r.blpop(queue, wait=1)
        if job is None:  # a second with nothing to do: the work is over
            return
        number = int(job[1])
        taken[number] += 1
        await r.transaction(("INCRBY", f"{queue}:sum", number), ("HINCRBY", f"{queue}:by", name, 1))
        await r.publish(channel, f"{name}:{number}")


async def main(port: int, jobs: int, producers: int, consumers: int) -> int:
    queue = f"example:queue:{time.time_ns()}"
    channel = f"{queue}:done"
    taken: Counter[int] = Counter()
    heard: list[str] = []
    started = time.perf_counter()
    async with Redis(port=port, decode_responses=True, held_connections=consumers) as r:
        async with r.subscribe(channel) as announcements:

            async def listen() -> None:
                async for message in announcements:
                    heard.append(message.data)
                    if len(heard) == jobs:
                        return

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(listen)
                for i in range(consumers):
                    tasks.start_soon(consume, r, queue, channel, taken, f"consumer-{i}")
                share = -(-jobs // producers)
                shares = [range(p * share, min(jobs, (p + 1) * share)) for p in range(producers)]
                threads = [threading.Thread(target=produce, args=(port, queue, mine)) for mine in shares]
                for thread in threads:
                    thread.start()
                await anyio.to_thread.run_sync(lambda: [thread.join() for thread in threads])
        total = int(await r.get(f"{queue}:sum") or 0)
        by_consumer = await r.hgetall(f"{queue}:by")
        await r.delete(queue, f"{queue}:sum", f"{queue}:by")
    elapsed = time.perf_counter() - started
    print(f"{'jobs pushed':28} {jobs}")
    print(f"{'jobs taken once':28} {sum(1 for n in taken.values() if n == 1)}")
    print(f"{'jobs taken twice or more':28} {sum(1 for n in taken.values() if n > 1)}")
    print(f"{'jobs lost':28} {jobs - len(taken)}")
    print(f"{'results heard':28} {len(heard)}")
    print(f"{'sum of the jobs':28} {total} (expected {jobs * (jobs - 1) // 2})")
    print(f"{'consumers that took a job':28} {len(by_consumer)} of {consumers}")
    print(f"{'seconds':28} {elapsed:.2f}")
    adds_up = len(taken) == jobs and max(taken.values(), default=1) == 1 and len(heard) == jobs
    return 0 if adds_up and total == jobs * (jobs - 1) // 2 else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=6379)
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--producers", type=int, default=4)
    parser.add_argument("--consumers", type=int, default=8)
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    args = parser.parse_args()
    status = anyio.run(main, args.port, args.jobs, args.producers, args.consumers, backend=args.backend)
    raise SystemExit(status)
