"""`arena solve`: boards that `arena verify` accepts, JSON output, exit codes, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from engines.bananagrams.verifier import verify
from tests.solver.conftest import dealt_hand


def invoke(*args: str, stdin: str | None = None):
    return CliRunner().invoke(cli, ["solve", *args], input=stdin)


def test_solved_board_passes_verify() -> None:
    hand = dealt_hand(77).lower()
    result = invoke(hand)
    assert result.exit_code == 0, result.stderr
    check = verify(result.stdout, hand=hand.upper())
    assert check.complete
    # The drawn grid above the <board> block is the same board.
    grid_rows = result.stdout.split("\n\n<board>")[0].splitlines()
    assert grid_rows == check.grid
    assert result.stderr.startswith("Solved: 21 tiles")


def test_output_passes_the_real_verify_command(tmp_path: Path) -> None:
    hand = dealt_hand(78)
    board = tmp_path / "board.txt"
    board.write_text(invoke(hand).stdout)
    checked = CliRunner().invoke(cli, ["verify", "--hand", hand, str(board)])
    assert checked.exit_code == 0 and checked.stdout.startswith("VALID: 21 tiles")


def test_json_output() -> None:
    result = invoke("QUARTZITE", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert set(data) == {"solved", "board", "grid", "words", "unplaced", "dump", "seconds"}
    assert data["solved"] and data["unplaced"] == "" and data["dump"] is None
    assert verify(data["board"], hand="QUARTZITE").complete
    assert data["grid"] == verify(data["board"]).grid


def test_unsolvable_hand_exits_1_with_a_dump() -> None:
    hand = "HXCEWCYOHDSAOQYBMAAVR"
    result = invoke(hand, "--json", "--time-limit", "0.3")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert not data["solved"] and data["dump"] == "Q" and data["unplaced"] == "Q"
    assert verify(data["board"], hand=hand).valid
    plain = invoke(hand, "--time-limit", "0.3")
    assert plain.exit_code == 1 and "DUMP Q" in plain.stderr
    assert verify(plain.stdout, hand=hand).valid


def test_extend_a_board_from_stdin() -> None:
    result = invoke("CATSQUA", "--board", "-", stdin="CAT H\n")
    assert result.exit_code == 0, result.stderr
    check = verify(result.stdout, hand="CATSQUA")
    assert check.complete


def test_extend_a_board_from_a_file(tmp_path: Path) -> None:
    start = invoke(dealt_hand(79), "--json")
    board = tmp_path / "board.txt"
    board.write_text(json.loads(start.stdout)["board"])
    hand = dealt_hand(79) + "E"
    result = invoke(hand, "--board", str(board), "--json")
    assert result.exit_code == 0
    assert verify(json.loads(result.stdout)["board"], hand=hand).complete


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        ((), None, "give the hand as LETTERS"),
        (("CAT1",), None, "letters A-Z only"),
        (("   ",), None, "give the hand as LETTERS"),
        (("QQQ",), None, "only 2 Q"),
        (("A" * 145,), None, "144 tiles"),
        (("CAT", "--time-limit", "soon"), None, "--time-limit must be a number"),
        (("CAT", "--time-limit", "-1"), None, "more than 0"),
        (("CAT", "--dictionary", "/no/such/list.txt"), None, "not found"),
        (("CAT", "--board", "/no/such/board.txt"), None, "no such file"),
        (("CAT", "--board", "-"), "CTA H\n", "not valid"),
        (("CAT", "--board", "-"), "DOG H\n", "not in LETTERS: DGO"),
        (("CAT", "--board", "-"), "", "EMPTY_BOARD"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    args: tuple[str, ...], stdin: str | None, message: str
) -> None:
    result = invoke(*args, stdin=stdin)
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: ") and message in lines[0]
    assert "Traceback" not in result.stderr


def test_starts_without_the_ui_or_llm_stack(tmp_path: Path) -> None:
    words = tmp_path / "words.txt"
    words.write_text("CAT\nACT\nAT\n")
    code = (
        "import sys\n"
        "from arena.cli import cli\n"
        "try:\n"
        f"    cli.main(['solve', 'CAT', '--json', '--dictionary', {str(words)!r}])\n"
        "except SystemExit as done:\n"
        "    loaded = [m for m in ('textual', 'litellm', 'httpx', 'sqlite3') if m in sys.modules]\n"
        "    print(done.code, loaded, file=sys.stderr)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.stderr.strip().splitlines()[-1] == "0 []"
    assert json.loads(run.stdout)["solved"]
