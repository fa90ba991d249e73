"""The `oneshot` prompt (Banana-Bench's reply format): a short system prompt with the rules, and
one user message per turn that carries the whole state, so older exchanges can be dropped."""

from __future__ import annotations

from engines.bananagrams.dictionary import ENABLE_NOTE
from engines.play.view import PlayerView

SYSTEM_PROMPT = """You are playing Bananagrams. Build one connected crossword grid that uses ALL your tiles.
Rules:
- Every horizontal or vertical run of 2+ touching letters must be a word in the {dictionary} dictionary.{note}
- A valid board that uses every tile PEELs automatically: every player draws one tile. When the bunch has fewer tiles than players, such a board wins (BANANAS).
- DUMP X returns your tile X and draws 3 (the bunch needs 3 tiles). Use it for a letter you cannot place.
Board notation (letters are numbered from 0):
- First line: WORD H (left to right) or WORD V (top to bottom).
- Each later line: WORD[j] @ TARGET[i] DIR. Letter j of WORD sits on letter i of TARGET, an earlier word, and WORD runs perpendicular to TARGET, so WORD[j] must equal TARGET[i].
Example:
CAT H
TAR[0] @ CAT[2] V
RAG[0] @ TAR[2] H
Keep words apart: letters of different words that touch side by side form new runs, which must also be words.
Send your whole board every turn, reply in exactly this format:
<game_plan>one or two sentences</game_plan>
<action>NONE</action> (or <action>DUMP X</action>)
<board>
your board lines
</board>"""


def system_prompt(dictionary_name: str) -> str:
    note = f" {ENABLE_NOTE}" if dictionary_name == "ENABLE" else ""
    return SYSTEM_PROMPT.format(dictionary=dictionary_name, note=note)


def turn_prompt(view: PlayerView) -> str:
    limit = f" of {view.max_turns}" if view.max_turns else ""
    others = ", ".join(f"{name} {count}" for name, count in view.opponents) or "none"
    lines = [
        f"Turn {view.turn}{limit}. Bunch: {view.bunch} tiles. PEELs so far: {view.peels}. "
        f"Opponents' tiles: {others}.",
        f"Your tiles ({len(view.hand)}): {view.hand}",
    ]
    if view.board:
        verdict = {True: "valid", False: "INVALID", None: "unchecked"}[view.board_valid]
        lines += [f"Your current board ({verdict}):", view.board, "Grid:", *view.grid]
        missing = view.tiles_off_board
        lines.append(
            f"Tiles not on your board: {missing}" if missing else "Every tile is on your board."
        )
    else:
        lines.append("You have no board yet.")
    if view.feedback:
        lines += ["Feedback on your last board:", *(f"- {line}" for line in view.feedback)]
    if view.notes:
        lines += ["Since your last turn:", *(f"- {note}" for note in view.notes)]
    if view.last_plan:
        lines.append(f"Your plan last turn: {view.last_plan[:300]}")
    lines.append("Reply with <game_plan>, <action> and <board>.")
    return "\n".join(lines)


def oneshot_messages(view: PlayerView, history: list[dict] | None = None) -> list[dict]:
    """System prompt, optional recent exchanges, then the whole current state."""
    return [
        {"role": "system", "content": system_prompt(view.dictionary_name)},
        *(history or []),
        {"role": "user", "content": turn_prompt(view)},
    ]
