"""The python and shell tools: real child processes under time, memory and output limits."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from arena.tools import PythonTool, ShellTool, default_tools
from engines.agent.tools import Risk, ToolError


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); check its state.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def wait_for_file(path: Path, timeout_s: float = 10.0) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


async def test_python_runs_code_and_captures_both_streams():
    result = await PythonTool().run(
        {"code": "import sys\nprint(6 * 7)\nprint('careful', file=sys.stderr)"}
    )
    assert result.output == "42\n[stderr]\ncareful"
    assert not result.is_error and result.citable
    assert result.data["exit_code"] == 0


async def test_python_reports_errors_with_exit_code():
    result = await PythonTool().run({"code": "print('before')\n1/0"})
    assert result.is_error and not result.citable
    assert "before" in result.output
    assert "ZeroDivisionError" in result.output
    assert result.output.endswith("[exit code 1]")


async def test_python_is_exec_risk_and_gate_is_configurable():
    tool = PythonTool()
    assert tool.risk is Risk.EXEC and tool.needs_approval is False
    assert PythonTool(needs_approval=True).needs_approval is True


async def test_python_time_limit_kills_the_whole_process_group(tmp_path):
    code = (
        "import os, subprocess, sys\n"
        "child = subprocess.Popen(['sleep', '60'])\n"
        "open(os.path.join(os.environ['WORKSPACE'], 'pids'), 'w')"
        ".write(f'{os.getpid()} {child.pid}')\n"
        "while True: pass\n"
    )
    started = time.monotonic()
    result = await PythonTool(timeout_s=1.0, workspace=tmp_path).run({"code": code})
    assert time.monotonic() - started < 5
    assert result.is_error and result.data["timed_out"] is True
    assert "time limit of 1 s" in result.output
    for pid in map(int, (tmp_path / "pids").read_text().split()):
        assert not process_alive(pid)


async def test_python_memory_limit():
    code = "block = bytearray(300 * 1024 * 1024)\nprint('allocated', len(block))"
    result = await PythonTool(memory_limit_mb=150).run({"code": code})
    assert result.is_error
    assert "MemoryError" in result.output
    assert "allocated" not in result.output
    roomy = await PythonTool(memory_limit_mb=1024).run({"code": code})
    assert roomy.output == f"allocated {300 * 1024 * 1024}"


async def test_python_output_is_capped():
    result = await PythonTool(output_limit=1000).run({"code": "print('z' * 100_000)"})
    assert result.output.startswith("z" * 1000)
    assert "[truncated:" in result.output
    assert len(result.output) < 1100
    assert result.data["stdout_bytes"] == 100_001


async def test_python_runs_in_a_fresh_folder_that_is_deleted(tmp_path):
    code = (
        "import os\nopen('scratch.txt', 'w').write('x')\nprint(os.getcwd())\nprint(os.listdir('.'))"
    )
    first = await PythonTool().run({"code": code})
    folder, listing = first.output.splitlines()
    assert listing == "['main.py', 'scratch.txt']"
    assert not Path(folder).exists()
    second = await PythonTool().run({"code": code})
    assert second.output.splitlines()[0] != folder


async def test_python_sees_no_credentials_and_is_isolated(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    monkeypatch.setenv("PYTHONPATH", "/somewhere/evil")
    code = "import os, sys\nprint(os.environ.get('OPENAI_API_KEY'))\nprint(sys.flags.isolated)"
    result = await PythonTool().run({"code": code})
    assert result.output == "None\n1"


async def test_python_workspace_files_are_reachable(tmp_path):
    (tmp_path / "numbers.txt").write_text("1 2 3 4")
    code = (
        "import os\n"
        "path = os.path.join(os.environ['WORKSPACE'], 'numbers.txt')\n"
        "print(sum(map(int, open(path).read().split())))"
    )
    result = await PythonTool(workspace=tmp_path).run({"code": code})
    assert result.output == "10"
    assert "WORKSPACE" in PythonTool(workspace=tmp_path).spec.description


async def test_python_cancellation_kills_the_process(tmp_path):
    code = (
        "import os, time\n"
        "open(os.path.join(os.environ['WORKSPACE'], 'pid'), 'w').write(str(os.getpid()))\n"
        "time.sleep(60)\n"
    )
    task = asyncio.create_task(PythonTool(timeout_s=60, workspace=tmp_path).run({"code": code}))
    pid = int(await wait_for_file(tmp_path / "pid"))
    assert process_alive(pid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not process_alive(pid)


async def test_python_rejects_bad_arguments():
    with pytest.raises(ToolError, match="missing argument 'code'"):
        await PythonTool().run({})
    with pytest.raises(ToolError, match="empty"):
        await PythonTool().run({"code": "   "})


async def test_shell_runs_in_the_workspace(tmp_path):
    (tmp_path / "a.txt").write_text("hello")
    tool = ShellTool(tmp_path)
    assert tool.needs_approval is True and tool.risk is Risk.EXEC
    result = await tool.run({"command": "pwd; cat a.txt; echo oops >&2; exit 3"})
    assert result.output.startswith(f"{tmp_path.resolve()}\nhello")
    assert "[stderr]\noops" in result.output
    assert result.output.endswith("[exit code 3]")
    assert result.is_error and result.data["exit_code"] == 3


async def test_shell_time_limit_and_output_cap(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_SECRET_TOKEN", "hunter2")
    tool = ShellTool(tmp_path, timeout_s=0.5, output_limit=100)
    started = time.monotonic()
    slow = await tool.run({"command": "sleep 30"})
    assert slow.data["timed_out"] is True and time.monotonic() - started < 5
    loud = await tool.run({"command": "yes | head -c 100000; echo ${MY_SECRET_TOKEN:-none}"})
    assert "[truncated:" in loud.output and len(loud.output) < 200
    quiet = await tool.run({"command": "echo ${MY_SECRET_TOKEN:-none}"})
    assert quiet.output == "none"


async def test_shell_does_not_hang_on_an_escaped_background_process(tmp_path):
    # setsid leaves our process group, so it cannot be killed with it, yet holds our pipes.
    tool = ShellTool(tmp_path, timeout_s=1)
    started = time.monotonic()
    result = await tool.run({"command": "setsid sleep 8 & echo started; sleep 30"})
    assert time.monotonic() - started < 5
    assert result.output.startswith("started")
    assert result.data["timed_out"] is True


def test_default_tools(tmp_path):
    tools = default_tools(tmp_path)
    assert [t.spec.name for t in tools] == [
        "python",
        "read_file",
        "read_url",
        "write_file",
        "shell",
    ]
    gated = {t.spec.name for t in tools if t.needs_approval}
    assert gated == {"write_file", "shell"}
    trimmed = default_tools(tmp_path, shell=False, read_url=False, python_needs_approval=True)
    assert [t.spec.name for t in trimmed] == ["python", "read_file", "write_file"]
    assert trimmed[0].needs_approval is True
    for tool in tools:
        assert tool.spec.parameters["type"] == "object"
        assert set(tool.spec.parameters["required"]) <= set(tool.spec.parameters["properties"])
