"""The `shell` tool: a command line run in the workspace, always behind an approval."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.tools._base import Workspace, safe_environment, string_arg
from arena.tools._process import describe_outcome, run_limited
from engines.agent.llm import ToolSpec
from engines.agent.tools import Risk, ToolError, ToolResult

MAX_COMMAND_CHARS = 10_000


class ShellTool:
    """Runs `/bin/sh -c COMMAND` in the workspace with a time limit and capped output.

    Credentials in our environment (names with KEY, TOKEN, SECRET, ...) are not passed on.
    """

    risk = Risk.EXEC
    needs_approval = True

    def __init__(
        self,
        workspace: Workspace | str | Path,
        *,
        timeout_s: float = 60.0,
        output_limit: int = 20_000,
        memory_limit_mb: int | None = None,
        shell: str = "/bin/sh",
    ) -> None:
        self.workspace = Workspace.of(workspace)
        self.timeout_s = timeout_s
        self.output_limit = output_limit
        self.memory_limit_mb = memory_limit_mb
        self.shell = shell
        self.spec = ToolSpec(
            name="shell",
            description=(
                "Run a shell command (POSIX sh) in the workspace folder and return its output. "
                f"Time limit {timeout_s:g} s; output capped at {output_limit:,} characters per "
                "stream. A person must approve every command."
            ),
            parameters={
                "type": "object",
                "properties": {"command": {"type": "string", "description": "The command line."}},
                "required": ["command"],
            },
        )

    async def run(self, args: dict[str, Any]) -> ToolResult:
        command = string_arg(args, "command")
        if not command.strip():
            raise ToolError("the command is empty")
        if len(command) > MAX_COMMAND_CHARS:
            raise ToolError(f"the command is too long ({len(command):,} characters)")
        if not self.workspace.root.is_dir():
            raise ToolError(f"the workspace folder {self.workspace.root} does not exist")
        outcome = await run_limited(
            [self.shell, "-c", command],
            cwd=self.workspace.root,
            env=safe_environment({"PWD": str(self.workspace.root)}),
            timeout_s=self.timeout_s,
            output_limit=self.output_limit,
            memory_limit_bytes=self.memory_limit_mb * 1024 * 1024 if self.memory_limit_mb else None,
        )
        return ToolResult(
            output=describe_outcome(outcome, self.timeout_s),
            is_error=not outcome.ok,
            citable=outcome.ok,
            data={
                "exit_code": outcome.exit_code,
                "timed_out": outcome.timed_out,
                "duration_s": round(outcome.duration_s, 3),
            },
        )
