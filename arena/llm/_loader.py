"""Import litellm on first use, configured to stay offline and quiet.

Importing litellm takes about two seconds, so nothing in `arena` imports it at module level;
everything goes through `litellm_module()`.
"""

from __future__ import annotations

import logging
import os
import threading
from types import ModuleType

_lock = threading.Lock()
_module: ModuleType | None = None

# litellm's loggers; they print to stderr, which would tear through a Textual screen.
_LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm")


def litellm_module() -> ModuleType:
    """The litellm module, imported and configured once (thread-safe)."""
    global _module
    if _module is not None:
        return _module
    with _lock:
        if _module is None:
            # Use the price list shipped with litellm instead of downloading one at import.
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            import litellm

            litellm.suppress_debug_info = True  # no "Provider List: ..." banners on errors
            litellm.set_verbose = False
            # Token counting must never try to fetch Hugging Face tokenizers (slow retries
            # offline); tiktoken's encodings ship with litellm.
            litellm.disable_hf_tokenizer_download = True
            for name in _LITELLM_LOGGERS:
                logger = logging.getLogger(name)
                logger.setLevel(logging.CRITICAL)
                logger.propagate = False
            _module = litellm
    return _module
