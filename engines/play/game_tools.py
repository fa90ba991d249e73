"""Bananagrams as agent tools: check a board, submit it, dump a tile, look at the hand.

The tools act on a `TurnTable`, the player's situation for one turn; what the model chose is
read back from the table when the turn ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engines.agent.llm import ToolSpec
from engines.agent.tools import Risk, ToolError, ToolResult
from engines.bananagrams.dictionary import Dictionary
from engines.bananagrams.game import DUMP_DRAW
from engines.bananagrams.verifier import verify

BOARD_ARG = {
    "type": "object",
    "properties": {
        "board": {
            "type": "string",
            "description": "The whole board in anchor notation, one word per line.",
        }
    },
    "required": ["board"],
}


@dataclass
class TurnTable:
    hand: str
    dictionary: Dictionary
    bunch: int
    board: str | None = None
    submitted: str | None = None
    dump: str | None = None
    last_valid: str | None = None
    checks: int = 0
    log: list[str] = field(default_factory=list)


def _report(table: TurnTable, board: str) -> tuple[str, bool]:
    result = verify(board, dictionary=table.dictionary, hand=table.hand)
    table.checks += 1
    if result.valid:
        table.last_valid = board
    head = (
        "VALID and uses every tile: submitting it PEELs."
        if result.complete
        else ("VALID" if result.valid else "INVALID")
    )
    lines = [head, "Grid:", *result.grid]
    lines += result.feedback
    return "\n".join(lines), result.valid


class VerifyBoard:
    spec = ToolSpec(
        "verify_board", "Check a board against the rules, the dictionary and your tiles.", BOARD_ARG
    )
    risk = Risk.SAFE
    needs_approval = False

    def __init__(self, table: TurnTable) -> None:
        self.table = table

    async def run(self, args: dict[str, Any]) -> ToolResult:
        output, _ = _report(self.table, args["board"])
        return ToolResult(output, citable=False)


class SubmitBoard:
    spec = ToolSpec(
        "submit_board",
        "Submit your board for this turn (it is checked again). Then call final_answer.",
        BOARD_ARG,
    )
    risk = Risk.SAFE
    needs_approval = False

    def __init__(self, table: TurnTable) -> None:
        self.table = table

    async def run(self, args: dict[str, Any]) -> ToolResult:
        self.table.submitted = args["board"]
        output, valid = _report(self.table, args["board"])
        note = (
            "Submitted."
            if valid
            else "Submitted, but it is INVALID: you may fix it and submit again."
        )
        return ToolResult(
            f"{note}\n{output}\nCall final_answer with a one-line summary to end your turn.",
            citable=False,
        )


class Dump:
    spec = ToolSpec(
        "dump",
        f"Return one of your tiles to the bunch and draw {DUMP_DRAW} (at the end of this turn).",
        {
            "type": "object",
            "properties": {"letter": {"type": "string", "description": "The tile to return, A-Z."}},
            "required": ["letter"],
        },
    )
    risk = Risk.SAFE
    needs_approval = False

    def __init__(self, table: TurnTable) -> None:
        self.table = table

    async def run(self, args: dict[str, Any]) -> ToolResult:
        letter = str(args["letter"]).strip().upper()
        if len(letter) != 1 or letter not in self.table.hand:
            raise ToolError(f"You have no {letter!r} tile. Your tiles: {self.table.hand}")
        if self.table.bunch < DUMP_DRAW:
            raise ToolError(
                f"DUMP needs {DUMP_DRAW} tiles in the bunch; it has {self.table.bunch}."
            )
        self.table.dump = letter
        return ToolResult(
            f"You will dump {letter} and draw {DUMP_DRAW} when this turn ends.", citable=False
        )


class ShowHand:
    spec = ToolSpec("show_hand", "Show your tiles, your current board and the bunch size.")
    risk = Risk.SAFE
    needs_approval = False

    def __init__(self, table: TurnTable) -> None:
        self.table = table

    async def run(self, args: dict[str, Any]) -> ToolResult:
        board = self.table.submitted or self.table.board or "(no board yet)"
        return ToolResult(
            f"Your tiles ({len(self.table.hand)}): {self.table.hand}\nBoard:\n{board}\nBunch: {self.table.bunch}",
            citable=False,
        )


def game_tools(table: TurnTable) -> list:
    return [VerifyBoard(table), SubmitBoard(table), Dump(table), ShowHand(table)]
