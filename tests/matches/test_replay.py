"""Replay: the state after any event, from the events alone, checked against the engine."""

from __future__ import annotations

import json
import random

import pytest

from arena.replay import Replay, ReplayError, fold
from arena.store import Store
from engines.bananagrams.game import (
    CallBananas,
    DumpTile,
    EndGame,
    Game,
    PassTurn,
    SubmitBoard,
    action_from_dict,
)
from engines.bananagrams.tiles import TOTAL_TILES
from tests.matches.conftest import play_on_engine


def test_tiles_are_conserved_after_every_event(bot_match):
    store = bot_match.store()
    replay = Replay.load(store, bot_match.match_id)
    assert replay.damage is None and replay.last_seq == store.last_seq(bot_match.match_id)
    dealt = 0
    for seq in range(replay.last_seq + 1):
        state = replay.state_at(seq)
        assert state.seq == seq
        assert state.tiles_in_hands + state.bunch == TOTAL_TILES, f"after event {seq}"
        dealt = max(dealt, state.tiles_in_hands)
    assert dealt > 42  # tiles were drawn after the deal: the PEELs were folded in
    assert replay.final().over and replay.final().bunch < 2


def test_grids_and_verdicts_are_those_of_the_board_verified_events(bot_match):
    store = bot_match.store()
    replay = Replay.load(store, bot_match.match_id)
    verified = list(store.events(bot_match.match_id, kinds=("board_verified",)))
    assert len(verified) > 20
    for event in verified:
        player = replay.state_at(event.seq).players[event.payload["player"]]
        assert player.grid == event.payload["grid"]
        assert player.verdict.valid == event.payload["valid"]
        assert list(player.verdict.errors) == [e["code"] for e in event.payload["errors"]]
        assert list(player.verdict.feedback) == event.payload["feedback"]
        # Just before the verdict the player still shows the previous board.
        before = replay.state_at(event.seq - 1).players[event.payload["player"]]
        assert before.boards == player.boards - 1


def test_hands_bunch_and_turns_match_a_rerun_of_the_engine(bot_match):
    """Re-apply the stored actions on a fresh engine and compare every move's outcome."""
    store = bot_match.store()
    match = store.match(bot_match.match_id)
    events = list(store.events(bot_match.match_id))
    replay = Replay.load(store, bot_match.match_id)
    game = Game([p["name"] for p in match["players"]], match["seed"], max_turns=60)
    game.start()
    actions = [e for e in events if e.kind == "action"]
    assert len(actions) == match["turns"]
    for index, action in enumerate(actions):
        game.apply(action_from_dict(action.payload))
        end = actions[index + 1].seq - 2 if index + 1 < len(actions) else replay.last_seq
        state = replay.state_at(end)  # the last event of this move
        assert [p.hand_letters for p in state.players] == [p.hand_letters for p in game.players]
        assert state.bunch == len(game.bunch)
        assert state.turn == game.turns
        assert [p.tiles_left for p in state.players] == [p.tiles_left for p in game.players]
    final = replay.final()
    assert final.winner == game.ended.winner and final.end_reason == game.ended.reason
    assert [s["player"] for s in final.standings] == [s.player for s in game.ended.standings]


def test_whose_turn_alternates_and_matches_who_moved(bot_match):
    store = bot_match.store()
    replay = Replay.load(store, bot_match.match_id)
    turns = list(store.events(bot_match.match_id, kinds=("turn",)))
    expected = [record.payload["seat"] for record in turns]
    shown = [replay.state_at(record.seq - 1).to_move for record in turns]
    assert shown == expected == [i % 2 for i in range(len(turns))]
    assert replay.state_at(0).to_move is None  # before the deal
    assert replay.final().to_move is None  # the game is over


def test_seek_equals_a_fold_from_scratch(bot_match):
    store = bot_match.store()
    match = store.match(bot_match.match_id)
    events = list(store.events(bot_match.match_id))
    replay = Replay(match, events, checkpoint_every=7)
    rng = random.Random(1234)
    points = {0, 1, 6, 7, 8, 13, 14, len(events)} | {
        rng.randrange(len(events) + 1) for _ in range(60)
    }
    for seq in sorted(points):
        sought = replay.state_at(seq).to_dict()
        scratch = fold(match, events[:seq]).to_dict()
        assert sought == scratch, f"event {seq}"
    # Seeking hands out copies: changing one never changes the replay (14: a checkpoint).
    for seq in (14, 20, len(events)):
        state = replay.state_at(seq)
        state.players[0].hand.clear()
        state.players[0].moves = -1
        assert replay.state_at(seq).players[0].hand
        assert replay.state_at(seq).players[0].moves >= 0


def test_seek_out_of_range(bot_match):
    replay = Replay.load(bot_match.store(), bot_match.match_id)
    with pytest.raises(ValueError, match="out of range"):
        replay.state_at(replay.last_seq + 1)
    with pytest.raises(ValueError, match="out of range"):
        replay.state_at(-1)


def test_scripted_player_plan_reply_tokens_and_errors(scripted_match):
    store = scripted_match.store()
    replay = Replay.load(store, scripted_match.match_id)
    turns = [e for e in store.events(scripted_match.match_id, kinds=("turn",))]
    mine = [t for t in turns if t.payload["seat"] == 0]
    first = replay.state_at(mine[0].seq).players[0]
    assert first.plan == "Start small." and "<board>CAT H</board>" in first.reply
    assert first.prompt_tokens == 120 and first.completion_tokens == 30
    final = replay.final().players[0]
    assert final.moves == len(mine) == 7
    assert final.prompt_tokens == 120 * 6  # the 7th call failed: no usage
    assert final.cost_usd == pytest.approx(0.0015 * 6)
    assert "ran out of replies" in final.error
    assert replay.final().players[1].prompt_tokens == 0  # the bot
    assert replay.final().end_reason == "max_turns" and replay.final().turn == 14
    for seq in range(replay.last_seq + 1):
        state = replay.state_at(seq)
        assert state.tiles_in_hands + state.bunch == TOTAL_TILES
    json.dumps(replay.final().to_dict())  # JSON-ready


def _dump_then_rotten(game: Game):
    """3 players DUMP round-robin until the bunch is nearly empty; then moves of every kind:
    a refused DUMP, an early and a rotten BANANAS (the caller is out), a pass, a board, a move by
    the player who is out (rejected), and the end."""
    seat = 0
    yield DumpTile(1, "?")  # refused: no such tile
    while len(game.bunch) >= 3:
        yield DumpTile(seat, game.players[seat].hand[0])
        seat = (seat + 1) % 3
    yield DumpTile(seat, game.players[seat].hand[0])  # refused: too few tiles to draw
    yield CallBananas(1)  # no valid board: rotten, player 1 is out
    yield PassTurn(2, "thinking")
    yield SubmitBoard(0, "CAT H")
    yield DumpTile(1, "A")  # rejected: out of the game
    yield EndGame("aborted")


def test_engine_stream_with_every_event_kind(tmp_path):
    store = Store.open(tmp_path / "a.db")
    match_id, snapshots = play_on_engine(store, ["ann", "bob", "cy"], 11, _dump_then_rotten)
    kinds = {e.kind for e in store.events(match_id)}
    assert {
        "tile_dumped",
        "dump_refused",
        "bananas_called",
        "player_eliminated",
        "turn_passed",
        "board_verified",
        "action_rejected",
        "game_ended",
    } <= kinds
    replay = Replay.load(store, match_id, checkpoint_every=5)
    for snap in snapshots:
        state = replay.state_at(snap.seq)
        assert [p.hand_letters for p in state.players] == snap.hands
        assert state.bunch == snap.bunch
        assert state.turn == snap.turns
        assert [p.out for p in state.players] == snap.out
        assert state.tiles_in_hands + state.bunch == TOTAL_TILES
    final = replay.final()
    assert final.players[1].out and final.players[1].hand == []
    assert final.players[1].last_move.startswith("move rejected")
    assert final.over and final.winner is None and final.end_reason == "aborted"
    # Before the end, the turn skips the player who is out: after cy (seat 2) comes ann, after
    # ann comes cy.
    rotten = next(e.seq for e in store.events(match_id, kinds=("player_eliminated",)))
    passed = next(e.seq for e in store.events(match_id, kinds=("turn_passed",)))
    assert replay.state_at(rotten).to_move == 2
    assert replay.state_at(passed).to_move == 0
    submitted = next(e.seq for e in store.events(match_id, kinds=("board_verified",)))
    assert replay.state_at(submitted).to_move == 2


def test_realtime_has_no_turn_order(tmp_path):
    store = Store.open(tmp_path / "a.db")

    def moves(game):
        yield PassTurn(1, "slow")
        yield DumpTile(0, game.players[0].hand[0])

    match_id, _ = play_on_engine(store, ["ann", "bob"], 2, moves, mode="realtime")
    replay = Replay.load(store, match_id)
    assert replay.final().mode == "realtime"
    assert all(replay.state_at(seq).to_move is None for seq in range(replay.last_seq + 1))
    assert replay.final().turn == 2


# --- damaged streams --------------------------------------------------------------------------


def _damage(match, tmp_path, kind: str, payload: str, nth: int = 0) -> tuple[Store, int]:
    copy = match.copy_to(tmp_path)
    store = copy.store()
    seqs = [e.seq for e in store.events(match.match_id, kinds=(kind,))]
    seq = seqs[nth]
    store.db.execute(
        "UPDATE events SET payload = ? WHERE stream_id = ? AND seq = ?",
        [payload, match.match_id, seq],
    )
    return store, seq


def test_a_payload_that_is_not_json_names_the_event(bot_match, tmp_path):
    store, seq = _damage(bot_match, tmp_path, "tiles_peeled", "{not json", nth=3)
    replay = Replay.load(store, bot_match.match_id)
    assert replay.state_at(seq - 1).seq == seq - 1  # everything before it still replays
    with pytest.raises(ReplayError, match=rf"event #{seq} \(tiles_peeled\) is damaged.*not JSON"):
        replay.final()
    assert replay.last_good_seq == seq - 1


@pytest.mark.parametrize(
    ("kind", "payload", "message"),
    [
        ("tiles_dealt", '{"player": 0, "bunch_size": 123}', "`tiles` is missing"),
        ("tiles_dealt", '{"player": 7, "tiles": "ABC", "bunch_size": 1}', "no seat 7"),
        ("tiles_dealt", '{"player": 0, "tiles": "ab1", "bunch_size": 1}', "letters A-Z"),
        ("board_verified", "[1, 2]", "payload is a list"),
        ("board_verified", '{"player": 0, "valid": "yes"}', "`valid` should be bool"),
        ("tiles_peeled", '{"player": 0, "drawn": {"x": "A"}, "bunch_size": 9}', "invalid literal"),
        (
            "game_ended",
            '{"reason": "bananas", "winner": 9, "turns": 1, "standings": []}',
            "winner 9",
        ),
        ("turn", '{"seat": 0, "usage": {"prompt_tokens": "many"}}', "prompt_tokens"),
    ],
)
def test_damaged_fields_name_the_event_and_the_problem(bot_match, tmp_path, kind, payload, message):
    store, seq = _damage(bot_match, tmp_path, kind, payload)
    replay = Replay.load(store, bot_match.match_id)
    with pytest.raises(ReplayError) as caught:
        replay.final()
    assert f"event #{seq} ({kind}) is damaged" in str(caught.value)
    assert message in str(caught.value)


def test_a_dump_of_a_tile_not_in_hand_is_damage(tmp_path):
    store = Store.open(tmp_path / "a.db")

    def moves(game):
        yield DumpTile(0, game.players[0].hand[0])

    match_id, _ = play_on_engine(store, ["ann", "bob"], 4, moves)
    (event,) = store.events(match_id, kinds=("tile_dumped",))
    hand = next(iter(store.events(match_id, kinds=("tiles_dealt",)))).payload["tiles"]
    missing = next(letter for letter in "QZXJKABCDEFGHIJLMNOPRSTUVWY" if letter not in hand)
    store.db.execute(
        "UPDATE events SET payload = json_set(payload, '$.letter', ?) WHERE stream_id = ? AND seq = ?",
        [missing, match_id, event.seq],
    )
    with pytest.raises(ReplayError, match=f"dumped '{missing}' without holding one"):
        Replay.load(store, match_id).final()


def test_unknown_event_kinds_are_skipped(bot_match, tmp_path):
    store = bot_match.copy_to(tmp_path).store()
    before = Replay.load(store, bot_match.match_id).final().to_dict()
    store.append(bot_match.match_id, "spectator_joined", {"who": "x"})
    after = Replay.load(store, bot_match.match_id).final().to_dict()
    assert after.pop("seq") == before.pop("seq") + 1
    after.pop("time"), before.pop("time")
    assert after == before
