"""Parsing the three notations, formatting back to anchor, and word lists."""

import gzip

import pytest

from engines.bananagrams.board import format_anchor, parse_board, render_rows
from engines.bananagrams.dictionary import Dictionary, DictionaryError, enable, load_dictionary
from engines.bananagrams.verifier import verify


def test_drawn_grid_with_dots_spaces_and_indentation():
    parsed = parse_board("   CAT\n     A\n     R\n")
    assert parsed.notation == "grid"
    assert parsed.cells == {(0, 0): "C", (1, 0): "A", (2, 0): "T", (2, 1): "A", (2, 2): "R"}
    assert parse_board("cat\n..a\n..r").cells == parsed.cells


def test_a_lone_word_is_a_broken_root_not_a_grid():
    assert parse_board("CAT").notation == "anchor"
    assert parse_board("CAT.").notation == "grid"


def test_crlf_and_tabs():
    assert verify("CAT H\r\nTAR[0] @ CAT[2] V\r\n").valid
    assert verify("CAT\tH\nTAR[0]\t@\tCAT[2]\tV").valid


def test_unclosed_board_tag_runs_to_the_end():
    assert verify("<action>NONE</action><board>\nCAT H\n").valid


def test_non_ascii_is_not_a_letter():
    # 'ß'.upper() is 'SS' and the Kelvin sign folds to K: neither may sneak in.
    assert verify("STRAßE H").errors[0].code == "INVALID_ROOT"
    assert verify("\u212aA H").errors[0].code == "INVALID_ROOT"


def test_format_anchor_round_trip_with_repeated_words():
    text = "CAT H\nCAT[0] @ CAT[0] V\nTAR[0] @ CAT[2] H\nTAR[0] @ CAT[2] V"
    cells = verify(text).cells
    spec = format_anchor(cells)
    assert spec is not None
    again = verify(spec)
    assert again.cells == cells
    assert not again.warnings  # every run declared


def test_format_anchor_of_a_person_built_grid():
    cells = verify("CAT\n..A\n..R").cells
    assert format_anchor(cells) == "CAT H\nTAR[0] @ CAT[2] V"


def test_no_anchor_spec_for_disconnected_or_lone_tiles():
    assert format_anchor(verify("CAT.\n....\nDOG.").cells) is None
    assert format_anchor({(0, 0): "A"}) is None
    assert format_anchor({}) is None


def test_render_rows_crops_to_the_bounding_box():
    assert render_rows({(-2, -1): "A", (0, 1): "B"}) == ["A..", "...", "..B"]


def test_enable_is_loaded_once_and_complete():
    assert enable() is enable()
    assert len(enable()) == 172_823
    assert "AA" in enable() and "QI" not in enable()


def test_word_list_from_file(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("Qi\nZA\n\nok\nx\n")
    words = load_dictionary(path)
    assert words.words == frozenset({"QI", "ZA", "OK"})
    gz = tmp_path / "words.txt.gz"
    gz.write_bytes(gzip.compress(b"cat\ndog\n"))
    assert "DOG" in Dictionary.from_file(gz)


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "not found"), ("", "has no words"), ("\n\n  \n", "has no words")],
)
def test_bad_word_lists(tmp_path, content, message):
    path = tmp_path / "words.txt"
    if content is not None:
        path.write_text(content)
    with pytest.raises(DictionaryError, match=message):
        load_dictionary(path)
    with pytest.raises(DictionaryError, match="folder"):
        load_dictionary(tmp_path)
