"""A tiny real MCP server for the tests: `python mcp_demo_server.py` serves it over stdio.

`build_server()` returns the same server for the streamable-HTTP test, which runs it in-process.
"""

from __future__ import annotations

import asyncio
import os

from mcp.server.mcpserver import MCPServer


def build_server() -> MCPServer:
    server = MCPServer("demo")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool()
    def shout(text: str) -> str:
        """Upper-case the text."""
        return text.upper()

    @server.tool()
    def secret_env(name: str) -> str:
        """Read one environment variable of the server process."""
        return os.environ.get(name, "<unset>")

    @server.tool()
    def fail(message: str) -> str:
        """Always fails."""
        raise ValueError(message)

    @server.tool()
    async def nap(seconds: float) -> str:
        """Sleep, then answer."""
        await asyncio.sleep(seconds)
        return "rested"

    @server.tool()
    def die() -> str:
        """End the server process at once, without answering."""
        os._exit(1)

    return server


if __name__ == "__main__":
    build_server().run()
