"""User settings: default opponent, models, theme, dictionary, and provider keys.

Saved as YAML in the user config folder with 0600 permissions, because it may hold API keys.
Keys from the environment always win over keys in the file; keys never go anywhere else (not
the database, not logs, not exports).
"""

from __future__ import annotations

import os
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

# Environment variables litellm reads for each provider, in the order shown to people.
PROVIDER_KEYS: dict[str, str] = {
    "OpenAI": "OPENAI_API_KEY",
    "Anthropic": "ANTHROPIC_API_KEY",
    "Gemini": "GEMINI_API_KEY",
    "Mistral": "MISTRAL_API_KEY",
    "Groq": "GROQ_API_KEY",
    "OpenRouter": "OPENROUTER_API_KEY",
}
LEVELS = ("easy", "normal", "hard")


class SettingsError(Exception):
    """A settings file that cannot be read or written; the message says why."""


@dataclass
class Settings:
    opponent: str = "bot"  # "bot" or a model name
    level: str = "normal"
    mode: str = "realtime"
    models: list[str] = field(
        default_factory=lambda: ["openai/gpt-4o-mini", "anthropic/claude-3-5-haiku-latest"]
    )
    chat_model: str = "openai/gpt-4o-mini"
    chat_policy: str = "react+"
    theme: str = "textual-dark"
    dictionary: str | None = None
    keys: dict[str, str] = field(default_factory=dict)
    # Binding id -> keys, e.g. {"play.hint": "ctrl+h,f5"}; ids are listed in the help screen.
    keymap: dict[str, str] = field(default_factory=dict)

    def public(self) -> dict:
        """Everything but the keys (for display and logs)."""
        data = asdict(self)
        data["keys"] = {name: "set" for name in self.keys}
        return data


def settings_path() -> Path:
    if env := os.environ.get("ARENA_SETTINGS"):
        return Path(env).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir("banana-arena", appauthor=False)) / "settings.yaml"


def load_settings(path: Path | None = None) -> Settings:
    """The saved settings, or defaults when there is no file yet."""
    path = path or settings_path()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except FileNotFoundError:
        return Settings()
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise SettingsError(f"Cannot read settings {path}: {error}") from None
    if not isinstance(data, dict):
        raise SettingsError(f"Settings {path} should be a mapping of names to values.")
    known = {name: value for name, value in data.items() if name in Settings.__dataclass_fields__}
    try:
        settings = Settings(**known)
    except TypeError as error:
        raise SettingsError(f"Settings {path}: {error}") from None
    if settings.level not in LEVELS:
        settings.level = "normal"
    if not isinstance(settings.keys, dict):
        settings.keys = {}
    if not isinstance(settings.keymap, dict):
        settings.keymap = {}
    return settings


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write atomically with 0600 permissions (the file may hold API keys)."""
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    try:
        descriptor = os.open(
            temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, stat.S_IRUSR | stat.S_IWUSR
        )
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            yaml.safe_dump(asdict(settings), handle, sort_keys=False)
        os.chmod(temporary, stat.S_IRUSR | stat.S_IWUSR)
        os.replace(temporary, path)
    except OSError as error:
        raise SettingsError(f"Cannot save settings to {path}: {error.strerror or error}") from None
    return path


def apply_keys(settings: Settings) -> None:
    """Expose keys from the settings file to litellm, without overriding the environment."""
    for name, value in settings.keys.items():
        if value and name.isupper():
            os.environ.setdefault(name, value)


def provider_status() -> dict[str, bool]:
    """Which providers have a key configured (environment or settings file, once applied)."""
    return {
        provider: bool(os.environ.get(variable)) for provider, variable in PROVIDER_KEYS.items()
    }


# Bare model names litellm routes by name, by their first word.
_NAME_PREFIXES = {
    "gpt": "openai",
    "o1": "openai",
    "o3": "openai",
    "o4": "openai",
    "claude": "anthropic",
    "gemini": "gemini",
}


def required_key(model: str) -> str | None:
    """The environment variable a model's provider needs, or None (a local model such as
    Ollama, or a provider we don't know)."""
    from arena.llm.errors import API_KEY_VARIABLES

    prefix, _, rest = model.partition("/")
    provider = prefix.lower() if rest else _NAME_PREFIXES.get(model.lower().split("-")[0], "")
    return API_KEY_VARIABLES.get(provider)


def missing_keys(players) -> list[str]:
    """Key variables that model players (match config entries) need and the environment lacks;
    a player with its own api_key or api_base needs none."""
    missing: list[str] = []
    for player in players:
        if player.kind != "llm" or not player.model:
            continue
        extra = player.model_extra or {}
        if extra.get("api_key") or extra.get("api_base") or extra.get("base_url"):
            continue
        variable = required_key(player.model)
        if variable and not os.environ.get(variable) and variable not in missing:
            missing.append(variable)
    return missing
