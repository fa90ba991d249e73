"""Prompt tokens per call of the `oneshot` policy over whole games.

A stand-in model plays through the real prompt path: it reads nothing, but answers each turn
with the solver's board in the Banana-Bench reply format, and every `--error-every`th reply
carries a broken board so the next prompt includes the verifier's feedback, as real models'
prompts do. Prompts are counted with litellm's token counter (offline; tiktoken cannot download
its encodings here).

    python benchmarks/prompt_tokens.py [--players 4] [--games 3] [--max-turns 100]

Target: an average of <= 1,500 prompt tokens per call (Banana-Bench's published 4-player run
averages about 4,400).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from arena.bot import board_in_hand  # noqa: E402
from engines.agent.llm import LLMReply, Usage  # noqa: E402
from engines.bananagrams.board import format_anchor  # noqa: E402
from engines.bananagrams.game import DUMP_DRAW, Game  # noqa: E402
from engines.play.oneshot import OneShotPolicy  # noqa: E402
from engines.play.view import Notebook  # noqa: E402
from engines.solver.bot import BotPlayer  # noqa: E402

TARGET = 1500


class SolverModel:
    """Answers like a model would, using the solver for the board."""

    model = "gpt-4o"

    def __init__(self, game: Game, seat: int, error_every: int, counter) -> None:
        self.game, self.seat, self.error_every, self.count = game, seat, error_every, counter
        self.bot = BotPlayer("hard", game.dictionary)
        self.calls = 0
        self.prompt_tokens: list[int] = []

    async def complete(self, messages, *, tools=None, on_delta=None) -> LLMReply:
        self.calls += 1
        self.prompt_tokens.append(self.count(model=self.model, messages=messages))
        me = self.game.players[self.seat]
        action = self.bot.next_action(
            me.hand_letters, board_in_hand(me), can_dump=len(self.game.bunch) >= DUMP_DRAW
        )
        board = format_anchor(action.board) if action.board else None
        if board and self.calls % self.error_every == 0:
            first, *rest = board.splitlines()
            board = "\n".join([first, *(line.replace("[0]", "[1]", 1) for line in rest)])
        dump = f"DUMP {action.dump}" if action.dump else "NONE"
        text = (
            "<game_plan>Keep the long words, hang short ones off the ends; dump awkward letters."
            f"</game_plan>\n<action>{dump}</action>\n<board>\n{board or ''}\n</board>"
        )
        return LLMReply(text=text, usage=Usage(self.prompt_tokens[-1], len(text) // 4))


async def play(seed: int, players: int, max_turns: int, error_every: int, counter) -> list[int]:
    game = Game([f"p{i}" for i in range(players)], seed, max_turns=max_turns)
    notebooks = [Notebook(i) for i in range(players)]
    models = [SolverModel(game, i, error_every, counter) for i in range(players)]
    policies = [OneShotPolicy(model) for model in models]

    def feed(events):
        for event in events:
            for notebook in notebooks:
                notebook.observe(event, game)

    feed(game.start())
    seat = 0
    while not game.over:
        decision = await policies[seat].decide(notebooks[seat].view(game))
        feed(game.apply(decision.action(seat)))
        for problem in decision.problems:
            notebooks[seat].note(problem)
        notebooks[seat].last_plan = decision.plan
        seat = (seat + 1) % players
    return [tokens for model in models for tokens in model.prompt_tokens]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--max-turns", type=int, default=100)
    parser.add_argument(
        "--error-every", type=int, default=2, help="every Nth reply has a broken board"
    )
    args = parser.parse_args()
    from litellm import token_counter

    rows = []
    for seed in range(1, args.games + 1):
        tokens = asyncio.run(
            play(seed, args.players, args.max_turns, args.error_every, token_counter)
        )
        rows.append((seed, len(tokens), statistics.mean(tokens), max(tokens)))
    every = [row[2] * row[1] for row in rows]
    average = sum(every) / sum(row[1] for row in rows)
    print(f"{'seed':>4} {'calls':>6} {'mean prompt tokens':>19} {'max':>6}")
    for seed, calls, mean, biggest in rows:
        print(f"{seed:>4} {calls:>6} {mean:>19.0f} {biggest:>6}")
    verdict = "PASS" if average <= TARGET else "MISS"
    print(f"average prompt tokens per call: {average:.0f} (target <= {TARGET}) {verdict}")


if __name__ == "__main__":
    main()
