"""Backoff arithmetic, Retry-After parsing, token counting and prices (offline)."""

from __future__ import annotations

import random
import time
from email.utils import formatdate

import pytest

from arena.llm import RetryPolicy, call_cost, count_tokens, model_price_known, retry_after_seconds
from arena.llm.errors import redact


def test_backoff_doubles_and_is_capped():
    policy = RetryPolicy(attempts=6, base_delay_s=1.0, max_delay_s=5.0, jitter=0.0)
    assert [policy.delay(n) for n in range(1, 6)] == [1.0, 2.0, 4.0, 5.0, 5.0]


def test_jitter_stays_within_bounds():
    policy = RetryPolicy(base_delay_s=2.0, jitter=0.5)
    rng = random.Random(1)
    delays = [policy.delay(1, rng=rng) for _ in range(200)]
    assert all(1.0 <= d <= 2.0 for d in delays)
    assert max(delays) - min(delays) > 0.5  # really random, not a constant


def test_retry_after_replaces_backoff_and_is_capped():
    policy = RetryPolicy(base_delay_s=10.0, max_retry_after_s=3.0)
    assert policy.delay(1, retry_after_s=0.5) == 0.5
    assert policy.delay(1, retry_after_s=100.0) == 3.0


def test_policy_rejects_nonsense():
    with pytest.raises(ValueError):
        RetryPolicy(attempts=0)
    with pytest.raises(ValueError):
        RetryPolicy(jitter=2.0)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "7"}, 7.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": "-3"}, 0.0),
        ({}, None),
        (None, None),
    ],
)
def test_retry_after_headers(headers, expected):
    assert retry_after_seconds(headers) == expected


def test_retry_after_http_date():
    now = time.time()
    header = formatdate(now + 30, usegmt=True)
    assert retry_after_seconds({"Retry-After": header}, now=now) == pytest.approx(30, abs=1)


@pytest.mark.parametrize(
    "model",
    [
        "gpt-5-nano",
        "openai/gpt-4o-mini",
        "anthropic/claude-sonnet-4-5",
        "gemini/gemini-2.5-flash",
        # These would make litellm fetch Hugging Face tokenizers; the loader forbids that.
        "together_ai/meta-llama/Llama-3-70b-chat-hf",
        "ollama/llama-2-7b",
        "openai/some-local-model",
        "never-heard-of-it",
    ],
)
def test_token_counting_works_offline(model):
    started = time.monotonic()
    short = count_tokens(model, [{"role": "user", "content": "Hello there"}])
    long = count_tokens(model, [{"role": "user", "content": "Hello there " * 200}])
    assert 0 < short < long
    assert 300 < long < 800
    assert count_tokens(model, text="one two three four") > 0
    assert time.monotonic() - started < 5


def test_token_counting_falls_back_on_odd_input():
    odd = [{"role": "user", "content": object()}]
    assert count_tokens("gpt-4o-mini", odd) > 0


def test_prices():
    assert call_cost("openai/gpt-4o-mini", 1_000_000, 0) == pytest.approx(0.15)
    assert call_cost("openai/fake-model", 1000, 1000) == 0.0
    assert call_cost("no-such-model", 1000, 1000) == 0.0
    assert call_cost("x", 10, 20, {"input_cost_per_token": 0.5, "output_cost_per_token": 1}) == 25
    assert model_price_known("gpt-5-nano")
    assert not model_price_known("openai/fake-model")


def test_redact_hides_key_shapes():
    text = "keys sk-proj-abcdefgh1234 AIzaSyA1234567890abcdef Bearer abcdefghijkl and mine"
    cleaned = redact(text, ("mine",))
    for secret in ("sk-proj-abcdefgh1234", "AIzaSyA1234567890abcdef", "abcdefghijkl", "mine"):
        assert secret not in cleaned
