"""How a player sees a Bananagrams game and answers a turn: views, the Banana-Bench `oneshot`
prompt and reply format, and the game tools of the `agent` policy."""
