"""Sorting failed model calls into retryable or final, and saying what went wrong in one line.

Every message names the model and, where it helps, what to do next (which environment variable
to set, how to spell a model name). Messages never contain API keys.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import ModuleType
from typing import Any

from arena.llm.retry import retry_after_seconds

# The environment variable people are told to set, by litellm provider name.
API_KEY_VARIABLES: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "text-completion-openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "xai": "XAI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "cohere": "COHERE_API_KEY",
    "cohere_chat": "COHERE_API_KEY",
    "fireworks_ai": "FIREWORKS_AI_API_KEY",
    "perplexity": "PERPLEXITYAI_API_KEY",
    "azure": "AZURE_API_KEY",
    "cerebras": "CEREBRAS_API_KEY",
    "deepinfra": "DEEPINFRA_API_KEY",
}

MODEL_NAME_HINT = (
    "write it as provider/model, for example 'openai/gpt-5-nano', "
    "'anthropic/claude-sonnet-4-5' or 'gemini/gemini-2.5-flash'"
)

_DETAIL_LIMIT = 200
_SECRET_PATTERNS = (
    re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}"),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{10,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-]{8,}"),
)
# Prefixes litellm and the SDKs put in front of the provider's own words.
_NOISE = re.compile(
    r"^(?:litellm\.)?[A-Za-z]*(?:Error|Exception|Timeout)\s*[:\-]\s*|^[A-Za-z_]+Exception\s*-\s*"
)


class EmptyStreamError(Exception):
    """The provider's stream ended without any text, tool call or usage: not a real reply."""


class FailureKind(StrEnum):
    TIMEOUT = "timeout"
    RATE_LIMIT = "rate_limit"
    SERVER = "server"
    CONNECTION = "connection"
    AUTH = "auth"
    PERMISSION = "permission"
    NOT_FOUND = "not_found"
    CONTEXT_WINDOW = "context_window"
    BAD_REQUEST = "bad_request"
    BUDGET = "budget"
    UNEXPECTED = "unexpected"


_RETRYABLE = {
    FailureKind.TIMEOUT,
    FailureKind.RATE_LIMIT,
    FailureKind.SERVER,
    FailureKind.CONNECTION,
}


@dataclass(frozen=True)
class Failure:
    kind: FailureKind
    status: int | None
    detail: str
    retry_after_s: float | None = None

    @property
    def retryable(self) -> bool:
        return self.kind in _RETRYABLE


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """Remove API keys from `text`: the given ones and anything shaped like a key."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + "***", text)
    return text


def _detail(exc: BaseException, secrets: tuple[str, ...]) -> str:
    text = str(getattr(exc, "message", "") or exc or type(exc).__name__)
    # The first line carries the provider's words; litellm appends debugging lines after it.
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), type(exc).__name__)
    for _ in range(4):
        stripped = _NOISE.sub("", line, count=1).strip()
        if stripped == line or not stripped:
            break
        line = stripped
    line = redact(" ".join(line.split()), secrets)
    if len(line) > _DETAIL_LIMIT:
        line = line[: _DETAIL_LIMIT - 1] + "…"
    return line


def _response_headers(exc: BaseException) -> Mapping[str, Any] | None:
    for attribute in ("litellm_response_headers", "headers"):
        headers = getattr(exc, attribute, None)
        if headers:
            return headers
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    return headers or None


def classify(
    exc: BaseException, litellm: ModuleType | None, secrets: tuple[str, ...] = ()
) -> Failure:
    """Sort an exception raised by a litellm call into a `Failure`."""
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int):
        status = None
    detail = _detail(exc, secrets)

    def failure(kind: FailureKind) -> Failure:
        retry_after = retry_after_seconds(_response_headers(exc)) if kind in _RETRYABLE else None
        return Failure(kind, status, detail, retry_after)

    if isinstance(exc, EmptyStreamError):
        return failure(FailureKind.SERVER)
    if litellm is not None:
        ex = litellm.exceptions
        if isinstance(exc, ex.Timeout):
            return failure(FailureKind.TIMEOUT)
        if isinstance(exc, ex.RateLimitError):
            return failure(FailureKind.RATE_LIMIT)
        if isinstance(exc, ex.ContextWindowExceededError):
            return failure(FailureKind.CONTEXT_WINDOW)
        if isinstance(exc, ex.AuthenticationError):
            return failure(FailureKind.AUTH)
        if isinstance(exc, ex.PermissionDeniedError):
            return failure(FailureKind.PERMISSION)
        if isinstance(exc, ex.NotFoundError):
            return failure(FailureKind.NOT_FOUND)
        if isinstance(exc, ex.BudgetExceededError):
            return failure(FailureKind.BUDGET)
        if isinstance(exc, ex.BadRequestError | ex.UnprocessableEntityError):
            return failure(FailureKind.BAD_REQUEST)
        if isinstance(
            exc, ex.InternalServerError | ex.ServiceUnavailableError | ex.BadGatewayError
        ):
            return failure(FailureKind.SERVER)
        if isinstance(exc, ex.APIConnectionError):
            return failure(FailureKind.CONNECTION)
    if isinstance(exc, asyncio.TimeoutError | TimeoutError):
        return failure(FailureKind.TIMEOUT)
    if status is not None:
        if status == 429:
            return failure(FailureKind.RATE_LIMIT)
        if status in (408, 409) or status >= 500:
            return failure(FailureKind.SERVER)
        if status == 401:
            return failure(FailureKind.AUTH)
        if status == 403:
            return failure(FailureKind.PERMISSION)
        if status == 404:
            return failure(FailureKind.NOT_FOUND)
        if 400 <= status < 500:
            return failure(FailureKind.BAD_REQUEST)
    if isinstance(exc, ConnectionError):
        return failure(FailureKind.CONNECTION)
    return failure(FailureKind.UNEXPECTED)


def key_variable(provider: str | None) -> str | None:
    return API_KEY_VARIABLES.get(provider or "")


def failure_message(
    model: str,
    failure: Failure,
    *,
    attempts: int,
    provider: str | None = None,
    timeout_s: float | None = None,
    broke_off: bool = False,
) -> str:
    """One line for people: what failed, and what to do about it when we know."""
    tries = f" after {attempts} attempts" if attempts > 1 else ""
    http = f" (HTTP {failure.status})" if failure.status else ""
    detail = failure.detail
    kind = failure.kind
    if kind is FailureKind.TIMEOUT:
        limit = f" within {timeout_s:g} s" if timeout_s else " in time"
        text = f"{model}: no answer{limit}{tries}; the provider may be overloaded."
    elif kind is FailureKind.RATE_LIMIT:
        text = (
            f"{model}: rate limited by the provider (HTTP 429){tries}; wait and try again: {detail}"
        )
    elif kind is FailureKind.SERVER:
        text = f"{model}: the provider failed{http}{tries}: {detail}"
    elif kind is FailureKind.CONNECTION:
        text = f"{model}: could not talk to the provider{tries}: {detail}"
    elif kind is FailureKind.AUTH:
        variable = key_variable(provider)
        check = f"check {variable} or the player's api_key" if variable else "check the API key"
        text = f"{model}: the provider rejected the API key{http}; {check}."
    elif kind is FailureKind.PERMISSION:
        text = f"{model}: access denied{http}: {detail}"
    elif kind is FailureKind.NOT_FOUND:
        text = f"{model}: unknown model, the provider has no model by this name{http}: {detail}"
    elif kind is FailureKind.CONTEXT_WINDOW:
        text = f"{model}: the conversation no longer fits in the model's context window: {detail}"
    elif kind is FailureKind.BAD_REQUEST:
        text = f"{model}: the provider rejected the request{http}: {detail}"
    elif kind is FailureKind.BUDGET:
        text = f"{model}: spending limit reached: {detail}"
    else:
        text = f"{model}: the model call failed unexpectedly: {detail}"
    if broke_off:
        text += " (the reply broke off mid-stream)"
    return text
