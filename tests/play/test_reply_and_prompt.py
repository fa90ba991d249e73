"""Banana-Bench replies are read tolerantly; the oneshot prompt carries the whole state."""

from hypothesis import given
from hypothesis import strategies as st

from engines.bananagrams.game import DumpTile, Game, PassTurn, SubmitBoard
from engines.bananagrams.verifier import verify
from engines.play.oneshot import TurnDecision
from engines.play.prompts import SYSTEM_PROMPT, oneshot_messages, turn_prompt
from engines.play.reply import parse_reply
from engines.play.view import Notebook


def test_well_formed_reply():
    reply = parse_reply(
        "<game_plan>Start with QUIZ.</game_plan>\n<action>NONE</action>\n<board>\nQUIZ H\n</board>"
    )
    assert reply.plan == "Start with QUIZ." and reply.board == "QUIZ H" and reply.dump is None
    assert reply.problems == ()
    compact = "<GAME_PLAN>Start with QUIZ.</GAME_PLAN><action>none</action><Board>QUIZ H</Board>"
    assert parse_reply(compact) == reply


def test_dump_spellings():
    for action in ("DUMP Q", "dump q", "DUMP: Q", "DUMP [Q]", " DUMP 'Q' "):
        assert parse_reply(f"<action>{action}</action><board>CAT H</board>").dump == "Q"


def test_unknown_action_and_missing_board_are_problems():
    reply = parse_reply("<action>SWAP ALL</action>")
    assert reply.dump is None and reply.board is None
    assert any("Unknown action" in p for p in reply.problems)
    assert any("No <board>" in p for p in reply.problems)


def test_unclosed_tags_and_code_fences():
    reply = parse_reply("<game_plan>go<action>DUMP X<board>\n```\nCAT H\n```")
    assert reply.plan == "go" and reply.dump == "X" and reply.board == "CAT H"


def test_empty_board_block():
    assert "The <board> block was empty." in parse_reply("<board>\n</board>").problems


@given(st.text(max_size=300))
def test_parse_reply_never_raises(text):
    parse_reply(text)


def test_decision_becomes_an_engine_action():
    assert TurnDecision(board="CAT H", dump="Q").action(1) == SubmitBoard(1, "CAT H", "Q")
    assert TurnDecision(dump="Q").action(1) == DumpTile(1, "Q")
    passed = TurnDecision(problems=("No <board>...</board> block found.",)).action(0)
    assert isinstance(passed, PassTurn) and "No <board>" in passed.reason


def test_the_prompt_example_is_a_valid_board():
    example = SYSTEM_PROMPT.split("Example:\n")[1].split("\nKeep")[0]
    assert verify(example).valid and len(example.splitlines()) == 3


def test_turn_prompt_carries_the_whole_state():
    game = Game(["ann", "bob"], 3, max_turns=50)
    notebook = Notebook(0)
    for event in game.start():
        notebook.observe(event, game)
    game.players[0].hand = list("CATSX")
    for event in game.apply(SubmitBoard(0, "CAT H\nTAR[0] @ CAT[2] V")):
        notebook.observe(event, game)
    text = turn_prompt(notebook.view(game))
    assert "Turn 2 of 50" in text and "Bunch: 102 tiles" in text and "bob 21" in text
    assert "PEELs so far: 0" in text
    assert "Your tiles (5): ACSTX" in text
    assert "CAT H\nTAR[0] @ CAT[2] V" in text and "..A" in text  # board and grid
    assert "TILES_NOT_IN_HAND" in text  # the cascade's feedback
    messages = oneshot_messages(notebook.view(game))
    assert [m["role"] for m in messages] == ["system", "user"]
