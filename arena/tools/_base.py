"""Pieces shared by the tools: output caps, workspace confinement, a safe environment."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from engines.agent.tools import ToolError

# Environment variables whose names look like credentials never reach model-run code.
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.IGNORECASE)


def cap_text(text: str, limit: int, *, what: str = "characters") -> tuple[str, bool]:
    """`text` cut to `limit` characters with a note saying how much was left out."""
    if len(text) <= limit:
        return text, False
    hidden = len(text) - limit
    return f"{text[:limit]}\n[truncated: {hidden:,} more {what} not shown]", True


def human_size(n_bytes: int) -> str:
    size = float(n_bytes)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{int(size)} bytes" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def string_arg(args: dict[str, Any], name: str, *, required: bool = True) -> str:
    value = args.get(name)
    if value is None:
        if required:
            raise ToolError(f"missing argument {name!r}")
        return ""
    if not isinstance(value, str):
        raise ToolError(f"argument {name!r} must be a string, not {type(value).__name__}")
    return value


def safe_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The current environment without anything that looks like a credential."""
    env = {k: v for k, v in os.environ.items() if not _SECRET_NAME.search(k)}
    env.update(extra or {})
    return env


class Workspace:
    """A folder tools may read and write in; every path is checked to stay inside it.

    Relative paths are taken from the workspace; absolute paths are accepted only when they
    point inside it. `..` that climbs out and symbolic links that lead out are refused.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).expanduser().resolve()

    @classmethod
    def of(cls, value: Workspace | str | os.PathLike[str]) -> Workspace:
        """A workspace, given one or a folder path."""
        return value if isinstance(value, Workspace) else cls(value)

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    def resolve(self, raw: str) -> Path:
        """The real path for `raw`, or ToolError when it leaves the workspace."""
        if not raw.strip():
            raise ToolError("the path is empty")
        if "\x00" in raw:
            raise ToolError("the path contains a NUL character")
        candidate = Path(raw)
        if not candidate.is_absolute():
            candidate = self.root / candidate
        # First the path as written (no links followed), then where links really lead.
        lexical = Path(os.path.normpath(candidate))
        if not lexical.is_relative_to(self.root):
            how = "climbs out with '..'" if ".." in Path(raw).parts else "is outside it"
            raise ToolError(f"{raw!r} {how}; only paths inside the workspace are allowed")
        real = candidate.resolve()
        if not real.is_relative_to(self.root):
            raise ToolError(
                f"{raw!r} is a symbolic link to a place outside the workspace; not allowed"
            )
        return real

    def display(self, path: Path) -> str:
        """`path` relative to the workspace, for messages."""
        try:
            shown = path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)
        return shown or "."

    def listing(self, folder: Path | None = None, limit: int = 30) -> str:
        """A short list of what a folder holds, to help the model find the right name."""
        folder = folder or self.root
        try:
            entries = sorted(folder.iterdir(), key=lambda p: p.name)
        except OSError:
            return "(cannot list)"
        names = [
            p.name + ("/" if p.is_dir() else "") for p in entries if not p.name.startswith(".")
        ]
        if not names:
            return "(empty)"
        more = f", … ({len(names) - limit} more)" if len(names) > limit else ""
        return ", ".join(names[:limit]) + more
