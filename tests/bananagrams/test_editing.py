"""Building a board cell by cell: the rack is always the hand minus the board."""

from engines.bananagrams.editing import BoardEdit


def test_typing_places_from_the_rack_and_steps_on():
    edit = BoardEdit(hand=list("CATS"))
    assert edit.place("c") and edit.place("a") and edit.place("t")
    assert edit.cells == {(0, 0): "C", (1, 0): "A", (2, 0): "T"}
    assert edit.cursor == (3, 0) and edit.rack == "S"
    assert not edit.place("x")  # not in the rack
    edit.toggle_direction()
    edit.cursor = (2, 0)
    assert edit.place("t")  # typing over the same letter just steps on
    assert edit.cursor == (2, 1) and edit.rack == "S"


def test_typing_over_a_tile_swaps_it_back_to_the_rack():
    edit = BoardEdit(hand=list("CATS"))
    for letter in "cat":
        edit.place(letter)
    edit.cursor = (0, 0)
    assert edit.place("s")
    assert edit.cells[(0, 0)] == "S" and edit.rack == "C"


def test_backspace_returns_the_tile_before_the_cursor():
    edit = BoardEdit(hand=list("CAT"))
    for letter in "cat":
        edit.place(letter)
    assert edit.erase() == "T" and edit.cursor == (2, 0)
    assert edit.rack == "T"


def test_clear_word_keeps_crossing_tiles():
    edit = BoardEdit(
        hand=list("CATAR"), cells={(0, 0): "C", (1, 0): "A", (2, 0): "T", (2, 1): "A", (2, 2): "R"}
    )
    edit.cursor = (0, 0)
    assert sorted(edit.clear_word()) == ["A", "C"]
    assert edit.cells == {(2, 0): "T", (2, 1): "A", (2, 2): "R"}


def test_new_hand_lifts_tiles_no_longer_owned():
    edit = BoardEdit(hand=list("CATS"), cells={(0, 0): "C", (1, 0): "A", (2, 0): "T", (3, 0): "S"})
    edit.set_hand(list("CATXYZ"))  # S was dumped
    assert (3, 0) not in edit.cells and edit.rack == "XYZ"


def test_centre():
    assert BoardEdit().centre() == (0, 0)
    assert BoardEdit(cells={(0, 0): "A", (4, 2): "B"}).centre() == (2, 1)
