"""The Banana Arena application: players, LLM client, runners, store, replay, ratings, CLI."""

__version__ = "0.1.0"
