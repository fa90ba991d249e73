"""Ratings over finished matches with openskill's Plackett-Luce model.

Every match is a free-for-all: each seat is its own team, ranked by the game's final
standings (the winner first, then fewest tiles not on a valid board; players who are out last).
Seats that no standing can tell apart (same win, out and tiles-left) share a rank: a tie.

Who a rating belongs to (the identity) is what plays, not the seat's name: the bot's level
(`bot:hard`), the model and policy of a language model (`openai/gpt-4o · oneshot`), `human` for
people, and `scripted:<name>` for scripted players. An identity seated more than once in a match
is rated once, at its best place (a match against itself says nothing about its strength); its
turns, boards and tokens all count.

Matches are rated in the order they were created; matches that did not finish are ignored, and
matches with a single identity count in the statistics but move no rating.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from arena.replay import ReplayError
from arena.store import Store, StoredEvent


@dataclass(frozen=True)
class SeatResult:
    """One seat of one finished match."""

    identity: str
    place: tuple[bool, bool, int]  # (did not win, out, tiles left): lower is better
    won: bool
    turns: int = 0
    boards: int = 0
    valid_boards: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


@dataclass(frozen=True)
class MatchResult:
    match_id: str
    created_at: float
    seats: tuple[SeatResult, ...]


@dataclass
class Standing:
    """One identity's line on the leaderboard."""

    identity: str
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    turns: int = 0
    boards: int = 0
    valid_boards: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    matches: set[str] = field(default_factory=set, repr=False)

    @property
    def rating(self) -> float:
        """The conservative skill estimate (openskill's ordinal: mu - 3 sigma)."""
        return self.mu - 3 * self.sigma

    @property
    def valid_board_rate(self) -> float | None:
        return self.valid_boards / self.boards if self.boards else None

    @property
    def tokens_per_turn(self) -> float | None:
        return (self.prompt_tokens + self.completion_tokens) / self.turns if self.turns else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.identity,
            "rating": round(self.rating, 4),
            "mu": round(self.mu, 4),
            "sigma": round(self.sigma, 4),
            "games": self.games,
            "wins": self.wins,
            "turns": self.turns,
            "boards": self.boards,
            "valid_boards": self.valid_boards,
            "valid_board_rate": _round(self.valid_board_rate),
            "tokens_per_turn": _round(self.tokens_per_turn, 1),
            "cost_usd": round(self.cost_usd, 6),
        }


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def identity(player: dict[str, Any]) -> str:
    """Who a rating belongs to, from a players-table row."""
    kind = player.get("kind")
    settings = player.get("settings") if isinstance(player.get("settings"), dict) else {}
    if kind == "bot":
        return f"bot:{settings.get('level') or 'normal'}"
    if kind == "human":
        return "human"
    if kind == "scripted":
        return f"scripted:{player.get('name')}"
    policy = player.get("policy") or settings.get("policy") or "oneshot"
    return f"{player.get('model') or player.get('name')} · {policy}"


def match_result(store: Store, match: dict[str, Any]) -> MatchResult | None:
    """A finished match's seats with their places and statistics; None if it did not finish
    (no `game_ended` event, or the match is not marked finished)."""
    if match.get("status") != "finished":
        return None
    players = match["players"]
    stats = [
        {
            "turns": 0,
            "boards": 0,
            "valid_boards": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "cost": 0.0,
        }
        for _ in players
    ]
    ended = None
    seats = range(len(players))
    for event in _events(store, match["id"]):
        payload = event.payload if isinstance(event.payload, dict) else {}
        if event.kind == "game_ended":
            ended = payload
            continue
        seat = payload.get("seat" if event.kind == "turn" else "player")
        if seat not in seats:
            continue
        if event.kind == "turn":
            usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
            stats[seat]["turns"] += 1
            stats[seat]["prompt_tokens"] += _number(usage.get("prompt_tokens"))
            stats[seat]["completion_tokens"] += _number(usage.get("completion_tokens"))
            stats[seat]["cost"] += _number(usage.get("cost_usd"))
        else:
            stats[seat]["boards"] += 1
            stats[seat]["valid_boards"] += payload.get("valid") is True
    if ended is None:
        return None
    winner = ended.get("winner")
    by_seat = {s.get("player"): s for s in ended.get("standings") or [] if isinstance(s, dict)}
    results = []
    for seat, player in enumerate(players):
        standing = by_seat.get(seat, {})
        won = winner == seat
        place = (not won, bool(standing.get("out")), int(_number(standing.get("tiles_left"), 999)))
        results.append(
            SeatResult(
                identity=identity(player),
                place=place,
                won=won,
                turns=stats[seat]["turns"],
                boards=stats[seat]["boards"],
                valid_boards=stats[seat]["valid_boards"],
                prompt_tokens=int(stats[seat]["prompt_tokens"]),
                completion_tokens=int(stats[seat]["completion_tokens"]),
                cost_usd=float(stats[seat]["cost"]),
            )
        )
    return MatchResult(match["id"], float(match.get("created_at") or 0.0), tuple(results))


def _events(store: Store, match_id: str) -> list[StoredEvent]:
    try:
        return list(store.events(match_id, kinds=("turn", "board_verified", "game_ended")))
    except ValueError as error:  # json.JSONDecodeError
        raise ReplayError(
            f"Match {match_id} cannot be rated: one of its events is not JSON ({error}); "
            f"`arena replay {match_id}` names it."
        ) from None


def _number(value: Any, default: float = 0) -> float:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else default


def rate(results: Iterable[MatchResult], model: PlackettLuce | None = None) -> list[Standing]:
    """Fold match results (oldest first) into standings, best first. Equal ratings are ordered
    by mu, then by identity, so the order never depends on anything else."""
    model = model or PlackettLuce()
    table: dict[str, Standing] = {}
    for result in sorted(results, key=lambda r: (r.created_at, r.match_id)):
        best: dict[str, SeatResult] = {}
        for seat in result.seats:
            line = table.setdefault(seat.identity, Standing(seat.identity, model.mu, model.sigma))
            line.turns += seat.turns
            line.boards += seat.boards
            line.valid_boards += seat.valid_boards
            line.prompt_tokens += seat.prompt_tokens
            line.completion_tokens += seat.completion_tokens
            line.cost_usd += seat.cost_usd
            if result.match_id not in line.matches:
                line.matches.add(result.match_id)
                line.games += 1
            line.wins += seat.won  # one seat at most wins a match
            if seat.identity not in best or seat.place < best[seat.identity].place:
                best[seat.identity] = seat
        if len(best) < 2:
            continue
        identities = sorted(best)
        places = sorted({best[name].place for name in identities})
        ranks = [float(places.index(best[name].place) + 1) for name in identities]
        teams = [
            [model.rating(mu=table[name].mu, sigma=table[name].sigma, name=name)]
            for name in identities
        ]
        for name, (rated,) in zip(identities, model.rate(teams, ranks=ranks), strict=True):
            table[name].mu, table[name].sigma = rated.mu, rated.sigma
    return sorted(table.values(), key=lambda s: (-s.rating, -s.mu, s.identity))


def leaderboard(store: Store) -> list[Standing]:
    """Standings over every finished match in the store."""
    results = []
    for match in store.matches(limit=sys.maxsize):
        result = match_result(store, match)
        if result is not None:
            results.append(result)
    return rate(results)
