"""Tools with side effects, each following `engines.agent.tools.Tool`.

| tool         | class            | risk    | approval        |
|--------------|------------------|---------|-----------------|
| `python`     | `PythonTool`     | exec    | optional (flag) |
| `read_file`  | `ReadFileTool`   | safe    | no              |
| `read_url`   | `ReadUrlTool`    | network | no              |
| `write_file` | `WriteFileTool`  | write   | always          |
| `shell`      | `ShellTool`      | exec    | always          |
| MCP tools    | `MCPTool`        | exec    | always          |

`default_tools(workspace)` builds the standard set; MCP tools come from
`MCPToolbox.from_file(path)` (an async context manager, see `arena.tools.mcp_servers`).
Heavy libraries (httpx, BeautifulSoup, pypdf, mcp) are imported only when a tool first needs
them.
"""

from __future__ import annotations

import os

from arena.tools._base import Workspace
from arena.tools.files import ReadFileTool, WriteFileTool
from arena.tools.mcp_servers import (
    MCPConfigError,
    MCPServerConfig,
    MCPServerReport,
    MCPTool,
    MCPToolbox,
    load_config,
)
from arena.tools.run_python import PythonTool
from arena.tools.shell import ShellTool
from arena.tools.web import ReadUrlTool, html_to_text
from engines.agent.tools import Tool


def default_tools(
    workspace: str | os.PathLike[str] | Workspace,
    *,
    python: bool = True,
    python_needs_approval: bool = False,
    read_url: bool = True,
    write_file: bool = True,
    shell: bool = True,
    python_timeout_s: float = 30.0,
    python_memory_mb: int = 1024,
    shell_timeout_s: float = 60.0,
) -> list[Tool]:
    """The standard tools over one workspace folder: python, read_file, read_url, write_file,
    shell (switch any off with its flag)."""
    space = Workspace.of(workspace)
    tools: list[Tool] = []
    if python:
        tools.append(
            PythonTool(
                workspace=space,
                timeout_s=python_timeout_s,
                memory_limit_mb=python_memory_mb,
                needs_approval=python_needs_approval,
            )
        )
    tools.append(ReadFileTool(space))
    if read_url:
        tools.append(ReadUrlTool())
    if write_file:
        tools.append(WriteFileTool(space))
    if shell:
        tools.append(ShellTool(space, timeout_s=shell_timeout_s))
    return tools


__all__ = [
    "MCPConfigError",
    "MCPServerConfig",
    "MCPServerReport",
    "MCPTool",
    "MCPToolbox",
    "PythonTool",
    "ReadFileTool",
    "ReadUrlTool",
    "ShellTool",
    "Workspace",
    "WriteFileTool",
    "default_tools",
    "html_to_text",
    "load_config",
]
