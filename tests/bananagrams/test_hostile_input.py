"""Hostile input through the real `arena verify` command, run as a separate process.

Every case ends in a clear one-line error (exit 2) or a verdict (exit 0 valid / 1 invalid, with
the right code in --json), never a traceback, and quickly: the bound here is generous to stay
clear of slow CI machines; benchmarks/verify.py measures the real times.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TIME_LIMIT = 5.0  # seconds for a whole process; a normal run takes well under 0.3 s
VALID = "CAT H\nTAR[0] @ CAT[2] V"
RUN_ARENA = "from arena.cli import main; main()"


def arena(*args: str, stdin: bytes = b"", env: dict | None = None) -> subprocess.CompletedProcess:
    """Run `arena ARGS...` in a fresh interpreter (the console script's entry point)."""
    result = subprocess.run(
        [sys.executable, "-c", RUN_ARENA, *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        timeout=TIME_LIMIT,
        env={**os.environ, **(env or {})},
    )
    stderr = result.stderr.decode("utf-8", errors="replace")
    assert "Traceback" not in stderr, stderr
    return result


def verify_json(board: bytes | str, *args: str) -> tuple[int, dict]:
    data = board.encode() if isinstance(board, str) else board
    result = arena("verify", "--json", *args, "-", stdin=data)
    assert result.returncode in (0, 1), result.stderr
    assert result.stderr == b""
    return result.returncode, json.loads(result.stdout)


def error_codes(report: dict) -> list[str]:
    return [issue["code"] for issue in report["errors"]]


def one_line_error(result: subprocess.CompletedProcess, *fragments: str) -> str:
    assert result.returncode == 2
    assert result.stdout == b""
    message = result.stderr.decode("utf-8", errors="replace").strip()
    assert len(message.splitlines()) == 1, message
    assert message.startswith("arena: "), message
    for fragment in fragments:
        assert fragment in message
    return message


# --- sizes -----------------------------------------------------------------------------------


def test_five_megabyte_board_is_too_large(tmp_path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"CAT H\n" + b"TAR[0] @ CAT[2] V\n" * (5 * 1024 * 1024 // 18))
    result = arena("verify", "--json", str(path))
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert error_codes(report) == ["BOARD_TOO_LARGE"]
    assert "characters" in report["errors"][0]["message"]


def test_input_over_the_read_limit_is_a_usage_error(tmp_path):
    path = tmp_path / "huge.txt"
    path.write_bytes(b"A" * (16 * 1024 * 1024 + 1))
    one_line_error(arena("verify", str(path)), "larger than 16 MB")


def test_hundred_thousand_lines():
    status, report = verify_json("CAT H\n" + "AT[0] @ CAT[1] V\n" * 99_999)
    assert status == 1 and error_codes(report) == ["BOARD_TOO_LARGE"]
    status, report = verify_json("A\n" * 100_000)
    assert status == 1 and error_codes(report) == ["BOARD_TOO_LARGE"]
    assert "100,000 lines" in report["errors"][0]["message"]


def test_ten_thousand_letter_word():
    status, report = verify_json("A" * 10_000 + " H")
    assert status == 1 and error_codes(report) == ["BOARD_TOO_LARGE"]
    # A long word under the limits is checked, and the message stays short.
    status, report = verify_json("A" * 1_500 + " H")
    assert status == 1 and error_codes(report) == ["INVALID_WORD"]
    assert len(report["errors"][0]["message"]) < 200


def test_drawn_grid_of_ten_thousand_letters():
    status, report = verify_json("\n".join(["CAT" * 100] * 34))
    assert status == 1 and error_codes(report) == ["BOARD_TOO_LARGE"]


@pytest.mark.parametrize(
    "board",
    [
        # Every line overlaps the root the same way: thousands of grid conflicts.
        "A" * 90
        + " H\n"
        + "\n".join("B" * 90 + "[0] @ " + "A" * 90 + "[0] H" for _ in range(4999)),
        # Two long words at right angles: a huge, nearly empty bounding box to render.
        "A" * 300_000 + " H\n" + "A" * 300_000 + "[0] @ " + "A" * 300_000 + "[299999] V",
        # A drawn grid of 402 tiles, 900,002 columns wide and 401 rows high.
        "A" + "." * 900_000 + "A\n" + "\n".join("A" for _ in range(400)),
        # A drawn grid of a million letters.
        "\n".join(["CAT" * 333] * 1000),
    ],
    ids=["conflicts", "anchor-bounding-box", "grid-bounding-box", "grid-letters"],
)
def test_boards_just_under_the_text_limits_are_refused_fast(board):
    assert len(board) <= 1_000_000 and len(board.splitlines()) <= 5_000
    status, report = verify_json(board)
    assert status == 1 and error_codes(report) == ["BOARD_TOO_LARGE"]
    assert "letters" in report["errors"][0]["message"] or "wide" in report["errors"][0]["message"]


def test_thousand_conflicts_under_the_letter_limit():
    status, report = verify_json("A" * 900 + " H\n" + "B" * 900 + "[0] @ " + "A" * 900 + "[0] V")
    assert status == 1
    assert error_codes(report).count("GRID_CONFLICT") == 1
    status, report = verify_json("A" * 900 + " H\n" + "B" * 900 + "[0] @ " + "A" * 900 + "[0] H")
    assert status == 1
    assert error_codes(report).count("GRID_CONFLICT") == 900
    # An LLM is shown the structural errors and invalid words, not 900 conflicts.
    assert len(report["feedback"]) == 4
    assert not any("GRID_CONFLICT" in line for line in report["feedback"])


# --- indices, characters, line endings ----------------------------------------------------------


def test_enormous_indices():
    status, report = verify_json("CAT H\nTAR[99999999999] @ CAT[2] V")
    assert status == 1 and error_codes(report) == ["WORD_INDEX_OOB"]
    status, report = verify_json("CAT H\nTAR[0] @ CAT[99999999999] V")
    assert status == 1 and error_codes(report) == ["TARGET_INDEX_OOB"]
    status, report = verify_json("CAT H\nTAR[0] @ CAT[" + "9" * 5_000 + "] V")
    assert status == 1 and error_codes(report) == ["TARGET_INDEX_OOB"]
    assert len(report["errors"][0]["message"]) < 300
    status, report = verify_json("CAT H\nTAR[" + "0" * 5_000 + "] @ CAT[2] V")
    assert status == 0 and report["words"] == ["CAT", "TAR"]


@pytest.mark.parametrize(
    ("board", "code"),
    [
        ("STRAßE H", "INVALID_ROOT"),  # 'ß'.upper() is 'SS'
        ("CAFÉ H", "INVALID_ROOT"),
        ("\u212aA H", "INVALID_ROOT"),  # Kelvin sign, which folds to k
        ("CAT H\nſAT[0] @ CAT[0] V", "INVALID_LINE"),  # long s, which folds to s
        ("CAFÉ\n..A.", "INVALID_ROOT"),  # not a drawn grid either
        ("ＣＡＴ Ｈ", "INVALID_ROOT"),  # full-width letters
        ("CAT H\nTAR[٢] @ CAT[2] V", "INVALID_LINE"),  # an Arabic-Indic digit
    ],
)
def test_non_ascii_letters_are_not_letters(board, code):
    status, report = verify_json(board)
    assert status == 1 and error_codes(report) == [code]


def test_nul_bytes():
    status, report = verify_json(b"CAT H\x00")
    assert status == 1 and error_codes(report) == ["INVALID_ROOT"]
    status, report = verify_json(b"CAT H\n\x00\nTAR[0] @ CAT[2] V")
    assert status == 1 and error_codes(report) == ["INVALID_LINE"]
    assert report["words"] == ["CAT", "TAR"]
    status, report = verify_json(b"\x00" * 1000)
    assert status == 1 and error_codes(report) == ["INVALID_ROOT"]


def test_crlf_tabs_and_lone_carriage_returns():
    assert verify_json(b"CAT H\r\nTAR[0] @ CAT[2] V\r\n")[0] == 0
    assert verify_json(b"CAT\tH\nTAR[0]\t@\tCAT[2]\tV")[0] == 0
    assert verify_json(b"CAT H\rTAR[0] @ CAT[2] V\r")[0] == 0
    assert verify_json(b"CAT\r\n..A\r\n..R\r\n")[0] == 0
    assert verify_json(b"\xef\xbb\xbfCAT H")[0] == 1  # a byte-order mark is not a letter


def test_binary_junk():
    junk = random.Random(7).randbytes(200_000)
    status, report = verify_json(junk)
    assert status == 1 and report["errors"]
    status, report = verify_json(b"<board>" + junk[:5000] + b"</board>")
    assert status == 1 and report["errors"]


def test_board_tags_around_junk():
    reply = (
        "<game_plan>\x00 [99] @ </game_plan>\n<board>\r\n  cat h\r\n  tar[0]@cat[2] v\r\n</board>"
    )
    assert verify_json(reply)[0] == 0


# --- files and options ----------------------------------------------------------------------------


def test_empty_file(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    result = arena("verify", "--json", str(path))
    assert result.returncode == 1
    assert error_codes(json.loads(result.stdout)) == ["EMPTY_BOARD"]
    status, report = verify_json(b"\n \n\t\r\n")
    assert status == 1 and error_codes(report) == ["EMPTY_BOARD"]


def test_a_folder(tmp_path):
    one_line_error(arena("verify", str(tmp_path)), "is a folder")


def test_missing_file(tmp_path):
    one_line_error(arena("verify", str(tmp_path / "nope.txt")), "no such file")


@pytest.mark.parametrize("hand", ["C4T", "CAT!", "C A T", "ÇAT", "CA\u212aT"])
def test_bad_hand(hand):
    one_line_error(arena("verify", "--hand", hand, "-", stdin=VALID.encode()), "hand")


@pytest.mark.parametrize("hand", ["CATAß", "CAſ"])
def test_hand_letters_that_upper_case_to_ascii(hand):
    one_line_error(arena("verify", "--hand", hand, "-", stdin=VALID.encode()), "hand")


def test_hand_verdicts():
    status, report = verify_json(VALID, "--hand", " catar ")
    assert status == 0 and report["errors"] == [] and report["warnings"] == []
    status, report = verify_json(VALID, "--hand", "CATARZ")
    assert status == 0 and [w["code"] for w in report["warnings"]] == ["TILES_UNUSED"]
    status, report = verify_json(VALID, "--hand", "CAT")
    assert status == 1 and error_codes(report) == ["TILES_NOT_IN_HAND"]


def test_missing_or_unusable_dictionary(tmp_path):
    board = VALID.encode()
    one_line_error(
        arena("verify", "--dictionary", str(tmp_path / "nope.txt"), "-", stdin=board), "not found"
    )
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    one_line_error(arena("verify", "--dictionary", str(empty), "-", stdin=board), "no words")
    one_line_error(arena("verify", "--dictionary", str(tmp_path), "-", stdin=board), "folder")
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 10)
    one_line_error(arena("verify", "--dictionary", str(junk), "-", stdin=board), "no words")
    fake_gz = tmp_path / "words.gz"
    fake_gz.write_bytes(b"not gzip")
    one_line_error(arena("verify", "--dictionary", str(fake_gz), "-", stdin=board), "gzip")


def test_custom_dictionary_is_used(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("cat\n")
    status, report = verify_json(VALID, "--dictionary", str(words))
    assert status == 1 and error_codes(report) == ["INVALID_WORD"]
    assert report["errors"][0]["word"] == "TAR"


# --- output ---------------------------------------------------------------------------------------


def test_json_shape():
    # TAXA runs on along CAT's row: CATAXA is an accidental run; XYZ is no word; Q is left over.
    board = "CAT H\nTAR[0] @ CAT[2] V\nTAXA[0] @ TAR[0] H\nXYZ[0] @ TAXA[2] V"
    status, report = verify_json(board, "--hand", "CATARAXAYZQ")
    assert status == 1
    assert set(report) == {
        "valid",
        "errors",
        "warnings",
        "feedback",
        "words",
        "grid",
        "tiles_used",
        "letters_used",
    }
    assert report["valid"] is False
    for issue in report["errors"] + report["warnings"]:
        assert set(issue) == {"code", "message", "word", "line", "level"}
        assert isinstance(issue["message"], str) and issue["message"]
    summary = [
        (issue["code"], issue["word"], issue["line"], issue["level"])
        for issue in report["errors"] + report["warnings"]
    ]
    assert summary == [
        ("INVALID_WORD", "XYZ", 4, 3),
        ("ACCIDENTAL_INVALID", "CATAXA", 4, 3),
        ("TILES_UNUSED", None, None, 4),
    ]
    assert [line.split(":")[0] for line in report["feedback"]] == [
        "Error INVALID_WORD (line 4)",
        "Error ACCIDENTAL_INVALID (line 4)",
        "Warning TILES_UNUSED",
    ]
    assert report["words"] == ["CATAXA", "TAR", "XYZ"]
    assert report["grid"] == ["CATAXA", "..A.Y.", "..R.Z."]
    assert report["tiles_used"] == 10
    assert report["letters_used"] == {"A": 4, "C": 1, "R": 1, "T": 1, "X": 1, "Y": 1, "Z": 1}


def test_human_report_and_exit_status():
    result = arena("verify", "-", stdin=VALID.encode())
    assert result.returncode == 0 and result.stderr == b""
    assert result.stdout.decode().startswith("VALID: 5 tiles, 2 words (ENABLE)")
    result = arena("verify", "-", stdin=b"CAT H\nDOG[0] @ CAT[0] V")
    assert result.returncode == 1
    assert "LETTER_MISMATCH" in result.stdout.decode()


def test_same_output_whatever_the_hash_seed():
    # Sets and dicts of strings iterate in a per-process order; results must not depend on it.
    board = (
        "CAT H\nTAR[0] @ CAT[2] V\nARC[1] @ TAR[2] H\nOAT[2] @ CAT[2] V\nDOG[1] @ CAT[1] V\n"
        "ZZZ[0] @ ARC[2] V\nQAT[1] @ TAR[1] H\nCAT[0] @ ARC[2] V"
    )
    outputs = {
        arena(
            "verify",
            "--json",
            "--hand",
            "CATRQZ",
            "-",
            stdin=board.encode(),
            env={"PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("0", "1", "2", "3")
    }
    assert len(outputs) == 1


def test_verify_loads_no_ui_or_llm_code():
    script = (
        "import sys\n"
        "from arena.cli import cli\n"
        "try:\n"
        "    cli.main(['verify', '--json', '-'], standalone_mode=False)\n"
        "except SystemExit as exit:\n"
        "    status = exit.code\n"
        "else:\n"
        "    status = None\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'litellm', 'openai'))\n"
        "print(status, heavy, file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        input=VALID.encode(),
        capture_output=True,
        cwd=ROOT,
        timeout=TIME_LIMIT,
    )
    assert json.loads(result.stdout)["valid"] is True
    assert result.stderr.decode().strip() == "0 []"
