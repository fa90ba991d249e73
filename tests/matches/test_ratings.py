"""Ratings: free-for-all Plackett-Luce over finished matches whose results the tests control."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from arena.ratings import identity, leaderboard
from arena.store import Store
from tests.matches.conftest import bot, finished_match, llm


@pytest.fixture
def store(tmp_path) -> Store:
    return Store.open(tmp_path / "a.db")


def by_name(standings) -> dict:
    return {s.identity: s for s in standings}


def test_identities():
    assert identity(bot("hard")) == "bot:hard"
    assert identity(llm("openai/gpt-4o")) == "openai/gpt-4o · oneshot"
    assert identity(llm("anthropic/claude", "agent")) == "anthropic/claude · agent"
    assert identity({"name": "you", "kind": "human", "settings": {}}) == "human"
    assert identity({"name": "demo", "kind": "scripted", "settings": {}}) == "scripted:demo"


def test_a_consistent_order_of_finish_gives_that_order_of_ratings(store):
    players = [bot("easy"), llm("openai/gpt-4o"), bot("hard")]
    for _ in range(5):
        # hard wins; gpt-4o is left with fewer tiles than easy.
        finished_match(store, players, tiles_left=[9, 3, 0], winner=2)
    standings = leaderboard(store)
    assert [s.identity for s in standings] == ["bot:hard", "openai/gpt-4o · oneshot", "bot:easy"]
    hard, model, easy = standings
    assert hard.mu > model.mu > easy.mu
    assert hard.rating == pytest.approx(hard.mu - 3 * hard.sigma)
    assert all(s.games == 5 for s in standings)
    assert (hard.wins, model.wins, easy.wins) == (5, 0, 0)
    assert all(s.sigma < 25 / 3 for s in standings)  # five games made everyone more certain


def test_one_match_equals_openskill_with_the_standings_as_ranks(store):
    players = [bot("easy"), bot("normal"), bot("hard")]
    finished_match(store, players, tiles_left=[4, 0, 2], winner=1)
    model = PlackettLuce()
    teams = [[model.rating(name=n)] for n in ("bot:easy", "bot:hard", "bot:normal")]
    expected = model.rate(teams, ranks=[3.0, 2.0, 1.0])
    got = by_name(leaderboard(store))
    for (rated,), name in zip(expected, ("bot:easy", "bot:hard", "bot:normal"), strict=True):
        assert got[name].mu == pytest.approx(rated.mu)
        assert got[name].sigma == pytest.approx(rated.sigma)


def test_ties_share_a_rank_and_order_by_name(store):
    # No winner (max_turns) and the same tiles left: a draw, whatever the seat order.
    finished_match(store, [bot("hard"), bot("easy")], tiles_left=[5, 5])
    finished_match(store, [bot("easy"), bot("hard")], tiles_left=[5, 5])
    standings = leaderboard(store)
    assert [s.identity for s in standings] == ["bot:easy", "bot:hard"]
    assert standings[0].mu == pytest.approx(standings[1].mu) == pytest.approx(25.0)
    assert standings[0].sigma == pytest.approx(standings[1].sigma)
    assert standings[0].sigma < 25 / 3
    # Out players rank after the others even with fewer tiles left.
    finished_match(store, [bot("easy"), bot("hard")], tiles_left=[0, 7], out=[True, False])
    easy, hard = by_name(leaderboard(store))["bot:easy"], by_name(leaderboard(store))["bot:hard"]
    assert hard.mu > easy.mu


def test_unfinished_matches_are_ignored(store):
    finished_match(store, [bot("hard"), bot("easy")], tiles_left=[0, 4], winner=0)
    finished_match(store, [bot("easy"), bot("hard")], tiles_left=[0, 4], winner=0, status="stopped")
    finished_match(store, [bot("easy"), bot("hard")], tiles_left=[0, 4], winner=0, status="running")
    # Marked finished but its game_ended event is missing: not a result either.
    broken = finished_match(store, [bot("easy"), bot("hard")], tiles_left=[0, 4], winner=0)
    store.db.execute("DELETE FROM events WHERE stream_id = ? AND kind = 'game_ended'", [broken])
    standings = by_name(leaderboard(store))
    assert standings["bot:hard"].games == 1 and standings["bot:hard"].wins == 1
    assert standings["bot:hard"].mu > standings["bot:easy"].mu


def test_an_identity_seated_twice_counts_once_at_its_best_place(store):
    finished_match(store, [bot("hard", "h1"), bot("easy"), bot("hard", "h2")], [0, 3, 8], winner=0)
    standings = by_name(leaderboard(store))
    assert standings["bot:hard"].games == 1 and standings["bot:hard"].wins == 1
    assert standings["bot:hard"].mu > standings["bot:easy"].mu  # rated as first, not third
    # Nobody else: a match against itself moves no rating.
    alone = Store.open(store.path.with_name("b.db"))
    finished_match(alone, [bot("hard", "h1"), bot("hard", "h2")], [0, 8], winner=0)
    (line,) = leaderboard(alone)
    assert (line.mu, line.sigma, line.games) == (25.0, 25 / 3, 1)


def test_valid_board_rate_tokens_per_turn_and_cost(store):
    finished_match(
        store,
        [llm("openai/gpt-4o"), bot("normal")],
        [6, 0],
        winner=1,
        turn_usage={
            0: {"prompt_tokens": 1000, "completion_tokens": 200, "cost_usd": 0.01},
            1: {"prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0},
        },
        boards={0: [True, False, False, True], 1: [True]},
    )
    finished_match(
        store,
        [llm("openai/gpt-4o"), bot("normal")],
        [2, 0],
        winner=1,
        turn_usage={0: {"prompt_tokens": 600, "completion_tokens": 200, "cost_usd": 0.02}},
        boards={0: [False]},
    )
    standings = by_name(leaderboard(store))
    model = standings["openai/gpt-4o · oneshot"]
    assert model.boards == 5 and model.valid_boards == 2
    assert model.valid_board_rate == pytest.approx(0.4)
    assert model.turns == 2 and model.tokens_per_turn == pytest.approx(1000)
    assert model.cost_usd == pytest.approx(0.03)
    row = model.to_dict()
    assert row["player"] == "openai/gpt-4o · oneshot" and row["valid_board_rate"] == 0.4
    assert standings["bot:normal"].tokens_per_turn == 0
    assert standings["bot:normal"].valid_board_rate == 1.0


def test_real_bot_matches_rate_every_bot(bot_match, scripted_match):
    """Structure only: who wins a real match is the bots' business, not this test's."""
    standings = leaderboard(bot_match.store()) + leaderboard(scripted_match.store())
    names = {s.identity for s in standings}
    assert names == {"bot:hard", "bot:normal", "bot:easy", "scripted:script"}
    for line in standings:
        assert line.games == 1 and line.wins in (0, 1)
        assert line.valid_board_rate is None or 0 <= line.valid_board_rate <= 1
        assert line.turns > 0
