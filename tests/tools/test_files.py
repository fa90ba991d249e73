"""read_file and write_file: confinement to the workspace and the formats they show."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from arena.tools import ReadFileTool, Workspace, WriteFileTool
from engines.agent.tools import Risk, ToolError


def make_pdf(pages: list[str]) -> bytes:
    """A minimal valid PDF with one line of Helvetica text per page."""
    objects: list[bytes] = []
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    font_id = 3 + 2 * len(pages)
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    for i, text in enumerate(pages):
        content = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font_id} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    root.mkdir()
    (root / "notes.txt").write_text("Bananas are berries.\nStrawberries are not.\n")
    (root / "sub").mkdir()
    (root / "sub" / "deep.txt").write_text("deep inside")
    (tmp_path / "secret.txt").write_text("TOP SECRET")
    return root


@pytest.fixture
def reader(workspace: Path) -> ReadFileTool:
    return ReadFileTool(workspace)


async def test_reads_text_by_relative_and_absolute_path(reader, workspace):
    result = await reader.run({"path": "notes.txt"})
    assert "Bananas are berries." in result.output
    assert result.citable and not result.is_error
    inside = await reader.run({"path": str(workspace / "sub" / "deep.txt")})
    assert inside.output == "deep inside"
    harmless = await reader.run({"path": "sub/../notes.txt"})
    assert "Bananas" in harmless.output


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("../secret.txt", "climbs out"),
        ("sub/../../secret.txt", "climbs out"),
        ("/etc/passwd", "outside"),
        ("", "empty"),
        ("bad\x00name", "NUL"),
    ],
)
async def test_paths_outside_the_workspace_are_refused(reader, workspace, path, words):
    with pytest.raises(ToolError, match=words):
        await reader.run({"path": path})


async def test_absolute_path_to_the_secret_is_refused(reader, workspace):
    with pytest.raises(ToolError, match="outside"):
        await reader.run({"path": str(workspace.parent / "secret.txt")})


async def test_symlink_escapes_are_refused(reader, workspace):
    (workspace / "innocent.txt").symlink_to(workspace.parent / "secret.txt")
    (workspace / "portal").symlink_to(workspace.parent, target_is_directory=True)
    for path in ("innocent.txt", "portal/secret.txt"):
        with pytest.raises(ToolError, match="symbolic link"):
            await reader.run({"path": path})


async def test_symlink_inside_the_workspace_is_fine(reader, workspace):
    (workspace / "alias.txt").symlink_to(workspace / "notes.txt")
    result = await reader.run({"path": "alias.txt"})
    assert "Bananas" in result.output


async def test_missing_file_lists_what_is_there(reader):
    with pytest.raises(ToolError) as caught:
        await reader.run({"path": "nope.txt"})
    message = str(caught.value)
    assert "no such file" in message
    assert "notes.txt" in message and "sub/" in message


async def test_directory_is_not_a_file(reader):
    with pytest.raises(ToolError, match="is a folder.*deep.txt"):
        await reader.run({"path": "sub"})


async def test_binary_junk_is_refused(reader, workspace):
    (workspace / "blob.bin").write_bytes(bytes(range(256)) * 10)
    with pytest.raises(ToolError, match="binary"):
        await reader.run({"path": "blob.bin"})
    (workspace / "table.xlsx").write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(ToolError, match="spreadsheet"):
        await reader.run({"path": "table.xlsx"})


async def test_legacy_encoded_text_is_read(reader, workspace):
    (workspace / "old.txt").write_bytes("Café crème".encode("cp1252"))
    result = await reader.run({"path": "old.txt"})
    assert result.output == "Café crème"


async def test_long_text_is_capped_with_a_note(workspace):
    (workspace / "long.txt").write_text("x" * 5000)
    result = await ReadFileTool(workspace, max_chars=1000).run({"path": "long.txt"})
    assert result.output.startswith("x" * 1000)
    assert "[truncated: 4,000 more characters not shown]" in result.output
    assert len(result.output) < 1100
    assert result.data["truncated"] is True


async def test_file_size_limit(workspace):
    (workspace / "big.txt").write_text("y" * 10_000)
    with pytest.raises(ToolError, match="too large"):
        await ReadFileTool(workspace, max_file_bytes=1000).run({"path": "big.txt"})


async def test_csv_becomes_a_table_with_capped_rows(workspace):
    rows = ["city,fruit,tons"] + [f"City {i},banana,{i * 10}" for i in range(50)]
    (workspace / "harvest.csv").write_text("\n".join(rows) + "\n")
    result = await ReadFileTool(workspace, max_csv_rows=5).run({"path": "harvest.csv"})
    lines = result.output.splitlines()
    assert lines[0].split("|")[1].strip() == "city"
    assert set(lines[1]) <= {"|", "-"}
    assert "| City 4 | banana | 40   |" in result.output
    assert "City 5" not in result.output
    assert "[50 rows × 3 columns; showing the first 5]" in result.output
    assert result.data["format"] == "csv"


async def test_semicolon_csv_is_sniffed(workspace):
    (workspace / "euro.csv").write_text("name;price\nApfel;1,20\nBirne;0,99\n")
    result = await ReadFileTool(workspace).run({"path": "euro.csv"})
    assert "| Apfel | 1,20  |" in result.output


async def test_json_is_pretty_printed(reader, workspace):
    (workspace / "data.json").write_text(json.dumps({"fruit": "banana", "n": [1, 2]}))
    result = await reader.run({"path": "data.json"})
    assert result.output == json.dumps({"fruit": "banana", "n": [1, 2]}, indent=2)
    (workspace / "broken.json").write_text('{"fruit": ')
    broken = await reader.run({"path": "broken.json"})
    assert broken.output.startswith("[not valid JSON")
    assert '{"fruit": ' in broken.output


async def test_pdf_text_per_page(reader, workspace):
    (workspace / "report.pdf").write_bytes(make_pdf(["Yellow bananas", "Green plantains"]))
    result = await reader.run({"path": "report.pdf"})
    assert "--- page 1 of 2 ---\nYellow bananas" in result.output
    assert "--- page 2 of 2 ---\nGreen plantains" in result.output
    assert result.data["pages"] == 2


async def test_pdf_page_cap_and_broken_pdf(workspace):
    (workspace / "many.pdf").write_bytes(make_pdf([f"Page text {i}" for i in range(5)]))
    result = await ReadFileTool(workspace, max_pdf_pages=2).run({"path": "many.pdf"})
    assert "Page text 1" in result.output and "Page text 2" not in result.output
    assert "only the first 2 of 5 pages" in result.output
    (workspace / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not a pdf at all")
    with pytest.raises(ToolError, match="could not read the PDF"):
        await ReadFileTool(workspace).run({"path": "broken.pdf"})


async def test_read_file_is_safe_and_ungated(reader):
    assert reader.risk is Risk.SAFE and reader.needs_approval is False
    assert reader.spec.name == "read_file"


async def test_write_file_writes_inside_and_appends(workspace):
    writer = WriteFileTool(workspace)
    assert writer.needs_approval is True and writer.risk is Risk.WRITE
    result = await writer.run({"path": "out/answer.txt", "content": "42\n"})
    assert (workspace / "out" / "answer.txt").read_text() == "42\n"
    assert "out/answer.txt" in result.output
    assert result.citable is False
    await writer.run({"path": "out/answer.txt", "content": "43\n", "append": True})
    assert (workspace / "out" / "answer.txt").read_text() == "42\n43\n"


@pytest.mark.parametrize("path", ["../evil.txt", "/tmp/evil-arena.txt", "portal/evil.txt"])
async def test_write_file_cannot_escape(workspace, path):
    (workspace / "portal").symlink_to(workspace.parent, target_is_directory=True)
    with pytest.raises(ToolError):
        await WriteFileTool(workspace).run({"path": path, "content": "pwned"})
    assert not (workspace.parent / "evil.txt").exists()
    assert not Path("/tmp/evil-arena.txt").exists()


async def test_write_file_refuses_folders_and_huge_content(workspace):
    writer = WriteFileTool(workspace, max_chars=10)
    with pytest.raises(ToolError, match="folder"):
        await writer.run({"path": "sub", "content": "x"})
    with pytest.raises(ToolError, match="too long"):
        await writer.run({"path": "a.txt", "content": "x" * 11})
    with pytest.raises(ToolError, match="must be a string"):
        await writer.run({"path": "a.txt", "content": 5})


def test_workspace_display_and_resolution(workspace):
    space = Workspace(workspace)
    assert space.display(space.resolve("sub/deep.txt")) == "sub/deep.txt"
    assert space.resolve(".") == workspace.resolve()
    assert os.path.isabs(space.resolve("x/y"))
