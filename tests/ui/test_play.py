"""A person plays a real game against the bot through the app: place, submit, see an error,
fix it, PEEL, win."""

import pytest

from arena.config import MatchConfig
from engines.bananagrams.board import bounds
from engines.bananagrams.dictionary import enable
from engines.solver.solver import Solver
from screens.app import ArenaApp
from screens.dialogs import GameOverScreen
from screens.play import PlayScreen
from screens.widgets.board import BoardView


def human_vs_bot(seed=11, mode="turns"):
    return MatchConfig.model_validate(
        {
            "seed": seed,
            "mode": mode,
            "players": [{"kind": "human", "name": "you"}, {"kind": "bot", "level": "easy"}],
        }
    )


async def wait_for(pilot, condition, timeout=20.0):
    for _ in range(int(timeout / 0.05)):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("condition never held")


async def type_board(pilot, screen, cells):
    """Type a board the way a person would: move the cursor to each word start and type."""
    board = screen.query_one(BoardView)
    board.edit.cursor, board.edit.direction = (0, 0), "H"
    for (x, y), letter in sorted(cells.items(), key=lambda item: (item[0][1], item[0][0])):
        if board.edit.cells.get((x, y)) == letter:
            continue
        cx, cy = board.edit.cursor
        for _ in range(abs(x - cx)):
            await pilot.press("right" if x > cx else "left")
        for _ in range(abs(y - cy)):
            await pilot.press("down" if y > cy else "up")
        await pilot.press(letter.lower())
        board.edit.cursor = (x, y)  # typing steps on; start from the typed cell


@pytest.fixture
def app(tmp_path):
    return ArenaApp(db=tmp_path / "a.db", settings_file=tmp_path / "settings.yaml")


async def test_play_a_game_against_the_bot(app):
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(PlayScreen(human_vs_bot(), app.store))
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen) and app.screen.edit.hand)
        screen = app.screen
        board = screen.query_one(BoardView)
        assert board.has_focus
        hand = "".join(screen.edit.hand)

        # A non-word first: the verdict says so in words and the cells light up.
        pair = next(a + b for a in hand for b in hand.replace(a, "", 1) if a + b not in enable())
        for letter in pair:
            await pilot.press(letter.lower())
        await pilot.press("enter")
        await wait_for(pilot, lambda: "✗" in str(screen.query_one("#verdict").render()))
        assert board.error_cells, "the offending cells are highlighted"
        await wait_for(pilot, lambda: screen.state.to_move == 0)  # the bot took its turn

        # Fix it: clear the word and type the solver's board for our hand.
        board.edit.cursor = (0, 0)
        await pilot.press("ctrl+w")
        assert not screen.edit.cells
        solution = Solver(app.screen.runner.game.dictionary).solve(
            "".join(screen.edit.hand), time_limit=5
        )
        assert solution.solved
        min_x, min_y, _, _ = bounds(solution.cells)
        cells = {(x - min_x, y - min_y): letter for (x, y), letter in solution.cells.items()}
        await type_board(pilot, screen, cells)
        assert screen.edit.cells == cells and screen.edit.rack == ""
        peels_before = screen.state.players[0].peels
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.state.players[0].peels > peels_before)
        assert "✓" in str(screen.query_one("#verdict").render())
        assert len(screen.edit.rack) == 1  # the PEEL brought a new tile

        # Near the end of the bunch a complete board is BANANAS.
        await wait_for(pilot, lambda: screen.state.to_move == 0)
        screen.runner.game.bunch.tiles = []
        solution = Solver(screen.runner.game.dictionary).solve(
            "".join(screen.edit.hand), time_limit=5
        )
        board.edit.clear()
        min_x, min_y, _, _ = bounds(solution.cells)
        await type_board(
            pilot, screen, {(x - min_x, y - min_y): c for (x, y), c in solution.cells.items()}
        )
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, GameOverScreen))
        assert "you wins" in str(app.screen.query_one("#over-title").render())
        await pilot.press("h")
        await wait_for(pilot, lambda: not isinstance(app.screen, (GameOverScreen, PlayScreen)))


async def test_dump_hint_and_turn_order(app):
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(PlayScreen(human_vs_bot(seed=3), app.store))
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen) and app.screen.edit.hand)
        screen = app.screen
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: "Hint:" in str(screen.query_one("#verdict").render()))
        assert screen.query_one(BoardView).error_cells  # the hinted cells are marked
        letter = screen.edit.hand[0]
        await pilot.press("ctrl+d")
        await pilot.press(letter.lower())
        await wait_for(pilot, lambda: len(screen.edit.hand) == 23)
        # Now it is the bot's turn; pressing Enter early is refused politely.
        assert screen.state.to_move in (0, 1)


async def test_leaving_keeps_the_match_resumable(app):
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(PlayScreen(human_vs_bot(), app.store))
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen) and app.screen.edit.hand)
        match_id = app.screen.runner.match_id
        await pilot.press("escape")
        await pilot.press("y")
        await wait_for(pilot, lambda: not isinstance(app.screen, PlayScreen))
        await pilot.pause(0.2)
        assert app.store.match(match_id)["status"] == "stopped"


async def test_agent_opponent_tool_log(app, tmp_path):
    import yaml

    replies = tmp_path / "agent.yaml"
    replies.write_text(
        yaml.safe_dump(
            [
                {"calls": [{"name": "verify_board", "arguments": {"board": "ZZZ H"}}]},
                {"calls": [{"name": "submit_board", "arguments": {"board": "CAT H"}}]},
                {"calls": [{"name": "final_answer", "arguments": {"answer": "Played CAT."}}]},
            ]
        )
    )
    config = MatchConfig.model_validate(
        {
            "seed": 4,
            "players": [
                {"kind": "scripted", "policy": "agent", "replies": str(replies), "name": "agent"},
                {"kind": "human", "name": "you"},
            ],
        }
    )
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(PlayScreen(config, app.store))
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, PlayScreen)
                and app.screen.state
                and app.screen.state.to_move == 1
            ),
        )
        text = " ".join(str(line.text) for line in app.screen.query_one("#tools").lines)
        assert "✓ agent: verify_board" in text and "ZZZ" in text  # the check ran and said INVALID
        assert "✓ agent: submit_board" in text
        assert "agent: Played CAT." in text


async def test_screen_actions_are_in_the_command_palette(app):
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(PlayScreen(human_vs_bot(), app.store))
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen) and app.screen.edit.hand)
        titles = [command.title for command in app.get_system_commands(app.screen)]
        for action in ("Submit", "Dump", "Hint", "Leave", "H/V", "Clear word", "Centre"):
            assert any(title.startswith(action) for title in titles), action
        hint = next(c for c in app.get_system_commands(app.screen) if c.title.startswith("Hint"))
        await hint.callback()
        await wait_for(pilot, lambda: "Hint" in str(app.screen.query_one("#verdict").render()))


async def test_a_bad_word_list_is_a_message_not_a_crash(app, tmp_path):
    config = human_vs_bot().model_copy(update={"dictionary": str(tmp_path / "missing.txt")})
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(PlayScreen(config, app.store))
        await pilot.pause(0.3)
        assert not isinstance(app.screen, PlayScreen)
        assert any("Word list not found" in n.message for n in app._notifications)


async def test_an_unexpected_error_exits_with_one_line_and_a_log(tmp_path, capsys):
    from screens.app import log_path

    app = ArenaApp(db=tmp_path / "a.db", settings_file=tmp_path / "s.yaml")
    with pytest.raises(ZeroDivisionError):
        async with app.run_test(size=(80, 24)) as pilot:
            app.call_later(lambda: 1 / 0)
            await pilot.pause(0.2)
    said = capsys.readouterr().err
    assert "stopped on an unexpected error: ZeroDivisionError" in said
    assert "Traceback" not in said and "Traceback" in log_path().read_text()


async def test_enter_on_a_confirmation_means_no(app):
    from screens.dialogs import ConfirmScreen

    answers = []
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(ConfirmScreen("Delete everything?"), answers.append)
        await pilot.pause(0.1)
        await pilot.press("enter")
        await pilot.pause(0.1)
    assert answers == [False]


async def test_keys_can_be_rebound_in_settings(tmp_path):
    import yaml

    settings = tmp_path / "settings.yaml"
    settings.write_text(yaml.safe_dump({"keymap": {"play.hint": "f5"}}))
    app = ArenaApp(db=tmp_path / "a.db", settings_file=settings)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(PlayScreen(human_vs_bot(), app.store))
        await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen) and app.screen.edit.hand)
        await pilot.press("f5")
        await wait_for(pilot, lambda: "Hint" in str(app.screen.query_one("#verdict").render()))
