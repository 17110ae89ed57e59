#!/usr/bin/env python3
"""Load on the group hub: GROUPS groups of SIZE participants over real WebSockets.

Every participant joins (ping, hello); then one participant per group sends a command and the time
until every participant of that group has the new state is measured. Prints p50/p99/max of that
latency and the servers' memory per participant (from /proc/PID/status, VmRSS).
Usage: bench_groups.py WS_BASE[,WS_BASE...] SERVER_PID[,PID...] [GROUPS] [SIZE] [COMMANDS_PER_SECOND]
With several bases (instances sharing their groups through PostgreSQL), participant k of each group
connects to base k modulo their number, so every command crosses instances.
"""
import asyncio
import json
import sys
import time

from websockets.asyncio.client import connect

BASES = sys.argv[1].split(",")
PIDS = [int(pid) for pid in sys.argv[2].split(",")]
GROUPS = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
SIZE = int(sys.argv[4]) if len(sys.argv) > 4 else 4
RATE = float(sys.argv[5]) if len(sys.argv) > 5 else 500.0

DESCRIPTION = {"isLive": False, "itemDuration": {"nanoseconds": 600_000_000_000}, "nonPrimaryRanges": [], "interstitialBreaks": []}


def rss_kib():
    total = 0
    for pid in PIDS:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


class Participant:
    def __init__(self, group, index):
        self.group, self.index = group, index
        self.revisions = {}  # revision -> arrival time
        self.waiters = {}
        self.joined = asyncio.Event()

    async def run(self, ready):
        base = BASES[self.index % len(BASES)]
        async with connect(f"{base}/v1/groups/bench-{self.group}", max_size=1 << 20, ping_interval=None) as ws:
            self.ws = ws
            await ws.send(json.dumps({"type": "ping", "sent": 0}))
            await ws.send(json.dumps({"type": "hello", "participantID": f"p{self.index}", "description": DESCRIPTION,
                                      "policy": {"suspensionReasonsThatTriggerWaiting": []}}))
            async for text in ws:
                now = time.perf_counter()
                message = json.loads(text)
                kind = message.get("type")
                if kind == "welcome":
                    self.joined.set()
                    ready()
                elif kind == "state":
                    revision = message["state"]["timebase"]["revision"]
                    self.revisions.setdefault(revision, now)
                    waiter = self.waiters.pop(revision, None)
                    if waiter and not waiter.done():
                        waiter.set_result(now)
                elif kind == "error":
                    print("error:", message, file=sys.stderr)

    async def arrival(self, revision):
        if revision in self.revisions:
            return self.revisions[revision]
        future = asyncio.get_running_loop().create_future()
        self.waiters[revision] = future
        return await future


async def main():
    before = rss_kib()
    joined = 0
    all_joined = asyncio.Event()

    def ready():
        nonlocal joined
        joined += 1
        if joined == GROUPS * SIZE:
            all_joined.set()

    groups = [[Participant(g, i) for i in range(SIZE)] for g in range(GROUPS)]
    tasks = []
    start = time.perf_counter()
    for members in groups:
        for participant in members:
            tasks.append(asyncio.create_task(participant.run(ready)))
        await asyncio.sleep(0)
    await asyncio.wait_for(all_joined.wait(), timeout=300)
    join_seconds = time.perf_counter() - start
    await asyncio.sleep(1)
    after = rss_kib()

    latencies = []

    async def command(members, revision, body):
        sent = time.perf_counter()
        await members[0].ws.send(json.dumps(body))
        arrivals = await asyncio.wait_for(asyncio.gather(*(m.arrival(revision) for m in members)), timeout=30)
        latencies.append(max(arrivals) - sent)

    pending = []
    for round_, body in enumerate([{"type": "command", "command": "play", "rate": 1}, {"type": "command", "command": "pause"}]):
        for members in groups:
            # Joining broadcast states too: the next revision is the group's current one plus one.
            current = max(max(m.revisions) if m.revisions else 0 for m in members)
            pending.append(asyncio.create_task(command(members, current + 1, body)))
            await asyncio.sleep(1 / RATE)
        await asyncio.gather(*pending)
        pending = []
    latencies.sort()

    def pct(p):
        return latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000

    participants = GROUPS * SIZE
    where = f" over {len(BASES)} instances (group relay through PostgreSQL)" if len(BASES) > 1 else ""
    print(f"groups {GROUPS} x {SIZE} participants{where} joined in {join_seconds:.1f} s")
    print(f"commands {len(latencies)} at {RATE:.0f}/s: every participant of the group had the new state after "
          f"p50 {pct(0.50):.2f} ms, p99 {pct(0.99):.2f} ms, max {latencies[-1] * 1000:.2f} ms (target p99 < 20 ms)")
    print(f"server memory: {before / 1024:.1f} MiB before, {after / 1024:.1f} MiB with {participants} participants: "
          f"{(after - before) / participants:.1f} KiB per participant")
    for task in tasks:
        task.cancel()


asyncio.run(main())
