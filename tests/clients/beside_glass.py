"""deskhand beside glass, measured in one run by the official MCP Python SDK over stdio.

    beside_glass.py DESKHAND_BIN GLASS_BIN [ROUNDS [CHANGES]]

For each app (gtk3-widget-factory, gnome-calculator) it starts three servers, each on a private
headless X desktop of its own: deskhand as it serves (`deskhand mcp --headless`, live trees),
deskhand walking the tree at every observe (`DESKHAND_TREE_READER=walk`), and glass (which
spawns its own Xvfb and accessibility bus). Each launches the app through its own launch tool
and observes until the app's controls are listed. Then, with nothing done in between, ROUNDS
observes of the window (11 unless given), the servers taking turns so that all meet the same
load; 3 more, each after a 2 s pause, as between an agent's steps; then CHANGES rounds (5
unless given) of one click on the same control by each server's own click-by-element, each
followed by one observe 0.5 s later, once the app shows the change. Every time is a call's round trip
as the client sees it; tokens are o200k tokens of the reply's text blocks, what a model reads;
an MCP ping before each observe shows what the client and the transport take of a call.
Prints the table, then exits non-zero with the reason on the first thing that is not as it
should be.
"""

import asyncio
import contextlib
import re
import statistics
import sys
import tempfile
import time

import tiktoken
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from shown_entries import shown_entries

READY_TIMEOUT_S = 60
WALKED = "deskhand, walking every time"
# Every server gets the same pause after the app's controls show, so that neither meets the app
# still finishing its start-up in its first timed observe.
SETTLE_S = 1.0
# An agent's step between two looks at an unchanged window: the model's turn takes seconds.
PAUSE_S = 2.0
PAUSED_ROUNDS = 3
# A click's reply comes once the app took the action, and a GTK4 app shows its effect a moment
# later: the observe that follows waits this long, so that it meets the window changed.
CHANGE_SHOWN_S = 0.5


class Fault(Exception):
    """Something a server did is not what the measurement needs; the message says what."""


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


class Deskhand:
    def __init__(self, session, name):
        self.session = session
        self.name = name
        self.window = None

    async def call(self, **arguments):
        result = await self.session.call_tool("desktop", arguments)
        if result.is_error:
            raise Fault(f"deskhand {arguments} failed: {text_of(result)}")
        return result

    async def launch(self, app):
        launched = await self.call(action="launch", app=app.deskhand_app)
        self.window = launched.structured_content["window"]

    async def observe(self):
        return text_of(await self.call(action="observe", target=self.window))

    def control(self, observation, app):
        """The ref of the control to click, and its name, from one observation."""
        for line in observation.splitlines()[2:]:
            words = line.split()
            if len(words) > 2 and words[1] == app.deskhand_role and "disabled" not in line:
                name = line.split('"', 2)[1] if '"' in line else ""
                if app.control_name in (None, name):
                    return words[0], name
        return None

    async def click(self, ref):
        clicked = text_of(await self.call(action="click", ref=ref))
        if not clicked.startswith("done"):
            raise Fault(f"deskhand's click on {ref} answered: {clicked}")


class Glass:
    def __init__(self, session, name):
        self.session = session
        self.name = name

    async def call(self, tool, **arguments):
        result = await self.session.call_tool(tool, arguments)
        if result.is_error:
            raise Fault(f"glass {tool} {arguments} failed: {text_of(result)}")
        return result

    async def launch(self, app):
        # Unconfined as deskhand runs apps, and with the renderer deskhand's desktop gives GTK4
        # apps: glass sets it only for a sandboxed launch, and GTK4's GL renderer under Xvfb
        # makes every accessibility call many times slower.
        await self.call("glass_start", run=[app.program], sandbox="off",
                        env={"GSK_RENDERER": "cairo"})

    async def observe(self):
        return text_of(await self.call("glass_a11y_snapshot"))

    def control(self, observation, app):
        pattern = re.compile(rf'#(\d+) {app.glass_role} "([^"]*)"(.*)')
        for line in observation.splitlines():
            found = pattern.search(line)
            if found and "disabled" not in found.group(3).lower():
                # glass names a GTK4 button by its name and its label's text together: "7 7".
                if app.control_name is None or set(found.group(2).split()) == {app.control_name}:
                    return int(found.group(1)), found.group(2)
        return None

    async def click(self, element):
        await self.call("glass_click_element", id=element)


class App:
    def __init__(self, label, program, deskhand_app, deskhand_role, glass_role, control_name):
        self.label = label
        self.program = program
        self.deskhand_app = deskhand_app
        self.deskhand_role = deskhand_role
        self.glass_role = glass_role
        # None: the first enabled control of the role in deskhand's observation, whose name
        # glass then looks for, so that both click the same control.
        self.control_name = control_name


APPS = [
    App("gtk3-widget-factory (GTK3)", "gtk3-widget-factory", "gtk3-widget-factory", "check",
        "CheckBox", None),
    App("gnome-calculator (GTK4)", "gnome-calculator", "org.gnome.Calculator", "button",
        "Button", "7"),
]


async def ready(server, app):
    """Observes until the control to click is listed; the window is then known to the server."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    while True:
        observation = await server.observe()
        if server.control(observation, app):
            return observation
        if time.monotonic() > deadline:
            raise Fault(f"{server.name} never listed the {app.glass_role} to click in "
                        f"{app.label}:\n{observation}")
        await asyncio.sleep(0.3)


async def timed(server, call, *arguments):
    started = time.perf_counter()
    result = await call(*arguments)
    return (time.perf_counter() - started) * 1000, result


async def measure(app, servers, rounds, changes, tokenizer):
    for server in servers:
        await server.launch(app)
    for server in servers:
        observation = await ready(server, app)
        if app.control_name is None and isinstance(server, Deskhand):
            app.control_name = server.control(observation, app)[1]
    await asyncio.sleep(SETTLE_S)
    figures = {server.name: {"unchanged": [], "tokens": [], "click": [], "changed": [],
                             "changed_tokens": [], "ping": [], "paused": [], "seen": 0}
               for server in servers}
    for _ in range(rounds):
        for server in servers:
            took, _ = await timed(server, server.session.send_ping)
            figures[server.name]["ping"].append(took)
            took, observation = await timed(server, server.observe)
            figures[server.name]["unchanged"].append(took)
            figures[server.name]["tokens"].append(len(tokenizer.encode(observation)))
            figures[server.name]["last"] = observation
    for _ in range(PAUSED_ROUNDS):
        await asyncio.sleep(PAUSE_S)
        for server in servers:
            took, _ = await timed(server, server.observe)
            figures[server.name]["paused"].append(took)
    for _ in range(changes):
        for server in servers:
            found = server.control(figures[server.name]["last"], app)
            if found is None:
                raise Fault(f"{server.name} no longer lists {app.control_name!r} in {app.label}")
            took, _ = await timed(server, server.click, found[0])
            figures[server.name]["click"].append(took)
            await asyncio.sleep(CHANGE_SHOWN_S)
            took, observation = await timed(server, server.observe)
            figures[server.name]["changed"].append(took)
            figures[server.name]["changed_tokens"].append(len(tokenizer.encode(observation)))
            # The change counts as shown when the reply differs from the one before the click.
            if observation != figures[server.name]["last"]:
                figures[server.name]["seen"] += 1
            figures[server.name]["last"] = observation
    return figures


async def run_app(app, deskhand_bin, glass_bin, rounds, changes, tokenizer, data_folder):
    shown = shown_entries(data_folder)
    # deskhand as it serves, keeping a live tree of each window it observed; then the same
    # walking the tree at every observe, as before live trees, to show what they take away.
    started = [
        (Deskhand, "deskhand", StdioServerParameters(
            command=deskhand_bin, args=["mcp", "--headless"], env=shown)),
        (Deskhand, WALKED, StdioServerParameters(
            command=deskhand_bin, args=["mcp", "--headless"],
            env={**shown, "DESKHAND_TREE_READER": "walk"})),
        (Glass, "glass", StdioServerParameters(command=glass_bin, args=[])),
    ]
    async with contextlib.AsyncExitStack() as stack:
        servers = []
        for kind, name, params in started:
            read, write = await stack.enter_async_context(stdio_client(params))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            servers.append(kind(session, name))
        figures = await measure(app, servers, rounds, changes, tokenizer)
        with contextlib.suppress(Exception):
            await servers[-1].call("glass_stop")
        return figures


def row(cells):
    return "| " + " | ".join(cells) + " |"


def report(results, rounds, changes):
    median = statistics.median
    print(f"\n## observe over MCP (stdio), {rounds} rounds unchanged, {changes} after one change\n")
    print(row(["app", "server", "observe median (first included)", "p90", "first",
               "tokens (o200k)", f"after a {PAUSE_S:.0f} s pause", "click",
               "observe after one change", "changes shown", "its tokens", "ping"]))
    print(row(["---", "---"] + ["---:"] * 10))
    for app, figures in results:
        for name, f in figures.items():
            print(row([app.label, name, f"{median(f['unchanged']):.2f} ms",
                       f"{percentile(f['unchanged'], 0.9):.2f} ms", f"{f['unchanged'][0]:.2f} ms",
                       f"{median(f['tokens']):,.0f}", f"{median(f['paused']):.2f} ms",
                       f"{median(f['click']):.1f} ms",
                       f"{median(f['changed']):.1f} ms", f"{f['seen']}/{len(f['changed'])}",
                       f"{median(f['changed_tokens']):,.0f}",
                       f"{median(f['ping']):.2f} ms"]))
    print("\n## deskhand ÷ glass (target: 0.05x the time)\n")
    print(row(["app", "deskhand", "observe, unchanged", "first observe",
               f"after a {PAUSE_S:.0f} s pause", "observe after one change", "tokens"]))
    print(row(["---", "---"] + ["---:"] * 5))
    for app, figures in results:
        g = figures["glass"]
        for name in ("deskhand", WALKED):
            d = figures[name]
            print(row([app.label, name,
                       f"{median(d['unchanged']) / median(g['unchanged']):.3f}x",
                       f"{d['unchanged'][0] / g['unchanged'][0]:.3f}x",
                       f"{median(d['paused']) / median(g['paused']):.3f}x",
                       f"{median(d['changed']) / median(g['changed']):.3f}x",
                       f"{median(d['tokens']) / median(g['tokens']):.3f}x"]))
    print("\nevery round (ms):")
    for app, figures in results:
        for name, f in figures.items():
            unchanged = " ".join(f"{t:.2f}" for t in f["unchanged"])
            paused = " ".join(f"{t:.2f}" for t in f["paused"])
            changed = " ".join(f"{t:.1f}" for t in f["changed"])
            print(f"  {app.label}, {name}: unchanged {unchanged}; after a pause {paused}; "
                  f"after one change {changed}")
    print("\nthe control clicked: " + "; ".join(
        f"{app.label}: {app.deskhand_role} \"{app.control_name}\"" for app, _ in results))


async def main(deskhand_bin, glass_bin, rounds, changes):
    tokenizer = tiktoken.get_encoding("o200k_base")
    results = []
    for app in APPS:
        print(f"measuring {app.label} ...", flush=True)
        with tempfile.TemporaryDirectory(prefix="beside-glass-") as data_folder:
            results.append((app, await run_app(app, deskhand_bin, glass_bin, rounds, changes,
                                               tokenizer, data_folder)))
    report(results, rounds, changes)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4, 5):
        sys.exit(__doc__)
    try:
        asyncio.run(main(sys.argv[1], sys.argv[2],
                         int(sys.argv[3]) if len(sys.argv) > 3 else 11,
                         int(sys.argv[4]) if len(sys.argv) > 4 else 5))
    except Fault as fault:
        sys.exit(f"beside_glass: {fault}")
