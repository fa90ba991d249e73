"""Token counts and prices, from litellm's tables, offline, never raising.

Counting uses tiktoken encodings shipped inside litellm (Hugging Face tokenizer downloads are
switched off by the loader); models it cannot place are counted with the default encoding.
Prices come from litellm's bundled price list; an unknown model costs 0.0.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from arena.llm._loader import litellm_module

log = logging.getLogger(__name__)

# Rough characters per token, for when even litellm's counter fails.
_CHARS_PER_TOKEN = 4


def _rough_count(text: str) -> int:
    return (len(text) + _CHARS_PER_TOKEN - 1) // _CHARS_PER_TOKEN


def count_tokens(
    model: str,
    messages: Sequence[Mapping[str, Any]] | None = None,
    *,
    text: str | None = None,
    tools: Sequence[Mapping[str, Any]] | None = None,
) -> int:
    """Tokens in `messages` (with `tools`) or in `text` for `model`; an estimate, never raises."""
    litellm = litellm_module()
    try:
        if messages is not None:
            return int(
                litellm.token_counter(
                    model=model, messages=list(messages), tools=list(tools) if tools else None
                )
            )
        return int(litellm.token_counter(model=model, text=text or ""))
    except Exception as exc:  # litellm raises many things for odd inputs; a count is a guess anyway
        log.debug("token_counter failed for %s: %s", model, exc)
        payload = json.dumps(list(messages), default=str) if messages is not None else text or ""
        if tools:
            payload += json.dumps(list(tools), default=str)
        return _rough_count(payload)


def _custom_prices(params: Mapping[str, Any] | None) -> tuple[float, float] | None:
    """Per-token prices a player configured itself (litellm's own parameter names)."""
    if not params:
        return None
    prompt = params.get("input_cost_per_token")
    completion = params.get("output_cost_per_token")
    if prompt is None and completion is None:
        return None
    try:
        return float(prompt or 0.0), float(completion or 0.0)
    except (TypeError, ValueError):
        return None


def call_cost(
    model: str,
    prompt_tokens: int,
    completion_tokens: int,
    params: Mapping[str, Any] | None = None,
) -> float:
    """Price in USD of one call; 0.0 when the model has no known price."""
    custom = _custom_prices(params)
    if custom is not None:
        return prompt_tokens * custom[0] + completion_tokens * custom[1]
    litellm = litellm_module()
    try:
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=model,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            custom_llm_provider=(params or {}).get("custom_llm_provider"),
        )
        return float(prompt_cost) + float(completion_cost)
    except Exception as exc:  # unknown model, odd provider: the price is simply unknown
        log.debug("no price for %s: %s", model, exc)
        return 0.0


def model_price_known(model: str) -> bool:
    """True when litellm's price list has this model."""
    return call_cost(model, 1_000_000, 1_000_000) > 0.0
