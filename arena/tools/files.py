"""`read_file` and `write_file`: files inside the workspace folder, nowhere else."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import logging
from pathlib import Path
from typing import Any

from arena.tools._base import Workspace, cap_text, human_size, string_arg
from engines.agent.llm import ToolSpec
from engines.agent.tools import Risk, ToolError, ToolResult

# Formats people often attach that read_file cannot show; python usually can.
_BINARY_HINTS = {
    ".xlsx": "a spreadsheet (try python with openpyxl or pandas)",
    ".xls": "a spreadsheet (try python with pandas)",
    ".docx": "a Word document (try python with zipfile to read word/document.xml)",
    ".pptx": "a PowerPoint file (try python with zipfile)",
    ".zip": "a zip archive (try python with zipfile)",
    ".png": "an image",
    ".jpg": "an image",
    ".jpeg": "an image",
    ".gif": "an image",
    ".mp3": "an audio file",
    ".wav": "an audio file",
    ".mp4": "a video",
}
_SNIFF_BYTES = 8192


class ReadFileTool:
    """Reads text, CSV (as a table), JSON (pretty) and PDF (text per page) from the workspace."""

    risk = Risk.SAFE
    needs_approval = False

    def __init__(
        self,
        workspace: Workspace | str | Path,
        *,
        max_chars: int = 40_000,
        max_csv_rows: int = 200,
        max_cell_chars: int = 60,
        max_pdf_pages: int = 100,
        max_file_bytes: int = 50 * 1024 * 1024,
    ) -> None:
        self.workspace = Workspace.of(workspace)
        self.max_chars = max_chars
        self.max_csv_rows = max_csv_rows
        self.max_cell_chars = max_cell_chars
        self.max_pdf_pages = max_pdf_pages
        self.max_file_bytes = max_file_bytes
        self.spec = ToolSpec(
            name="read_file",
            description=(
                "Read a file from the workspace folder: plain text, CSV/TSV (shown as a table), "
                "JSON (pretty-printed) or PDF (text of each page). Paths are relative to the "
                f"workspace. Output is capped at {max_chars:,} characters."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path inside the workspace."}
                },
                "required": ["path"],
            },
        )

    async def run(self, args: dict[str, Any]) -> ToolResult:
        raw = string_arg(args, "path")
        path = self.workspace.resolve(raw)
        return await asyncio.to_thread(self._read, raw, path)

    # -- reading, in a worker thread -------------------------------------------------------------

    def _read(self, raw: str, path: Path) -> ToolResult:
        if not path.exists():
            parent = path.parent if path.parent.is_dir() else self.workspace.root
            raise ToolError(
                f"no such file: {raw!r}. The folder {self.workspace.display(parent)!r} holds: "
                f"{self.workspace.listing(parent)}"
            )
        if path.is_dir():
            raise ToolError(
                f"{raw!r} is a folder, not a file. It holds: {self.workspace.listing(path)}"
            )
        if not path.is_file():
            raise ToolError(f"{raw!r} is not a regular file")
        size = path.stat().st_size
        if size > self.max_file_bytes:
            raise ToolError(
                f"{raw!r} is too large to read ({human_size(size)}, at most "
                f"{human_size(self.max_file_bytes)})"
            )
        with path.open("rb") as handle:
            head = handle.read(_SNIFF_BYTES)
        suffix = path.suffix.lower()
        data: dict[str, Any] = {"path": self.workspace.display(path), "bytes": size}
        if head.startswith(b"%PDF-") or suffix == ".pdf":
            text, truncated, pages = self._pdf(raw, path)
            data.update(format="pdf", pages=pages)
        else:
            content = self._decode(raw, path, head, suffix)
            if suffix in (".csv", ".tsv"):
                text, truncated = self._csv(content, suffix)
                data["format"] = "csv"
            elif suffix == ".json":
                text, truncated = self._json(content)
                data["format"] = "json"
            else:
                text, truncated = cap_text(content, self.max_chars)
                data["format"] = "text"
        data["truncated"] = truncated
        return ToolResult(output=text, data=data)

    def _decode(self, raw: str, path: Path, head: bytes, suffix: str) -> str:
        hint = _BINARY_HINTS.get(suffix)
        if b"\x00" in head or hint:
            kind = hint or "a binary file"
            raise ToolError(
                f"{raw!r} looks like {kind}, not text; read_file shows text, CSV, JSON and PDF"
            )
        data = path.read_bytes()
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError:
            pass
        text = data.decode("cp1252", errors="replace")
        # Legacy 8-bit text decodes cleanly; junk is full of control characters.
        controls = sum(1 for ch in text[:_SNIFF_BYTES] if ord(ch) < 32 and ch not in "\t\r\n\f")
        if controls > len(text[:_SNIFF_BYTES]) * 0.05:
            raise ToolError(f"{raw!r} looks like a binary file, not text")
        return text

    def _csv(self, content: str, suffix: str) -> tuple[str, bool]:
        sample = content[:_SNIFF_BYTES]
        try:
            dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
        except csv.Error:
            dialect = csv.excel_tab if suffix == ".tsv" else csv.excel
        rows = list(csv.reader(io.StringIO(content), dialect))
        if not rows:
            return "(empty CSV file)", False
        header, body = rows[0], rows[1:]
        shown = body[: self.max_csv_rows]
        width = max(len(r) for r in [header, *shown])

        def cell(value: str) -> str:
            value = " ".join(value.split())
            if len(value) > self.max_cell_chars:
                value = value[: self.max_cell_chars - 1] + "…"
            return value.replace("|", "\\|")

        table = [[cell(v) for v in row] + [""] * (width - len(row)) for row in [header, *shown]]
        widths = [max(len(row[i]) for row in table) for i in range(width)]

        def line(row: list[str]) -> str:
            return "| " + " | ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) + " |"

        out = [line(table[0]), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
        out += [line(row) for row in table[1:]]
        truncated = len(body) > len(shown)
        out.append(
            f"[{len(body):,} rows × {width} columns"
            + (f"; showing the first {len(shown):,}]" if truncated else "]")
        )
        text, cut = cap_text("\n".join(out), self.max_chars)
        return text, truncated or cut

    def _json(self, content: str) -> tuple[str, bool]:
        try:
            parsed = json.loads(content)
        except ValueError as exc:
            text, cut = cap_text(content, self.max_chars)
            return f"[not valid JSON: {exc}]\n{text}", cut
        return cap_text(json.dumps(parsed, indent=2, ensure_ascii=False), self.max_chars)

    def _pdf(self, raw: str, path: Path) -> tuple[str, bool, int]:
        import pypdf

        logging.getLogger("pypdf").setLevel(logging.ERROR)
        try:
            reader = pypdf.PdfReader(str(path))
            if reader.is_encrypted:
                reader.decrypt("")
            total = len(reader.pages)
            parts = []
            found_text = False
            for number in range(min(total, self.max_pdf_pages)):
                page_text = (reader.pages[number].extract_text() or "").strip()
                found_text = found_text or bool(page_text)
                parts.append(f"--- page {number + 1} of {total} ---\n{page_text}")
        except Exception as exc:  # pypdf raises many kinds for broken files
            raise ToolError(f"could not read the PDF {raw!r}: {exc}") from None
        text = "\n\n".join(parts) if parts else "(the PDF has no pages)"
        if total > self.max_pdf_pages:
            text += f"\n[only the first {self.max_pdf_pages} of {total} pages are shown]"
        if parts and not found_text:
            text += "\n[no text found: the PDF may be scanned images]"
        capped, cut = cap_text(text, self.max_chars)
        return capped, cut or total > self.max_pdf_pages, total


class WriteFileTool:
    """Writes (or appends) a text file inside the workspace; always behind an approval."""

    risk = Risk.WRITE
    needs_approval = True

    def __init__(self, workspace: Workspace | str | Path, *, max_chars: int = 1_000_000) -> None:
        self.workspace = Workspace.of(workspace)
        self.max_chars = max_chars
        self.spec = ToolSpec(
            name="write_file",
            description=(
                "Write a text file in the workspace folder (folders are created as needed). "
                "Replaces the file unless append is true. A person must approve every write."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path inside the workspace."},
                    "content": {"type": "string", "description": "The text to write."},
                    "append": {
                        "type": "boolean",
                        "description": "Add to the end instead of replacing.",
                        "default": False,
                    },
                },
                "required": ["path", "content"],
            },
        )

    async def run(self, args: dict[str, Any]) -> ToolResult:
        raw = string_arg(args, "path")
        content = string_arg(args, "content")
        append = bool(args.get("append", False))
        if len(content) > self.max_chars:
            raise ToolError(
                f"the content is too long ({len(content):,} characters, at most {self.max_chars:,})"
            )
        path = self.workspace.resolve(raw)
        if path == self.workspace.root or path.is_dir():
            raise ToolError(f"{raw!r} is a folder; give a file name")
        await asyncio.to_thread(self._write, path, content, append)
        verb = "Appended" if append else "Wrote"
        return ToolResult(
            output=f"{verb} {len(content):,} characters to {self.workspace.display(path)}",
            citable=False,
            data={"path": self.workspace.display(path), "chars": len(content), "append": append},
        )

    def _write(self, path: Path, content: str, append: bool) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # The folders just made must not have been swapped for links leading out.
            self.workspace.resolve(str(path))
            with path.open("a" if append else "w", encoding="utf-8") as handle:
                handle.write(content)
        except OSError as exc:
            raise ToolError(
                f"could not write {self.workspace.display(path)}: {exc.strerror or exc}"
            ) from None
