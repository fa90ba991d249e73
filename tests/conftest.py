"""Shared pytest fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.fake_openai import FakeOpenAIServer


@pytest.fixture(autouse=True)
def private_user_folders(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test reads or writes the user's real database, settings or logs."""
    home = tmp_path_factory.mktemp("user")
    for variable in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(variable, str(home / variable.lower()))
    monkeypatch.setenv("ARENA_DB", str(home / "arena.db"))
    monkeypatch.setenv("ARENA_SETTINGS", str(home / "settings.yaml"))


@pytest.fixture
def fake_openai(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """A scripted OpenAI-compatible server on 127.0.0.1 for the length of one test.

    While the test runs, `OPENAI_API_KEY`, `OPENAI_API_BASE` and `OPENAI_BASE_URL` point
    litellm at it (restored afterwards), so `LiteLLM(fake_openai.model)` or any
    `openai/<name>` model reaches it without extra arguments; passing
    `**fake_openai.llm_kwargs()` works too. Script replies with `fake_openai.script(...)` and
    inspect `fake_openai.chat_requests`; see `tests/fake_openai.py` for the behaviours.

        async def test_hello(fake_openai):
            fake_openai.script(Reply("Hello"))
            reply = await LiteLLM(fake_openai.model).complete([{"role": "user", "content": "hi"}])
            assert reply.text == "Hello"
    """
    server = FakeOpenAIServer().start()
    monkeypatch.setenv("OPENAI_API_KEY", server.api_key)
    monkeypatch.setenv("OPENAI_API_BASE", server.base_url)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    # A proxy from the environment must not intercept traffic to the local server.
    for variable in ("NO_PROXY", "no_proxy"):
        current = os.environ.get(variable, "")
        monkeypatch.setenv(variable, ",".join(filter(None, [current, "127.0.0.1", "localhost"])))
    try:
        yield server
    finally:
        server.stop()
