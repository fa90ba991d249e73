"""Settings are saved for next time in a 0600 file, and keys reach litellm via the environment."""

import os
import stat

import pytest

from arena.settings import (
    Settings,
    SettingsError,
    apply_keys,
    load_settings,
    provider_status,
    save_settings,
)


def test_round_trip_with_private_permissions(tmp_path):
    path = tmp_path / "conf" / "settings.yaml"
    saved = Settings(level="hard", theme="nord", keys={"OPENAI_API_KEY": "sk-x"})
    save_settings(saved, path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert load_settings(path) == saved
    assert "sk-x" not in str(saved.public())


def test_missing_file_gives_defaults_and_bad_files_are_explained(tmp_path):
    assert load_settings(tmp_path / "none.yaml") == Settings()
    bad = tmp_path / "bad.yaml"
    bad.write_text("level: [unclosed\n")
    with pytest.raises(SettingsError, match="Cannot read settings"):
        load_settings(bad)
    bad.write_text("- a list\n")
    with pytest.raises(SettingsError, match="mapping"):
        load_settings(bad)
    bad.write_text("level: godlike\nunknown: 1\n")
    assert load_settings(bad).level == "normal"


def test_keys_never_override_the_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    apply_keys(Settings(keys={"OPENAI_API_KEY": "from-file", "ANTHROPIC_API_KEY": "file-key"}))
    assert os.environ["OPENAI_API_KEY"] == "from-env"
    assert os.environ["ANTHROPIC_API_KEY"] == "file-key"
    assert provider_status()["Anthropic"] is True


def test_provider_keys_from_model_names(monkeypatch):
    from arena.config import parse_config
    from arena.settings import missing_keys, required_key

    assert required_key("openai/gpt-4o-mini") == "OPENAI_API_KEY"
    assert required_key("anthropic/claude-3-5-haiku-latest") == "ANTHROPIC_API_KEY"
    assert required_key("gemini/gemini-2.0-flash") == "GEMINI_API_KEY"
    assert required_key("openrouter/meta-llama/llama-3-70b") == "OPENROUTER_API_KEY"
    assert required_key("ollama/llama3.1") is None and required_key("ollama_chat/qwen2.5") is None
    assert (
        required_key("gpt-4o") == "OPENAI_API_KEY"
        and required_key("claude-3-opus") == "ANTHROPIC_API_KEY"
    )
    assert required_key("somewhere/unknown-model") is None
    for variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    config = parse_config(
        {
            "players": [
                {"model": "openai/gpt-4o"},
                {"model": "openai/local", "api_base": "http://localhost:8000/v1"},
                {"model": "claude-3-opus"},
                {"model": "ollama_chat/qwen3"},
                {"kind": "bot"},
            ]
        }
    )
    assert missing_keys(config.players) == ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"]
