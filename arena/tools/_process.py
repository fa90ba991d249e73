"""Run a child process with a time limit, a memory limit and capped output.

The child gets its own process group, so a time-out or a cancellation kills everything it
started, not only the first process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.tools._base import human_size

READ_CHUNK = 64 * 1024
REAP_TIMEOUT_S = 1.0


@dataclass(frozen=True)
class ProcessOutcome:
    exit_code: int | None
    stdout: str
    stderr: str
    stdout_bytes: int  # everything the child wrote, shown or not
    stderr_bytes: int
    timed_out: bool
    duration_s: float

    @property
    def ok(self) -> bool:
        return not self.timed_out and self.exit_code == 0


class _Capture:
    """Keeps the first `limit` bytes of a stream and counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = bytearray()
        self.total = 0

    async def drain(self, stream: asyncio.StreamReader | None) -> None:
        if stream is None:
            return
        while chunk := await stream.read(READ_CHUNK):
            self.total += len(chunk)
            room = self.limit - len(self.kept)
            if room > 0:
                self.kept += chunk[:room]

    def text(self) -> str:
        text = self.kept.decode("utf-8", errors="replace")
        hidden = self.total - len(self.kept)
        if hidden > 0:
            text += f"\n[truncated: {human_size(hidden)} more not shown]"
        return text


def _limits(memory_bytes: int | None, cpu_seconds: int | None) -> Callable[[], None]:
    def apply() -> None:  # runs in the child between fork and exec
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if memory_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        if cpu_seconds is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))

    return apply


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


async def _reap(process: asyncio.subprocess.Process) -> None:
    """Wait for the killed child, then close our ends of its pipes.

    On Python 3.11 `Process.wait()` also waits for the pipes to close, which never happens if
    a grandchild escaped the process group (setsid) and still holds them; so the wait is
    bounded and the pipes are closed by hand.
    """
    if process.returncode is None:
        # Shielded: a cancelled caller must still not leave a zombie behind.
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await asyncio.wait_for(asyncio.shield(process.wait()), REAP_TIMEOUT_S)
    transport = getattr(process, "_transport", None)
    if transport is not None:
        transport.close()


async def run_limited(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | Path,
    env: dict[str, str],
    timeout_s: float,
    output_limit: int,
    memory_limit_bytes: int | None = None,
) -> ProcessOutcome:
    """Run `argv`; kill its whole process group on time-out or cancellation."""
    started = time.monotonic()
    cpu_seconds = int(timeout_s) + 2  # a backstop if the wall clock kill were ever missed
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=str(cwd),
        env=env,
        start_new_session=True,
        preexec_fn=_limits(memory_limit_bytes, cpu_seconds),
    )
    out, err = _Capture(output_limit), _Capture(output_limit)
    timed_out = False
    try:
        async with asyncio.timeout(timeout_s):
            await asyncio.gather(out.drain(process.stdout), err.drain(process.stderr))
            await process.wait()
    except TimeoutError:
        timed_out = True
    finally:
        # Also kills children the process left running in the background.
        _kill_group(process)
        await _reap(process)
    return ProcessOutcome(
        exit_code=None if timed_out else process.returncode,
        stdout=out.text(),
        stderr=err.text(),
        stdout_bytes=out.total,
        stderr_bytes=err.total,
        timed_out=timed_out,
        duration_s=time.monotonic() - started,
    )


def describe_outcome(outcome: ProcessOutcome, timeout_s: float) -> str:
    """The text the model sees: output, then how the process ended if not cleanly."""
    parts = []
    if outcome.stdout:
        parts.append(outcome.stdout.rstrip("\n"))
    if outcome.stderr:
        parts.append("[stderr]\n" + outcome.stderr.rstrip("\n"))
    if outcome.timed_out:
        parts.append(f"[killed: the time limit of {timeout_s:g} s was reached]")
    elif outcome.exit_code is not None and outcome.exit_code < 0:
        try:
            name = signal.Signals(-outcome.exit_code).name
        except ValueError:
            name = f"signal {-outcome.exit_code}"
        parts.append(f"[killed by {name}]")
    elif outcome.exit_code:
        parts.append(f"[exit code {outcome.exit_code}]")
    if not parts:
        parts.append("(no output)")
    return "\n".join(parts)
