"""The official MCP Python SDK's Streamable HTTP client against `deskhand mcp --http`.

    python_sdk.py URL session     open a session (initialize), list the tool, and work out
                                  7 × 2 on gnome-calculator by clicking its buttons by ref
    python_sdk.py URL stateless   revision 2026-07-28: server/discover, then tools/list
    python_sdk.py URL handles     revision 2026-07-28 on a --desktop-per-session server: two
                                  private desktops by handle, 7 × 2 on gnome-calculator in one
                                  while the other has no window, then both ended

The bearer token, if the server has one, comes from DESKHAND_TOKEN. Exits non-zero with the
reason on the first thing that is not as it should be.
"""

import asyncio
import os
import sys
import time

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


def element_lines(observation):
    return observation.splitlines()[2:]


def ref_of(observation, needle):
    for line in element_lines(observation):
        if needle in line:
            return line.split()[0]
    raise AssertionError(f"no line with {needle!r} in:\n{observation}")


def display_value(observation):
    for line in element_lines(observation):
        words = line.split()
        if len(words) > 1 and words[1] == "text":
            if 'value="' in line:
                return line.split('value="', 1)[1].split('"', 1)[0]
            # A value that is only a number is written without quotes.
            bare = [word[len("value="):] for word in words if word.startswith("value=")]
            return bare[0] if bare else ""
    raise AssertionError(f"no text element in:\n{observation}")


async def desktop(session, **arguments):
    result = await session.call_tool("desktop", arguments)
    if result.is_error:
        raise AssertionError(f"{arguments} failed: {text_of(result)}")
    return result


async def calculate(session, **on):
    """7 × 2 on gnome-calculator by refs; `on` is added to every call (a desktop's handle)."""
    launched = await desktop(session, action="launch", app="org.gnome.Calculator", **on)
    window = launched.structured_content["window"]
    deadline = time.monotonic() + 60
    while True:
        keypad = text_of(await desktop(session, action="observe", target=window, **on))
        if 'button "7"' in keypad and 'button "="' in keypad:
            break
        if time.monotonic() > deadline:
            raise AssertionError(f"the keypad never showed:\n{keypad}")
        await asyncio.sleep(0.3)
    for label in ["7", "×", "2", "="]:
        button = ref_of(keypad, f'button "{label}"')
        clicked = text_of(await desktop(session, action="click", ref=button, **on))
        assert clicked.startswith(f"done: clicked {button}"), clicked
    deadline = time.monotonic() + 20
    while True:
        value = display_value(
            text_of(await desktop(session, action="observe", target=window, **on))
        )
        if value == "14":
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the display shows {value!r}, not 14")
        await asyncio.sleep(0.2)


async def by_handle(session):
    handles = []
    for _ in range(2):
        started = await desktop(session, desktop="new", action="windows")
        handle = started.structured_content["desktop"]
        assert text_of(started).startswith(f"desktop {handle} started"), text_of(started)
        handles.append(handle)
    first, second = handles
    assert first != second, handles
    await calculate(session, desktop=first)
    other = text_of(await desktop(session, desktop=second, action="windows"))
    assert "0 windows" in other, other
    for handle in handles:
        ended = text_of(await desktop(session, desktop=handle, end_desktop=True))
        assert f"desktop {handle} ended" in ended, ended
    gone = await session.call_tool("desktop", {"desktop": first, "action": "windows"})
    assert gone.is_error and text_of(gone).startswith("failed (surface-gone)"), text_of(gone)
    print("handles: 7 × 2 = 14 on one private desktop by handle, none on the other; both ended")


async def main(url, mode):
    token = os.environ.get("DESKHAND_TOKEN")
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                if mode == "session":
                    info = await session.initialize()
                else:
                    info = await session.discover()
                print(f"{mode}: connected, protocol {session.protocol_version}")
                tools = (await session.list_tools()).tools
                assert [tool.name for tool in tools] == ["desktop"], tools
                print(f"{mode}: tools/list has the one tool, desktop")
                if mode == "session":
                    await calculate(session)
                    print("session: 7 × 2 = 14 on gnome-calculator, clicked by refs")
                if mode == "handles":
                    await by_handle(session)
                del info


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] not in ("session", "stateless", "handles"):
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1], sys.argv[2]))
