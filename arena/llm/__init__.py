"""The LLM client: `LiteLLM` implements `engines.agent.llm.LLM` with litellm.

Importing this package is cheap: litellm itself is imported on the first call that needs it.

    from arena.llm import LiteLLM, RetryPolicy

    llm = LiteLLM("openai/gpt-5-nano", reasoning_effort="low", timeout=60)
    local = LiteLLM("openai/qwen3", api_base="http://localhost:8000/v1", api_key="none")
    reply = await llm.complete(messages, tools=specs, on_delta=print)
"""

from arena.llm.accounting import call_cost, count_tokens, model_price_known
from arena.llm.client import RESERVED_PARAMS, LiteLLM, redacted_params
from arena.llm.errors import redact
from arena.llm.retry import RetryPolicy, retry_after_seconds

__all__ = [
    "RESERVED_PARAMS",
    "LiteLLM",
    "RetryPolicy",
    "call_cost",
    "count_tokens",
    "model_price_known",
    "redact",
    "redacted_params",
    "retry_after_seconds",
]
