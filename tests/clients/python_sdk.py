"""The official MCP Python SDK's Streamable HTTP client against `deskhand mcp --http`.

    python_sdk.py URL session     open a session (initialize), list the tool, and work out
                                  7 × 2 on gnome-calculator by clicking its buttons by ref
    python_sdk.py URL stateless   revision 2026-07-28: server/discover, then tools/list

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
            return line.split('value="', 1)[1].split('"', 1)[0] if 'value="' in line else ""
    raise AssertionError(f"no text element in:\n{observation}")


async def desktop(session, **arguments):
    result = await session.call_tool("desktop", arguments)
    if result.is_error:
        raise AssertionError(f"{arguments} failed: {text_of(result)}")
    return result


async def calculate(session):
    launched = await desktop(session, action="launch", app="org.gnome.Calculator")
    window = launched.structured_content["window"]
    deadline = time.monotonic() + 60
    while True:
        keypad = text_of(await desktop(session, action="observe", target=window))
        if 'button "7"' in keypad and 'button "="' in keypad:
            break
        if time.monotonic() > deadline:
            raise AssertionError(f"the keypad never showed:\n{keypad}")
        await asyncio.sleep(0.3)
    for label in ["7", "×", "2", "="]:
        button = ref_of(keypad, f'button "{label}"')
        clicked = text_of(await desktop(session, action="click", ref=button))
        assert clicked.startswith(f"done: clicked {button}"), clicked
    deadline = time.monotonic() + 20
    while True:
        value = display_value(text_of(await desktop(session, action="observe", target=window)))
        if value == "14":
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the display shows {value!r}, not 14")
        await asyncio.sleep(0.2)


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
                del info


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] not in ("session", "stateless"):
        sys.exit(__doc__)
    asyncio.run(main(sys.argv[1], sys.argv[2]))
