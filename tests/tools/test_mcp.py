"""MCP servers: configuration, a real stdio server subprocess, streamable HTTP, failures."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.tools import MCPConfigError, MCPToolbox, load_config
from arena.tools.mcp_servers import parse_config, render_result_content, tool_name
from engines.agent.tools import Risk, ToolError

DEMO_SERVER = Path(__file__).with_name("mcp_demo_server.py")


def demo_entry(**extra) -> dict:
    return {"command": sys.executable, "args": [str(DEMO_SERVER)], **extra}


async def test_stdio_server_alongside_broken_ones(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_TEST_VALUE", "expanded!")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-reach-mcp")
    config = {
        "mcpServers": {
            "demo": demo_entry(env={"DEMO_SECRET": "${ARENA_TEST_VALUE}"}),
            "ghost": {"command": str(tmp_path / "no-such-program")},
            "crash": {
                "command": sys.executable,
                "args": [
                    "-c",
                    "import sys; print('boom: missing setting', file=sys.stderr); sys.exit(3)",
                ],
            },
            "sleepy": {
                "command": sys.executable,
                "args": ["-c", "import time; time.sleep(60)"],
                "timeout": 1,
            },
            "shapeless": {"args": ["x"]},
            "off": {"command": "whatever", "disabled": True},
        }
    }
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(config))
    started = time.monotonic()
    async with MCPToolbox.from_file(path) as toolbox:
        assert time.monotonic() - started < 15
        reports = {r.name: r for r in toolbox.reports}
        assert set(reports) == {"demo", "ghost", "crash", "sleepy", "shapeless"}
        assert reports["demo"].ok
        assert set(reports["demo"].tool_names) == {
            "demo__add",
            "demo__shout",
            "demo__secret_env",
            "demo__fail",
            "demo__nap",
            "demo__die",
        }
        assert "command not found" in reports["ghost"].error
        assert "boom: missing setting" in reports["crash"].error
        assert "did not start within 1 s" in reports["sleepy"].error
        assert "bad configuration" in reports["shapeless"].error
        assert {r.name for r in toolbox.errors} == {"ghost", "crash", "sleepy", "shapeless"}
        assert "failed" in reports["ghost"].summary()

        tools = {t.spec.name: t for t in toolbox.tools}
        assert all(t.needs_approval and t.risk is Risk.EXEC for t in tools.values())
        add = tools["demo__add"]
        assert add.spec.parameters["required"] == ["a", "b"]
        assert add.spec.description == "[MCP server demo] Add two integers."

        # Called from other tasks than the one that opened the connection.
        results = await asyncio.gather(
            *(asyncio.create_task(add.run({"a": i, "b": 40})) for i in range(3))
        )
        assert [r.output for r in results] == ["40", "41", "42"]
        assert results[0].citable and not results[0].is_error

        failed = await tools["demo__fail"].run({"message": "nope"})
        assert failed.is_error and not failed.citable

        env = tools["demo__secret_env"]
        assert (await env.run({"name": "DEMO_SECRET"})).output == "expanded!"
        assert (await env.run({"name": "OPENAI_API_KEY"})).output == "<unset>"

        # A cancelled call leaves the server usable.
        nap = asyncio.create_task(tools["demo__nap"].run({"seconds": 30}))
        await asyncio.sleep(0.2)
        nap.cancel()
        with pytest.raises(asyncio.CancelledError):
            await nap
        assert (await tools["demo__shout"].run({"text": "still here"})).output == "STILL HERE"

        # A server that dies mid-session fails its calls cleanly from then on.
        with pytest.raises(ToolError, match="MCP server demo"):
            await tools["demo__die"].run({})
        with pytest.raises(ToolError, match="MCP server demo, tool add: .*closed"):
            await add.run({"a": 1, "b": 2})
    with pytest.raises(ToolError, match="not running"):
        await add.run({"a": 1, "b": 2})


def test_yaml_configuration(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_TEST_TOKEN", "t0k3n")
    path = tmp_path / "mcp.yaml"
    path.write_text(
        "mcpServers:\n"
        "  files:\n"
        "    command: npx\n"
        "    args: [-y, server-files, '${ARENA_TEST_TOKEN}']\n"
        "    env: {LEVEL: 3}\n"
        "    timeout: 5\n"
        "  remote:\n"
        "    url: https://example.com/mcp\n"
        "    headers: {Authorization: 'Bearer ${ARENA_TEST_TOKEN}'}\n"
        "  old:\n"
        "    type: sse\n"
        "    url: https://example.com/sse\n"
        "  both:\n"
        "    command: x\n"
        "    url: https://example.com\n"
        "  ftp:\n"
        "    url: ftp://example.com\n"
    )
    configs, problems = load_config(path)
    by_name = {c.name: c for c in configs}
    assert set(by_name) == {"files", "remote"}
    files = by_name["files"]
    assert files.transport == "stdio"
    assert files.args == ("-y", "server-files", "t0k3n")
    assert dict(files.env) == {"LEVEL": "3"}
    assert files.timeout_s == 5
    remote = by_name["remote"]
    assert remote.transport == "http"
    assert dict(remote.headers) == {"Authorization": "Bearer t0k3n"}
    errors = {p.name: p.error for p in problems}
    assert "SSE" in errors["old"]
    assert "not both" in errors["both"]
    assert "http or https" in errors["ftp"]


@pytest.mark.parametrize(
    ("text", "suffix", "words"),
    [
        ("{not json", ".json", "not valid JSON"),
        ("mcpServers: [unclosed", ".yaml", "not valid YAML"),
        ('{"servers_typo": {}}', ".json", "no 'mcpServers'"),
        ('{"mcpServers": []}', ".json", "must map"),
        ("[1, 2]", ".json", "must be a mapping"),
    ],
)
def test_unusable_configuration_files(tmp_path, text, suffix, words):
    path = tmp_path / f"mcp{suffix}"
    path.write_text(text)
    with pytest.raises(MCPConfigError, match=words):
        load_config(path)


def test_missing_configuration_file(tmp_path):
    with pytest.raises(MCPConfigError, match="cannot read"):
        load_config(tmp_path / "absent.json")


def test_tool_names_are_safe_for_model_apis():
    assert tool_name("my server", "do.thing") == "my_server__do_thing"
    long = tool_name("s" * 40, "t" * 40)
    other = tool_name("s" * 40, "t" * 39 + "u")
    assert len(long) == 64 and len(other) == 64 and long != other
    assert tool_name("a", "b") == "a__b"


def test_rendering_result_content():
    import mcp_types as types

    blocks = [
        types.TextContent(text="first"),
        types.ImageContent(data="aGVsbG8=", mime_type="image/png"),
        types.EmbeddedResource(
            resource=types.TextResourceContents(uri="file:///a.txt", text="inside")
        ),
    ]
    text = render_result_content(blocks)
    assert text.splitlines() == [
        "first",
        "[image: image/png, about 6 bytes]",
        "[resource file:///a.txt]",
        "inside",
    ]
    assert render_result_content([], {"answer": 42}) == '{\n  "answer": 42\n}'
    assert render_result_content([]) == "(no output)"


@pytest.fixture
def http_mcp_server() -> Iterator[str]:
    import uvicorn

    from tests.tools.mcp_demo_server import build_server

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(build_server().streamable_http_app(), log_level="error", lifespan="on")
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(10)
        listener.close()


async def test_streamable_http_server(http_mcp_server):
    configs, problems = parse_config(
        {"mcpServers": {"web": {"url": http_mcp_server, "headers": {"X-Arena": "yes"}}}}
    )
    assert problems == []
    async with MCPToolbox(configs) as toolbox:
        assert [r.ok for r in toolbox.reports] == [True]
        tools = {t.spec.name: t for t in toolbox.tools}
        assert (await tools["web__add"].run({"a": 20, "b": 22})).output == "42"


async def test_unreachable_http_server_is_reported():
    configs, _ = parse_config(
        {"mcpServers": {"down": {"url": "http://127.0.0.1:9/mcp", "timeout": 3}}}
    )
    async with MCPToolbox(configs) as toolbox:
        assert toolbox.tools == []
        (report,) = toolbox.reports
        assert not report.ok and report.error
