"""The Bananagrams engine: tiles, dictionary, board notations, the verifier and the game."""
