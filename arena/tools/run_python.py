"""The `python` tool: run a snippet in a separate, limited Python process."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from arena.tools._base import Workspace, string_arg
from arena.tools._process import describe_outcome, run_limited
from engines.agent.llm import ToolSpec
from engines.agent.tools import Risk, ToolError, ToolResult

MAX_CODE_CHARS = 100_000


class PythonTool:
    """Runs code with `python -I` in a fresh temporary folder that is deleted afterwards.

    Limits: wall time (the whole process group is killed), address space (RLIMIT_AS), output
    (each stream capped, with a note). The child sees no credentials from our environment.
    If a workspace is given, its absolute path is in the `WORKSPACE` environment variable so
    code can read the question's files.
    """

    risk = Risk.EXEC

    def __init__(
        self,
        *,
        timeout_s: float = 30.0,
        memory_limit_mb: int = 1024,
        output_limit: int = 20_000,
        workspace: Workspace | str | Path | None = None,
        needs_approval: bool = False,
        python: str | None = None,
    ) -> None:
        self.timeout_s = timeout_s
        self.memory_limit_mb = memory_limit_mb
        self.output_limit = output_limit
        self.workspace = Workspace(workspace) if isinstance(workspace, str | Path) else workspace
        self.needs_approval = needs_approval
        self.python = python or sys.executable
        files = (
            " The folder with the task's files is in the WORKSPACE environment variable "
            "(read it with os.environ['WORKSPACE'])."
            if self.workspace
            else ""
        )
        self.spec = ToolSpec(
            name="python",
            description=(
                "Run Python 3 code in a fresh process and return what it prints (stdout and "
                f"stderr). Use print() for results. Limits: {timeout_s:g} s, "
                f"{memory_limit_mb} MB of memory, {output_limit:,} characters of output per "
                "stream. Nothing persists between calls; there is no network guarantee." + files
            ),
            parameters={
                "type": "object",
                "properties": {
                    "code": {"type": "string", "description": "The Python source to run."}
                },
                "required": ["code"],
            },
        )

    async def run(self, args: dict[str, Any]) -> ToolResult:
        code = string_arg(args, "code")
        if not code.strip():
            raise ToolError("the code is empty")
        if len(code) > MAX_CODE_CHARS:
            raise ToolError(
                f"the code is too long ({len(code):,} characters, at most {MAX_CODE_CHARS:,})"
            )
        with tempfile.TemporaryDirectory(prefix="arena-python-", ignore_cleanup_errors=True) as tmp:
            folder = Path(tmp)
            (folder / "main.py").write_text(code, encoding="utf-8")
            env = {
                "PATH": "/usr/local/bin:/usr/bin:/bin",
                "HOME": tmp,
                "TMPDIR": tmp,
                "LANG": "C.UTF-8",
                "LC_ALL": "C.UTF-8",
                "MPLBACKEND": "Agg",
                # One thread each: BLAS thread pools reserve memory per thread.
                "OPENBLAS_NUM_THREADS": "1",
                "OMP_NUM_THREADS": "1",
                "MKL_NUM_THREADS": "1",
            }
            if self.workspace is not None:
                env["WORKSPACE"] = str(self.workspace.root)
            outcome = await run_limited(
                [self.python, "-I", "-X", "utf8", "main.py"],
                cwd=folder,
                env=env,
                timeout_s=self.timeout_s,
                output_limit=self.output_limit,
                memory_limit_bytes=self.memory_limit_mb * 1024 * 1024,
            )
        return ToolResult(
            output=describe_outcome(outcome, self.timeout_s),
            is_error=not outcome.ok,
            citable=outcome.ok,
            data={
                "exit_code": outcome.exit_code,
                "timed_out": outcome.timed_out,
                "duration_s": round(outcome.duration_s, 3),
                "stdout_bytes": outcome.stdout_bytes,
                "stderr_bytes": outcome.stderr_bytes,
            },
        )
