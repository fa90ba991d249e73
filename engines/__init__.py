"""Pure game and agent logic: no Textual, SQLite, litellm or network code (see the import contracts)."""
