"""Tools from MCP servers, named `<server>__<tool>`, always behind an approval.

The configuration file is JSON or YAML shaped like Claude Desktop's:

    {"mcpServers": {
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
                  "env": {"DEBUG": "0"}},
        "search": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
    }}

`${NAME}` in `env`, `headers`, `args` and `url` is replaced from our environment, so secrets can
stay out of the file. An entry may also set `cwd`, `timeout` (seconds, for start-up and each
call) and `disabled: true`.

    async with MCPToolbox.from_file("mcp.json") as toolbox:
        tools = toolbox.tools          # list of MCPTool, ready for the agent
        for report in toolbox.reports: # one per server: ok, tool names, or why it failed
            ...

Every server runs in a task of its own (the SDK's connections must be opened and closed by the
same task); a server that fails to start is reported and the others carry on.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from arena.tools._base import cap_text
from engines.agent.llm import ToolSpec
from engines.agent.tools import Risk, ToolError, ToolResult

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 30.0
_TOOL_NAME_LIMIT = 64  # OpenAI's limit on function names
_UNSAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_STDERR_TAIL_BYTES = 600


class MCPConfigError(ValueError):
    """The configuration file as a whole cannot be used (unreadable, not JSON/YAML, wrong shape)."""


@dataclass(frozen=True)
class MCPServerConfig:
    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout_s: float = DEFAULT_TIMEOUT_S

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "http"


@dataclass(frozen=True)
class MCPServerReport:
    """How starting one server went."""

    name: str
    ok: bool
    tool_names: tuple[str, ...] = ()
    error: str | None = None

    def summary(self) -> str:
        if self.ok:
            return f"MCP server {self.name}: {len(self.tool_names)} tools"
        return f"MCP server {self.name} failed: {self.error}"


# -- configuration -------------------------------------------------------------------------------


def _expand(value: str) -> str:
    return _ENV_REFERENCE.sub(lambda m: os.environ.get(m.group(1), ""), value)


def _string_map(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"{what} must be a mapping of names to strings")
    return {str(k): _expand(str(v)) for k, v in value.items()}


def parse_server(name: str, entry: Any) -> MCPServerConfig:
    """One `mcpServers` entry; ValueError with a readable reason when it is unusable."""
    if not isinstance(entry, Mapping):
        raise ValueError("the entry must be a mapping with 'command' or 'url'")
    command, url = entry.get("command"), entry.get("url")
    kind = str(entry.get("type") or entry.get("transport") or "").lower()
    if kind == "sse":
        raise ValueError("the SSE transport is not supported; use streamable HTTP")
    if command and url:
        raise ValueError("give either 'command' (stdio) or 'url' (HTTP), not both")
    if not command and not url:
        raise ValueError("the entry needs 'command' (stdio) or 'url' (HTTP)")
    args = entry.get("args") or []
    if not isinstance(args, list | tuple):
        raise ValueError("'args' must be a list")
    timeout = entry.get("timeout", DEFAULT_TIMEOUT_S)
    try:
        timeout_s = float(timeout)
    except (TypeError, ValueError):
        raise ValueError("'timeout' must be a number of seconds") from None
    if timeout_s <= 0:
        raise ValueError("'timeout' must be positive")
    if url is not None:
        url = _expand(str(url))
        if not url.lower().startswith(("http://", "https://")):
            raise ValueError(f"'url' must be http or https, not {url!r}")
    return MCPServerConfig(
        name=name,
        command=_expand(str(command)) if command else None,
        args=tuple(_expand(str(a)) for a in args),
        env=_string_map(entry.get("env"), "'env'"),
        cwd=_expand(str(entry["cwd"])) if entry.get("cwd") else None,
        url=url,
        headers=_string_map(entry.get("headers"), "'headers'"),
        timeout_s=timeout_s,
    )


def parse_config(data: Any) -> tuple[list[MCPServerConfig], list[MCPServerReport]]:
    """Servers from parsed configuration data, plus a failure report for each bad entry."""
    if not isinstance(data, Mapping):
        raise MCPConfigError("the MCP configuration must be a mapping with 'mcpServers'")
    servers = data.get("mcpServers", data.get("servers"))
    if servers is None:
        raise MCPConfigError("the MCP configuration has no 'mcpServers' section")
    if not isinstance(servers, Mapping):
        raise MCPConfigError("'mcpServers' must map server names to their settings")
    configs, problems = [], []
    for name, entry in servers.items():
        name = str(name)
        if isinstance(entry, Mapping) and entry.get("disabled"):
            continue
        try:
            configs.append(parse_server(name, entry))
        except ValueError as exc:
            problems.append(MCPServerReport(name, ok=False, error=f"bad configuration: {exc}"))
    return configs, problems


def load_config(
    path: str | os.PathLike[str],
) -> tuple[list[MCPServerConfig], list[MCPServerReport]]:
    """Read a JSON or YAML configuration file (see the module docstring)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise MCPConfigError(
            f"cannot read the MCP configuration {path}: {exc.strerror or exc}"
        ) from None
    if path.suffix.lower() in (".yaml", ".yml"):
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise MCPConfigError(f"{path} is not valid YAML: {exc}") from None
    else:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise MCPConfigError(f"{path} is not valid JSON: {exc}") from None
    return parse_config(data)


# -- naming and results --------------------------------------------------------------------------


def tool_name(server: str, tool: str) -> str:
    """`<server>__<tool>`, reduced to the characters and length model APIs accept."""
    name = _UNSAFE_NAME_CHARS.sub("_", f"{server}__{tool}")
    if len(name) > _TOOL_NAME_LIMIT:
        digest = hashlib.sha1(name.encode()).hexdigest()[:8]
        name = f"{name[: _TOOL_NAME_LIMIT - 9]}_{digest}"
    return name


def render_result_content(content: Any, structured: Any = None) -> str:
    """Readable text for the content blocks of an MCP tool result."""
    parts = []
    for block in content or ():
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind in ("image", "audio"):
            size = len(getattr(block, "data", "") or "") * 3 // 4
            parts.append(f"[{kind}: {getattr(block, 'mime_type', '?')}, about {size:,} bytes]")
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            if text is not None:
                parts.append(f"[resource {resource.uri}]\n{text}")
            else:
                parts.append(
                    f"[binary resource {resource.uri} ({resource.mime_type or 'unknown type'})]"
                )
        elif kind == "resource_link":
            parts.append(f"[link: {getattr(block, 'uri', '?')}]")
        else:
            parts.append(f"[{kind or 'unknown'} content]")
    if not parts and structured is not None:
        parts.append(json.dumps(structured, indent=2, ensure_ascii=False, default=str))
    return "\n".join(parts) if parts else "(no output)"


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _describe(exc: BaseException) -> str:
    exc = _leaf(exc)
    message = " ".join(str(exc).split())
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or message}"
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


# -- running servers -----------------------------------------------------------------------------


class MCPServerConnection:
    """One running server: opened, listed and closed by a task of its own."""

    def __init__(self, config: MCPServerConfig) -> None:
        self.config = config
        self.tools: list[MCPTool] = []
        self._client: Any = None
        self._ready: asyncio.Future[None] | None = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._errlog: IO[str] | None = None
        self.closed_error: str | None = None

    @property
    def name(self) -> str:
        return self.config.name

    async def start(self) -> MCPServerReport:
        """Connect and list tools; a report either way, never an exception."""
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self._task = asyncio.create_task(self._serve(), name=f"mcp-server-{self.name}")
        try:
            await asyncio.wait_for(asyncio.shield(self._ready), self.config.timeout_s)
        except TimeoutError:
            report = self._failed(f"did not start within {self.config.timeout_s:g} s")
            await self.aclose()
            return report
        except asyncio.CancelledError:
            await self.aclose()
            raise
        except Exception as exc:  # the server's own failure; its task has finished
            report = self._failed(_describe(exc))
            await self.aclose()
            return report
        return MCPServerReport(
            self.name, ok=True, tool_names=tuple(t.spec.name for t in self.tools)
        )

    def _failed(self, reason: str) -> MCPServerReport:
        tail = self._stderr_tail()
        if tail:
            reason += f" (server said: {tail})"
        return MCPServerReport(self.name, ok=False, error=reason)

    def _stderr_tail(self) -> str:
        if self._errlog is None or self._errlog.closed:
            return ""
        try:
            self._errlog.flush()
            self._errlog.seek(0, os.SEEK_END)
            size = self._errlog.tell()
            self._errlog.seek(max(0, size - _STDERR_TAIL_BYTES))
            text = self._errlog.read()
        except (OSError, ValueError):
            return ""
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        return " | ".join(lines[-3:])[-300:]

    def _transport(self, stack: contextlib.AsyncExitStack) -> Any:
        config = self.config
        if config.command:
            from mcp.client.stdio import StdioServerParameters, stdio_client

            # The server's stderr must not scribble over the terminal UI; keep it for reports.
            # It lives as long as the connection and is closed in `aclose`.
            self._errlog = tempfile.TemporaryFile(  # noqa: SIM115
                mode="w+", encoding="utf-8", errors="replace"
            )
            params = StdioServerParameters(
                command=config.command,
                args=list(config.args),
                env=dict(config.env) or None,
                cwd=config.cwd,
            )
            return stdio_client(params, errlog=self._errlog)
        from mcp.client.streamable_http import streamable_http_client

        assert config.url is not None
        if not config.headers:
            return streamable_http_client(config.url)
        # The SDK's own factory, so its timeouts and redirect rules still apply.
        from mcp.shared._httpx_utils import create_mcp_http_client

        http = create_mcp_http_client(headers=dict(config.headers))
        stack.push_async_callback(http.aclose)
        return streamable_http_client(config.url, http_client=http)

    async def _serve(self) -> None:
        assert self._ready is not None
        try:
            from mcp import Client

            async with contextlib.AsyncExitStack() as stack:
                client = Client(self._transport(stack), read_timeout_seconds=self.config.timeout_s)
                await stack.enter_async_context(client)
                listed = await self._list_tools(client)
                self._client = client
                self.tools = self._make_tools(listed)
                self._ready.set_result(None)
                await self._stop.wait()
        except Exception as exc:
            if not self._ready.done():
                self._ready.set_exception(exc)
            else:
                self.closed_error = _describe(exc)
                log.info("MCP server %s stopped: %s", self.name, self.closed_error)
        finally:
            self._client = None
            if not self._ready.done():
                self._ready.cancel()

    async def _list_tools(self, client: Any) -> list[Any]:
        tools: list[Any] = []
        cursor = None
        for _ in range(100):  # a server that pages forever must not hang us
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    def _make_tools(self, listed: list[Any]) -> list[MCPTool]:
        made: list[MCPTool] = []
        used: set[str] = set()
        for tool in listed:
            name = tool_name(self.name, tool.name)
            if name in used:  # two names that differ only in unsafe characters
                name = tool_name(self.name, f"{tool.name}_{len(used)}")
            used.add(name)
            schema = dict(tool.input_schema or {})
            schema.setdefault("type", "object")
            schema.setdefault("properties", {})
            described = tool.description or getattr(tool, "title", None) or tool.name
            spec = ToolSpec(name, f"[MCP server {self.name}] {described}", schema)
            made.append(MCPTool(spec, self, tool.name))
        return made

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        client = self._client
        if client is None:
            why = f": {self.closed_error}" if self.closed_error else ""
            raise ToolError(f"MCP server {self.name} is not running{why}")
        try:
            return await client.call_tool(
                tool, arguments, read_timeout_seconds=self.config.timeout_s
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise ToolError(f"MCP server {self.name}, tool {tool}: {_describe(exc)}") from None

    async def aclose(self) -> None:
        """Stop the server (politely when it is running, at once while it is starting)."""
        started = self._client is not None
        self._stop.set()
        task = self._task
        if task is not None and not task.done():
            if not started:
                task.cancel()
            try:
                done, _ = await asyncio.wait({task}, timeout=10)
                if not done:
                    task.cancel()
                    await asyncio.wait({task}, timeout=5)
            except asyncio.CancelledError:
                task.cancel()
                raise
        if self._errlog is not None:
            self._errlog.close()


class MCPTool:
    """One tool of an MCP server, offered to the model as `<server>__<tool>`."""

    risk = Risk.EXEC
    needs_approval = True

    def __init__(self, spec: ToolSpec, connection: MCPServerConnection, remote_name: str) -> None:
        self.spec = spec
        self.connection = connection
        self.remote_name = remote_name
        self.max_chars = 40_000

    @property
    def server(self) -> str:
        return self.connection.name

    async def run(self, args: dict[str, Any]) -> ToolResult:
        result = await self.connection.call(self.remote_name, args)
        text = render_result_content(result.content, getattr(result, "structured_content", None))
        output, truncated = cap_text(text, self.max_chars)
        is_error = bool(getattr(result, "is_error", False))
        return ToolResult(
            output=output,
            is_error=is_error,
            citable=not is_error,
            data={"server": self.server, "tool": self.remote_name, "truncated": truncated},
        )


class MCPToolbox:
    """All configured servers: start them together, collect their tools, close them together."""

    def __init__(
        self,
        configs: list[MCPServerConfig],
        problems: list[MCPServerReport] | None = None,
    ) -> None:
        self.configs = configs
        self.connections: list[MCPServerConnection] = []
        self.reports: list[MCPServerReport] = list(problems or ())

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> MCPToolbox:
        return cls(*load_config(path))

    @property
    def tools(self) -> list[MCPTool]:
        return [tool for connection in self.connections for tool in connection.tools]

    @property
    def errors(self) -> list[MCPServerReport]:
        return [r for r in self.reports if not r.ok]

    async def start(self) -> list[MCPServerReport]:
        connections = [MCPServerConnection(config) for config in self.configs]
        reports = await asyncio.gather(*(c.start() for c in connections))
        for connection, report in zip(connections, reports, strict=True):
            if report.ok:
                self.connections.append(connection)
        self.reports.extend(reports)
        return self.reports

    async def aclose(self) -> None:
        connections, self.connections = self.connections, []
        await asyncio.gather(*(c.aclose() for c in connections), return_exceptions=True)

    async def __aenter__(self) -> MCPToolbox:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
