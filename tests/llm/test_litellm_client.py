"""The real litellm path against the local fake OpenAI server."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time

import pytest

from arena.llm import LiteLLM, RetryPolicy
from engines.agent.llm import LLMError, TextDelta, ToolCall, ToolCallDelta, ToolSpec
from tests.fake_openai import (
    GARBAGE_SSE,
    MALFORMED_JSON,
    FakeToolCall,
    Hang,
    HttpError,
    RecordedRequest,
    Reply,
    giant_reply,
)

# litellm 1.106 trips a pydantic deprecation on every streamed chunk; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:Accessing the 'model_")

FAST = RetryPolicy(attempts=3, base_delay_s=0.01, max_delay_s=0.05, max_retry_after_s=0.05)
HELLO = [{"role": "user", "content": "Say hello."}]


def client(server, **params) -> LiteLLM:
    params.setdefault("retry", FAST)
    return LiteLLM(server.model, **server.llm_kwargs(), **params)


async def test_streams_text_through_on_delta_and_reports_usage(fake_openai):
    fake_openai.script(
        Reply("Hello there, world!", chunk_size=5, prompt_tokens=11, completion_tokens=7)
    )
    deltas = []
    reply = await client(fake_openai).complete(HELLO, on_delta=deltas.append)
    assert reply.text == "Hello there, world!"
    assert all(isinstance(d, TextDelta) for d in deltas)
    assert len(deltas) >= 4
    assert "".join(d.text for d in deltas) == reply.text
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (11, 7)
    assert reply.usage.cost_usd == 0.0  # fake-model has no price
    assert reply.finish_reason == "stop"
    assert reply.model == fake_openai.model
    assert reply.tool_calls == ()
    assert reply.latency_s > 0
    assert reply.backoff_s == 0.0


async def test_streamed_tool_calls_are_assembled(fake_openai):
    calls = [
        FakeToolCall("add", '{"a": 12, "b": 30}', id="call_add"),
        FakeToolCall("search", '{"query": "bananas \\"ripe\\" yellow"}', id="call_search"),
    ]
    fake_openai.script(Reply("Let me compute.", tool_calls=calls, chunk_size=4))
    deltas = []
    specs = [
        ToolSpec("add", "Add numbers", {"type": "object", "properties": {"a": {"type": "number"}}}),
        ToolSpec("search", "Search the web"),
    ]
    reply = await client(fake_openai).complete(HELLO, tools=specs, on_delta=deltas.append)
    assert reply.tool_calls == (
        ToolCall("call_add", "add", '{"a": 12, "b": 30}'),
        ToolCall("call_search", "search", '{"query": "bananas \\"ripe\\" yellow"}'),
    )
    assert reply.finish_reason == "tool_calls"
    assert reply.text == "Let me compute."
    # The argument fragments arrive in several pieces and rebuild each call by index.
    pieces = [d for d in deltas if isinstance(d, ToolCallDelta)]
    assert len([p for p in pieces if p.index == 0 and p.arguments]) > 2
    for index, call in enumerate(reply.tool_calls):
        mine = [p for p in pieces if p.index == index]
        assert "".join(p.arguments for p in mine) == call.arguments
        assert [p.name for p in mine if p.name] == [call.name]
        assert [p.id for p in mine if p.id] == [call.id]
    sent = fake_openai.last_chat.body["tools"]
    assert [t["function"]["name"] for t in sent] == ["add", "search"]
    assert sent[0] == specs[0].to_openai()


async def test_tool_call_without_arguments_gets_empty_object(fake_openai):
    fake_openai.script(Reply(tool_calls=[FakeToolCall("now", "")]))
    reply = await client(fake_openai).complete(HELLO, tools=[ToolSpec("now", "Time")])
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("now", "{}")]
    assert reply.tool_calls[0].id


async def test_reasoning_text_is_kept_apart(fake_openai):
    fake_openai.script(Reply("42", reasoning="Six times seven is forty-two."))
    deltas = []
    reply = await client(fake_openai).complete(HELLO, on_delta=deltas.append)
    assert reply.reasoning == "Six times seven is forty-two."
    assert reply.text == "42"
    assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == "42"


async def test_messages_and_extra_parameters_reach_the_server(fake_openai):
    fake_openai.script(Reply("ok"))
    messages = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Name a fruit."},
    ]
    llm = client(fake_openai, temperature=0.25, max_tokens=77, seed=7, reasoning_effort="low")
    await llm.complete(messages)
    body = fake_openai.last_chat.body
    assert body["messages"] == messages
    assert body["temperature"] == 0.25
    assert body["max_tokens"] == 77
    assert body["seed"] == 7
    assert body["reasoning_effort"] == "low"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert fake_openai.last_chat.headers["authorization"] == "Bearer test-key"


async def test_fixture_environment_reaches_the_server_without_arguments(fake_openai):
    fake_openai.script(Reply("from the environment"))
    reply = await LiteLLM(fake_openai.model, retry=FAST).complete(HELLO)
    assert reply.text == "from the environment"
    assert len(fake_openai.chat_requests) == 1


def test_fixture_does_not_leak_its_environment():
    # Runs after the tests above in this file; none of them may leave their server behind.
    for variable in ("OPENAI_API_BASE", "OPENAI_BASE_URL"):
        assert "127.0.0.1" not in os.environ.get(variable, "")
    assert os.environ.get("OPENAI_API_KEY") != "test-key"


async def test_rate_limit_then_success_backs_off(fake_openai):
    fake_openai.script(HttpError(429, "slow down"), Reply("finally"))
    policy = RetryPolicy(attempts=3, base_delay_s=0.05, jitter=0.0)
    started = time.monotonic()
    reply = await client(fake_openai, retry=policy).complete(HELLO)
    assert reply.text == "finally"
    assert reply.backoff_s == pytest.approx(0.05)
    assert time.monotonic() - started >= 0.05
    assert len(fake_openai.chat_requests) == 2


async def test_retry_after_is_respected_but_capped(fake_openai):
    fake_openai.script(
        HttpError(429, retry_after=0.2), HttpError(503, retry_after=3600), Reply("ok")
    )
    policy = RetryPolicy(attempts=3, base_delay_s=5.0, max_retry_after_s=0.3)
    reply = await client(fake_openai, retry=policy).complete(HELLO)
    assert reply.text == "ok"
    # 0.2 s as asked, then one hour capped to 0.3 s; the 5 s base delay is never used.
    assert reply.backoff_s == pytest.approx(0.5)


async def test_server_error_forever_fails_after_bounded_attempts(fake_openai):
    fake_openai.default = HttpError(500, "upstream exploded")
    with pytest.raises(LLMError) as caught:
        await client(fake_openai).complete(HELLO)
    message = str(caught.value)
    assert len(fake_openai.chat_requests) == FAST.attempts
    assert "500" in message and "3 attempts" in message and "upstream exploded" in message
    assert "\n" not in message


async def test_timeout_is_retried_then_reported(fake_openai):
    fake_openai.default = Hang(10)
    started = time.monotonic()
    with pytest.raises(LLMError, match=r"no answer within 0\.3 s after 2 attempts"):
        await client(fake_openai, timeout=0.3, retry=RetryPolicy(2, base_delay_s=0.01)).complete(
            HELLO
        )
    assert time.monotonic() - started < 5
    assert len(fake_openai.chat_requests) == 2


async def test_slow_stream_within_timeout_succeeds(fake_openai):
    fake_openai.script(Reply("tick tock tick tock", chunk_size=5, chunk_delay_s=0.05))
    reply = await client(fake_openai, timeout=2).complete(HELLO)
    assert reply.text == "tick tock tick tock"


@pytest.mark.parametrize("behaviour", [MALFORMED_JSON, GARBAGE_SSE], ids=["malformed", "not-sse"])
async def test_unreadable_replies_raise_llm_error(fake_openai, behaviour):
    fake_openai.default = behaviour
    with pytest.raises(LLMError) as caught:
        await client(fake_openai).complete(HELLO)
    assert str(caught.value).startswith(fake_openai.model)
    assert len(fake_openai.chat_requests) == FAST.attempts


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (400, "rejected the request"),
        (401, "OPENAI_API_KEY"),
        (403, "access denied"),
        (404, "unknown model"),
        (422, "rejected the request"),
    ],
)
async def test_client_errors_fail_at_once(fake_openai, status, words):
    fake_openai.script(HttpError(status, "nope"), Reply("never reached"))
    with pytest.raises(LLMError, match=words):
        await client(fake_openai).complete(HELLO)
    assert len(fake_openai.chat_requests) == 1


async def test_reply_cut_off_mid_stream_is_not_retried_once_shown(fake_openai):
    fake_openai.script(
        Reply("abcdefghijklmnop" * 4, chunk_size=4, disconnect_after_chunks=3), Reply("again")
    )
    shown = []
    with pytest.raises(LLMError, match="broke off mid-stream"):
        await client(fake_openai).complete(HELLO, on_delta=shown.append)
    assert shown  # the person saw part of it, so a retry would repeat text
    assert fake_openai.pending == 1


async def test_reply_cut_off_mid_stream_is_retried_when_nothing_was_shown(fake_openai):
    fake_openai.script(
        Reply("abcdefghijklmnop" * 4, chunk_size=4, disconnect_after_chunks=3), Reply("again")
    )
    reply = await client(fake_openai).complete(HELLO)
    assert reply.text == "again"
    assert reply.backoff_s > 0


async def test_on_delta_errors_propagate_unchanged(fake_openai):
    fake_openai.script(Reply("hello"), Reply("hello"))

    def broken(delta):
        raise KeyError("display bug")

    with pytest.raises(KeyError, match="display bug"):
        await client(fake_openai).complete(HELLO, on_delta=broken)
    assert len(fake_openai.chat_requests) == 1


async def test_giant_reply_arrives_whole(fake_openai):
    fake_openai.script(giant_reply(300_000))
    reply = await client(fake_openai).complete(HELLO)
    assert len(reply.text) == 300_000
    assert reply.text.startswith("All work and no play")


async def test_concurrent_calls_do_not_mix(fake_openai):
    def echo(request: RecordedRequest) -> Reply:
        return Reply("echo: " + request.messages[-1]["content"], chunk_size=3, chunk_delay_s=0.01)

    fake_openai.responder = echo
    llm = client(fake_openai)
    questions = [f"question {i}" for i in range(4)]
    replies = await asyncio.gather(
        *(llm.complete([{"role": "user", "content": q}]) for q in questions)
    )
    assert [r.text for r in replies] == [f"echo: {q}" for q in questions]


async def test_cost_of_a_priced_model(fake_openai):
    fake_openai.script(Reply("ok", prompt_tokens=1000, completion_tokens=500))
    llm = LiteLLM("openai/gpt-4o-mini", retry=FAST, **fake_openai.llm_kwargs())
    reply = await llm.complete(HELLO)
    # litellm's bundled prices for gpt-4o-mini: $0.15 / $0.60 per million tokens.
    assert reply.usage.cost_usd == pytest.approx(1000 * 0.15e-6 + 500 * 0.60e-6)


async def test_player_prices_apply_to_that_player_only(fake_openai):
    fake_openai.default = Reply("ok", prompt_tokens=1000, completion_tokens=100)
    priced = client(fake_openai, input_cost_per_token=1e-6, output_cost_per_token=2e-6)
    reply = await priced.complete(HELLO)
    assert reply.usage.cost_usd == pytest.approx(1000 * 1e-6 + 100 * 2e-6)
    assert "input_cost_per_token" not in fake_openai.last_chat.body
    plain = await client(fake_openai).complete(HELLO)
    assert plain.usage.cost_usd == 0.0


async def test_missing_usage_is_estimated(fake_openai):
    fake_openai.script(Reply("A reply of a few words.", send_usage=False))
    reply = await client(fake_openai).complete(HELLO)
    assert reply.text == "A reply of a few words."
    assert reply.usage.prompt_tokens > 0
    assert reply.usage.completion_tokens > 0


async def test_error_messages_never_show_the_api_key(fake_openai):
    fake_openai.script(HttpError(400, "key sk-live-abcdefgh12345678 is not allowed for test-key"))
    with pytest.raises(LLMError) as caught:
        await client(fake_openai).complete(HELLO)
    message = str(caught.value)
    assert "sk-live-abcdefgh12345678" not in message
    assert "test-key" not in message
    assert "test-key" not in repr(client(fake_openai))


@pytest.mark.parametrize(
    ("model", "variable"),
    [
        ("openai/gpt-5-nano", "OPENAI_API_KEY"),
        ("gpt-4o-mini", "OPENAI_API_KEY"),
        ("anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
        ("gemini/gemini-2.5-flash", "GEMINI_API_KEY"),
        ("mistral/mistral-large-latest", "MISTRAL_API_KEY"),
    ],
)
async def test_missing_api_key_names_the_variable(monkeypatch, model, variable):
    for name in (variable, "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_BASE", "http://127.0.0.1:9/v1")  # never reached
    with pytest.raises(LLMError) as caught:
        await LiteLLM(model, retry=FAST).complete(HELLO)
    message = str(caught.value)
    assert f"set {variable}" in message
    assert model in message
    assert "\n" not in message


async def test_api_key_argument_satisfies_the_check(fake_openai, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    fake_openai.script(Reply("keyed"))
    reply = await client(fake_openai).complete(HELLO)
    assert reply.text == "keyed"


async def test_unknown_model_says_so():
    with pytest.raises(LLMError, match="Unknown model 'no-such-model-xyz'.*provider/model"):
        await LiteLLM("no-such-model-xyz", retry=FAST).complete(HELLO)


def test_retry_parameters_set_the_policy():
    assert LiteLLM("openai/x", num_retries=0).retry.attempts == 1
    assert LiteLLM("openai/x", max_retries=5).retry.attempts == 6
    assert "max_retries" not in LiteLLM("openai/x", max_retries=5).params
    assert LiteLLM("openai/x").params["timeout"] == 300
    assert LiteLLM("openai/x", timeout=12).params["timeout"] == 12


def test_reserved_parameters_are_refused():
    with pytest.raises(ValueError, match="stream"):
        LiteLLM("openai/x", stream=False)
    with pytest.raises(ValueError):
        LiteLLM("  ")


def test_importing_arena_llm_does_not_import_litellm():
    code = (
        "import sys, arena.llm, arena.llm.client, arena.tools; "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('litellm', 'openai', 'mcp', 'httpx', 'textual'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", "import json; " + code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(out.stdout) == []
