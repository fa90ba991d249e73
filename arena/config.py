"""Match configs: Banana-Bench YAML files work unchanged; our own keys add player kinds,
policies, bot levels, realtime mode and house rules."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from engines.bananagrams.tiles import MAX_PLAYERS

# Keys of a player entry that configure the arena; all others go to the model call.
ARENA_PLAYER_KEYS = frozenset(
    {"kind", "name", "model", "policy", "level", "pace", "replies", "step_budget", "history_turns"}
)


class ConfigError(Exception):
    """A config that cannot be used; the message names the field and the problem."""


class PlayerConfig(BaseModel):
    model_config = ConfigDict(extra="allow")

    kind: Literal["human", "bot", "llm", "scripted"] | None = None
    name: str | None = None
    model: str | None = None
    policy: Literal["oneshot", "agent"] = "oneshot"
    level: Literal["easy", "normal", "hard"] = "normal"
    pace: float | None = Field(default=None, ge=0)
    temperature: float = Field(default=1.0, ge=0)
    max_tokens: int | None = Field(default=None, gt=0)
    replies: str | None = None
    step_budget: int = Field(default=6, ge=1, le=50)
    history_turns: int = Field(default=0, ge=0, le=20)

    @model_validator(mode="after")
    def _check_kind(self) -> PlayerConfig:
        if self.kind is None:
            # Banana-Bench files only have `model`; a player without one is the bot.
            self.kind = "llm" if self.model else "bot"
        if self.kind == "llm" and not self.model:
            raise ValueError("an llm player needs a `model`, e.g. openai/gpt-4o-mini")
        if self.kind == "scripted" and not self.replies:
            raise ValueError("a scripted player needs `replies`: a file of replies")
        return self

    @property
    def llm_params(self) -> dict[str, Any]:
        """What is passed to the model call: temperature, max_tokens and any unknown key."""
        params = dict(self.model_extra or {})
        params["temperature"] = self.temperature
        if self.max_tokens is not None:
            params["max_tokens"] = self.max_tokens
        return params

    def display_name(self, seat: int) -> str:
        if self.name:
            return self.name
        if self.kind == "bot":
            return f"bot-{self.level}"
        if self.kind == "human":
            return "you"
        return (self.model or "scripted").split("/")[-1]


class MatchConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    players: list[PlayerConfig] = Field(min_length=1, max_length=MAX_PLAYERS)
    max_turns: int = Field(default=100, ge=1)
    seed: int | None = None
    mode: Literal["turns", "realtime"] = "turns"
    time_limit: float | None = Field(default=None, gt=0)
    dictionary: str | None = None
    rotten_banana: bool = False
    title: str | None = None

    @model_validator(mode="after")
    def _check(self) -> MatchConfig:
        if self.seed is None:
            self.seed = random.randrange(2**31)
        if sum(p.kind == "human" for p in self.players) > 1:
            raise ValueError("at most one human player per terminal")
        return self

    def player_names(self) -> list[str]:
        names: list[str] = []
        for seat, player in enumerate(self.players):
            name = player.display_name(seat)
            names.append(name if name not in names else f"{name}-{seat + 1}")
        return names


def parse_config(data: Any, source: str = "config", base_dir: Path | None = None) -> MatchConfig:
    if not isinstance(data, dict):
        raise ConfigError(
            f"{source}: expected a mapping with `players`, got {type(data).__name__}."
        )
    try:
        config = MatchConfig.model_validate(data)
    except ValidationError as error:
        problem = error.errors()[0]
        field = _field_path(problem["loc"])
        message = problem["msg"].removeprefix("Value error, ")
        more = f" (and {error.error_count() - 1} more problems)" if error.error_count() > 1 else ""
        raise ConfigError(f"{source}: {field}: {message}{more}") from None
    if base_dir is not None:
        # Files named in a config are relative to the config file.
        for player in config.players:
            if player.replies and not Path(player.replies).is_absolute():
                player.replies = str(base_dir / player.replies)
        if config.dictionary and not Path(config.dictionary).is_absolute():
            config.dictionary = str(base_dir / config.dictionary)
    return config


def load_config(path: str | Path) -> MatchConfig:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"No such config file: {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"Cannot read {path}: {error}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise ConfigError(
            f"{path}: not valid YAML{where}: {getattr(error, 'problem', error)}"
        ) from None
    return parse_config(data, str(path), path.parent)


def _field_path(loc: tuple) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else f".{part}" if path else str(part)
    return path or "config"
