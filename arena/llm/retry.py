"""When to retry a failed model call and how long to wait first."""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries with jittered exponential backoff.

    `attempts` counts every try, the first one included. The wait before retry n (1-based) is
    `base_delay_s * 2**(n-1)`, capped at `max_delay_s`, then scaled by a random factor in
    `[1 - jitter, 1]`. A `Retry-After` from the server replaces it, capped at
    `max_retry_after_s`.
    """

    attempts: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    max_retry_after_s: float = 60.0
    jitter: float = 0.5

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("RetryPolicy.attempts must be at least 1")
        if not 0.0 <= self.jitter <= 1.0:
            raise ValueError("RetryPolicy.jitter must be between 0 and 1")

    def delay(
        self,
        retry_number: int,
        retry_after_s: float | None = None,
        rng: random.Random | None = None,
    ) -> float:
        """Seconds to wait before retry `retry_number` (1 for the first retry)."""
        if retry_after_s is not None:
            return max(0.0, min(retry_after_s, self.max_retry_after_s))
        backoff = min(self.base_delay_s * 2 ** max(0, retry_number - 1), self.max_delay_s)
        factor = 1.0 - self.jitter * (rng or random).random()
        return backoff * factor


def retry_after_seconds(
    headers: Mapping[str, Any] | None, now: float | None = None
) -> float | None:
    """Seconds asked for by `Retry-After` / `Retry-After-Ms` headers, or None.

    `Retry-After` may be a number of seconds or an HTTP date.
    """
    if not headers:
        return None
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)
