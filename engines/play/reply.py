"""Reading a Banana-Bench style reply: <game_plan>, <action>NONE|DUMP X</action>, <board>.

Models get the tags wrong in every possible way, so parsing is tolerant (any case, unclosed
tags, code fences, `DUMP: X`) and says precisely what was missing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PLAN = re.compile(r"<game_plan>(.*?)(?:</game_plan>|(?=<action>|<board>)|$)", re.I | re.S)
_ACTION = re.compile(r"<action>(.*?)(?:</action>|(?=<board>)|$)", re.I | re.S)
_BOARD = re.compile(r"<board>(.*?)(?:</board>|$)", re.I | re.S)
_DUMP = re.compile(r"^\W*DUMP\W*([A-Z])\W*$", re.I | re.ASCII)
_NONE = re.compile(r"^\W*(NONE|PEEL|PASS|NO ACTION|)\W*$", re.I)
_FENCE = re.compile(r"^```[a-z]*\s*$|^```\s*$", re.I | re.M)

MAX_REPLY_CHARS = 200_000  # a runaway reply is cut here before any regex work


@dataclass(frozen=True)
class ParsedReply:
    plan: str
    board: str | None
    dump: str | None
    problems: tuple[str, ...] = ()


def parse_reply(text: str) -> ParsedReply:
    text = (text or "")[:MAX_REPLY_CHARS]
    problems: list[str] = []
    plan_match = _PLAN.search(text)
    plan = plan_match.group(1).strip() if plan_match else ""

    dump = None
    action_match = _ACTION.search(text)
    if action_match:
        action = action_match.group(1).strip()
        if dump_match := _DUMP.match(action):
            dump = dump_match.group(1).upper()
        elif not _NONE.match(action):
            problems.append(
                f"Unknown action {action[:40]!r}: write <action>NONE</action> or <action>DUMP X</action>."
            )
    board = None
    board_match = _BOARD.search(text)
    if board_match:
        board = _FENCE.sub("", board_match.group(1)).strip() or None
        if board is None:
            problems.append("The <board> block was empty.")
    else:
        problems.append("No <board>...</board> block found: always send your whole board in one.")
    return ParsedReply(plan, board, dump, tuple(problems))
