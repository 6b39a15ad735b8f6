"""An unchanged observe's round trip over MCP stdio, beside a ping's, by two clients.

    observe_roundtrip.py DESKHAND_BIN [ROUNDS [RUNS]]

For each app (gtk3-widget-factory, gnome-calculator) and each client, RUNS times (3 unless
given): starts `deskhand mcp --headless` (a private headless X desktop of its own), launches the
app, observes until its controls are listed, waits 1 s, then times ROUNDS (30 unless given)
pings and unchanged observes of the window, in turn. The clients: the official MCP Python SDK,
and a plain one that writes each JSON-RPC line to the server's stdin and reads its answer, which
shows what the server and the pipes take without the SDK's own work; it also times
BACK_TO_BACK_PINGS pings alone before it launches the app. Prints each run's medians;
exits non-zero with the reason when a call fails or an unchanged window reads differently.
"""

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from shown_entries import shown_entries

READY_TIMEOUT_S = 60
SETTLE_S = 1.0
BACK_TO_BACK_PINGS = 2000
APPS = [("gtk3-widget-factory", "check"), ("org.gnome.Calculator", "button")]


class Fault(Exception):
    """What the measurement needs did not happen; the message says what."""


def lists(observation, role):
    return any(len(words) > 2 and words[1] == role
               for words in map(str.split, observation.splitlines()[2:]))


async def measured(call, ping, app, role, rounds):
    """Launches, waits for the app's controls, then times the rounds: (observe, ping) medians."""
    launched = await call({"action": "launch", "app": app})
    window = launched[1]["window"]
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not lists((await call({"action": "observe", "target": window}))[0], role):
        if time.monotonic() > deadline:
            raise Fault(f"{app} never listed a {role}")
        await asyncio.sleep(0.3)
    await asyncio.sleep(SETTLE_S)
    observes, pings, texts = [], [], set()
    for _ in range(rounds):
        started = time.perf_counter()
        await ping()
        pings.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        texts.add((await call({"action": "observe", "target": window}))[0])
        observes.append((time.perf_counter() - started) * 1000)
    if len(texts) != 1:
        raise Fault(f"{app} read {len(texts)} different ways while nothing changed")
    return statistics.median(observes), statistics.median(pings)


async def with_sdk(deskhand_bin, env, app, role, rounds):
    params = StdioServerParameters(command=deskhand_bin, args=["mcp", "--headless"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()

        async def call(arguments):
            result = await session.call_tool("desktop", arguments)
            text = "".join(b.text for b in result.content if getattr(b, "type", "") == "text")
            if result.is_error:
                raise Fault(f"{arguments} failed: {text}")
            return text, result.structured_content

        return await measured(call, session.send_ping, app, role, rounds)


async def with_lines(deskhand_bin, env, app, role, rounds):
    server = subprocess.Popen([deskhand_bin, "mcp", "--headless"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              env={**os.environ, **env}, bufsize=0)
    pending = b""
    ids = iter(range(1, sys.maxsize))

    def request(method, params=None):
        nonlocal pending
        asked = next(ids)
        message = {"jsonrpc": "2.0", "id": asked, "method": method}
        if params is not None:
            message["params"] = params
        server.stdin.write(json.dumps(message).encode() + b"\n")
        while True:
            while b"\n" not in pending:
                read = os.read(server.stdout.fileno(), 1 << 20)
                if not read:
                    raise Fault("the server closed its output")
                pending += read
            line, pending = pending.split(b"\n", 1)
            answer = json.loads(line)
            if answer.get("id") == asked:
                return answer

    async def call(arguments):
        result = request("tools/call", {"name": "desktop", "arguments": arguments})["result"]
        text = "".join(b["text"] for b in result["content"] if b["type"] == "text")
        if result.get("isError"):
            raise Fault(f"{arguments} failed: {text}")
        return text, result.get("structuredContent")

    async def ping():
        request("ping")

    try:
        request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "observe_roundtrip", "version": "1"}})
        server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        alone = []
        for _ in range(BACK_TO_BACK_PINGS):
            started = time.perf_counter()
            request("ping")
            alone.append((time.perf_counter() - started) * 1e6)
        print(f"  {BACK_TO_BACK_PINGS} pings back to back: median {statistics.median(alone):.0f} µs",
              flush=True)
        return await measured(call, ping, app, role, rounds)
    finally:
        server.stdin.close()
        server.wait(timeout=30)


async def main(deskhand_bin, rounds, runs):
    for app, role in APPS:
        for client in (with_sdk, with_lines):
            for _ in range(runs):
                with tempfile.TemporaryDirectory(prefix="observe-roundtrip-") as folder:
                    observe, ping = await client(deskhand_bin, shown_entries(folder), app, role,
                                                 rounds)
                name = "Python SDK" if client is with_sdk else "plain lines"
                print(f"{app}, {name}: observe unchanged {observe:.2f} ms, ping {ping:.3f} ms "
                      f"(medians of {rounds})", flush=True)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3, 4):
        sys.exit(__doc__)
    try:
        asyncio.run(main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30,
                         int(sys.argv[3]) if len(sys.argv) > 3 else 3))
    except Fault as fault:
        sys.exit(f"observe_roundtrip: {fault}")
