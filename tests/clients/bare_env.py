"""`deskhand mcp` over stdio as the official MCP Python SDK starts it: with the SDK's default
environment (HOME, LOGNAME, PATH, SHELL, TERM, USER and nothing else), as most clients do.

    bare_env.py BIN found TITLE   the server finds the user's desktop by itself, says which in
                                  its instructions, and `windows` lists the window TITLE
    bare_env.py BIN none          there is no desktop: the server still completes initialize,
                                  every call answers `failed (no-display)` with the env block to
                                  configure, and the doctor resource says why

Exits non-zero with the reason on the first thing that is not as it should be.
"""

import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def main(binary, mode, title):
    # No `env=`: the SDK passes get_default_environment(), as a client configured without an
    # `env` block does.
    server = StdioServerParameters(command=binary, args=["mcp"])
    passed = sorted(get_default_environment())
    assert "DISPLAY" not in passed and "DBUS_SESSION_BUS_ADDRESS" not in passed, passed
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            started = await session.initialize()
            instructions = started.instructions or ""
            windows = await session.call_tool("desktop", {"action": "windows"})
            text = text_of(windows)
            if mode == "found":
                assert not windows.is_error, text
                assert f'"{title}"' in text, f"{title!r} is not listed:\n{text}"
                assert "Desktop: " in instructions, instructions
                print(f"bare environment: found the desktop ({instructions.splitlines()[1]})")
            else:
                assert windows.is_error, text
                assert text.startswith("failed (no-display): no graphical session of this user was found"), text
                assert '"env": {"DISPLAY": ' in text, text
                assert windows.structured_content["error"] == "no-display", windows.structured_content
                doctor = await session.read_resource("deskhand://doctor")
                report = doctor.contents[0].text
                assert "no graphical session of this user was found" in report, report
                print("no desktop: initialize done, `windows` answers no-display with the env block, the doctor says why")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""))
