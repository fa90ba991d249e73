"""The `agent` game policy: the model checks boards with tools, then submits or dumps."""

import asyncio

from engines.agent.scripted import ScriptedLLM, call, reply
from engines.bananagrams.dictionary import enable
from engines.bananagrams.game import DumpTile, Game, PassTurn, SubmitBoard
from engines.play.agent_policy import AgentTurnPolicy
from engines.play.view import Notebook


def view_with_hand(letters: str, bunch_tiles: int | None = None):
    game = Game(["agent", "bot"], 4)
    notebook = Notebook(0)
    for event in game.start():
        notebook.observe(event, game)
    game.players[0].hand = list(letters)
    if bunch_tiles is not None:
        game.bunch.tiles = game.bunch.tiles[:bunch_tiles]
    return notebook.view(game)


def decide(script, view, step_budget=6):
    llm = ScriptedLLM(script)
    decision = asyncio.run(AgentTurnPolicy(llm, enable(), step_budget).decide(view))
    return decision, llm


def test_verify_then_submit():
    view = view_with_hand("CATSR")
    decision, llm = decide(
        [
            reply("Try CATS.", calls=[call("verify_board", board="CATX H")]),
            reply(calls=[call("verify_board", board="CATS H")]),
            reply(calls=[call("submit_board", board="CATS H")]),
            reply(calls=[call("final_answer", answer="Played CATS; R left.")]),
        ],
        view,
    )
    assert decision.action(0) == SubmitBoard(0, "CATS H", None)
    assert decision.plan == "Played CATS; R left."
    assert len(decision.calls) == 4 and decision.calls[0]["messages"][0]["role"] == "system"
    # The first check's verdict reached the model in the next prompt.
    assert "TILES_NOT_IN_HAND" in llm.requests[1].text() and "INVALID" in llm.requests[1].text()
    tools = [
        e["details"]["tool"] for e in decision.agent_events if e["kind"] == "tool_call_finished"
    ]
    assert tools == ["verify_board", "verify_board", "submit_board"]
    assert {"verify_board", "submit_board", "dump", "show_hand"} <= set(llm.requests[0].tool_names)


def test_dump_and_refused_dump():
    decision, _ = decide(
        [
            reply(calls=[call("dump", letter="z")]),
            reply(calls=[call("dump", letter="q")]),
            reply(calls=[call("final_answer", answer="Dumped Q.")]),
        ],
        view_with_hand("QATS"),
    )
    assert decision.action(0) == DumpTile(0, "Q")
    errors = [
        e["details"]
        for e in decision.agent_events
        if e["kind"] == "tool_call_finished" and e["details"]["is_error"]
    ]
    assert "no 'Z' tile" in errors[0]["output"]
    stuck, _ = decide(
        [reply(calls=[call("dump", letter="q")]), reply(calls=[call("final_answer", answer="x")])],
        view_with_hand("QATS", bunch_tiles=2),
    )
    assert stuck.dump is None


def test_out_of_steps_plays_the_last_valid_board_checked():
    script = [reply(calls=[call("verify_board", board="CAT H")])] + [
        reply(calls=[call("show_hand")])
    ] * 10
    decision, _ = decide(script, view_with_hand("CATS"), step_budget=3)
    assert decision.board == "CAT H"


def test_no_board_at_all_passes_the_turn():
    decision, _ = decide([reply("I give up.")] * 6, view_with_hand("CATS"), step_budget=2)
    action = decision.action(0)
    assert isinstance(action, PassTurn)
