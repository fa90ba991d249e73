"""Every error code, level and cascade rule of the spec, and the Banana-Bench bugs we must not copy."""

import pytest

from engines.bananagrams.dictionary import Dictionary
from engines.bananagrams.issues import LEVELS, Issue
from engines.bananagrams.verifier import feedback, verify


def codes(result):
    return [issue.code for issue in result.errors]


def warning_codes(result):
    return [issue.code for issue in result.warnings]


SPEC_EXAMPLE = "SCURRIES H\nNINES[4] @ SCURRIES[0] V\nRUNES[2] @ NINES[0] H"


def test_spec_example_is_valid():
    result = verify(SPEC_EXAMPLE)
    assert result.valid
    assert result.errors == [] and result.warnings == []
    assert result.grid == ["RUNES.....", "..I.......", "..N.......", "..E.......", "..SCURRIES"]
    assert result.words == ["RUNES", "NINES", "SCURRIES"]
    assert result.tiles_used == 16
    assert result.letters_used == {"C": 1, "E": 3, "I": 2, "N": 2, "R": 3, "S": 3, "U": 2}


def test_board_tags_case_and_indentation():
    text = "Plan first.\n<BOARD>\n   cat h\n\n   tar[0] @ cat[2] v\n</board>\n<board>DOG H</board>"
    result = verify(text)
    assert result.valid
    assert result.words == ["CAT", "TAR"]
    assert result.grid == ["CAT", "..A", "..R"]


def test_grammar_is_banana_bench_strict():
    assert codes(verify("CAT H\nTAR [1] @ CAT[1] V")) == ["INVALID_LINE"]  # space before [
    assert codes(verify("CATH")) == ["INVALID_ROOT"]  # no space before DIR
    assert verify("CAT H\nTAR[1]@CAT[1] V").valid
    assert verify("CAT H\nTAR[01] @ CAT[001] V").valid


def test_empty_board():
    for text in ("", "   \n\n", "<board>\n</board>"):
        result = verify(text)
        assert codes(result) == ["EMPTY_BOARD"]
        assert result.errors[0].level == 0


def test_invalid_root_stops_parsing():
    result = verify("CAT\nTAR[1] @ CAT[1] V")
    assert codes(result) == ["INVALID_ROOT"]
    issue = result.errors[0]
    assert issue.line == 1 and issue.level == 0
    assert issue.message == (
        "Invalid root line format: 'CAT'. Expected: 'WORD H' or 'WORD V'. Example: 'CAT H'"
    )
    assert result.tiles_used == 0


def test_invalid_line_is_skipped_and_the_rest_parsed():
    result = verify("CAT H\nthis is not a line\nTAR[0] @ CAT[2] V")
    assert codes(result) == ["INVALID_LINE"]
    assert result.errors[0].line == 2
    assert result.words == ["CAT", "TAR"]  # line 3 still placed


def test_target_not_found():
    result = verify("CAT H\nTAR[1] @ DOG[1] V")
    assert codes(result) == ["TARGET_NOT_FOUND"]
    assert result.errors[0].line == 2 and result.errors[0].word == "TAR"


def test_target_must_be_on_an_earlier_line():
    result = verify("CAT H\nARC[0] @ TAR[1] H\nTAR[1] @ CAT[1] V")
    assert codes(result) == ["TARGET_NOT_FOUND"]
    assert result.errors[0].line == 2


def test_target_index_out_of_bounds_at_length():
    result = verify("CAT H\nTAR[1] @ CAT[3] V")
    assert codes(result) == ["TARGET_INDEX_OOB"]


def test_word_index_out_of_bounds():
    result = verify("CAT H\nTAR[3] @ CAT[1] V")
    assert codes(result) == ["WORD_INDEX_OOB"]


def test_structure_check_order_and_unplaced_lines_are_not_targets():
    # Both indices are out of range: TARGET_INDEX_OOB is reported first and alone.
    result = verify("CAT H\nTAR[9] @ CAT[9] V\nARE[0] @ TAR[1] H")
    assert codes(result) == ["TARGET_INDEX_OOB", "TARGET_NOT_FOUND"]
    assert result.words == ["CAT"]  # nothing drawn off-target
    assert result.tiles_used == 3


def test_letter_mismatch_has_a_tip_and_the_word_is_still_placed():
    result = verify("CAT H\nTAR[0] @ CAT[1] V")
    assert "LETTER_MISMATCH" in codes(result)
    mismatch = next(e for e in result.errors if e.code == "LETTER_MISMATCH")
    assert "TIP:" in mismatch.message
    assert "TAR[1]" in mismatch.message  # says which letter of TAR is the A
    assert "GRID_CONFLICT" in codes(result)  # still placed, so its crossing conflicts


def test_same_direction_and_mismatch_may_both_fire():
    result = verify("CAT H\nDOG[0] @ CAT[1] H")
    assert {"LETTER_MISMATCH", "SAME_DIRECTION"} <= set(codes(result))
    assert codes(result)[:2] == ["LETTER_MISMATCH", "SAME_DIRECTION"]


def test_grid_conflict_one_error_per_cell_and_the_first_letter_stays():
    # CAR down from C and TAR down from T; RAT along the bottom puts T where TAR has R.
    result = verify("CAT H\nCAR[0] @ CAT[0] V\nTAR[0] @ CAT[2] V\nRAT[0] @ CAR[2] H")
    assert codes(result)[0] == "GRID_CONFLICT"
    conflicts = [e for e in result.errors if e.code == "GRID_CONFLICT"]
    assert len(conflicts) == 1
    assert result.cells[(2, 2)] == "R"
    assert conflicts[0].line == 4 and conflicts[0].word == "RAT"
    assert "TAR (line 3)" in conflicts[0].message


def test_disconnected_drawn_grid():
    result = verify("CAT.\n....\n.DOG")
    assert codes(result) == ["DISCONNECTED"]
    assert result.errors[0].level == 2


def test_ui_cells_are_verified_like_a_drawn_grid():
    cells = {(0, 0): "c", (1, 0): "a", (2, 0): "t", (2, 1): "a", (2, 2): "r"}
    result = verify(cells, hand="CATAR")
    assert result.valid and result.complete
    assert result.words == ["CAT", "TAR"]


def test_invalid_declared_word_and_single_letters():
    assert codes(verify("CAT H\nQAT[1] @ CAT[1] V")) == []
    result = verify("CAT H\nZXA[2] @ CAT[1] V")
    assert codes(result) == ["INVALID_WORD"]
    assert result.errors[0].line == 2 and result.errors[0].word == "ZXA"
    unplaced = verify("CAT H\nZXA[2] @ DOG[1] V")  # unplaced lines are still checked
    assert codes(unplaced) == ["TARGET_NOT_FOUND", "INVALID_WORD"]
    assert verify("A H").errors[0].code == "INVALID_WORD"
    assert "single letter" in verify("A H").errors[0].message


def test_invalid_word_root_included_and_enable_gaps_explained():
    result = verify("QI H")
    assert codes(result) == ["INVALID_WORD"]
    assert "lacks QI, ZA and OK" in result.errors[0].message


def test_invalid_word_in_drawn_grid_runs():
    result = verify("CAT\n..X\n..Q")
    assert codes(result) == ["INVALID_WORD"]
    assert result.errors[0].word == "TXQ"


def test_accidental_invalid_and_valid():
    # TAR down from CAT's T, and ART down from... build a side-by-side touch.
    result = verify("CAT H\nAT[0] @ CAT[1] V\nTO[0] @ CAT[2] V")
    # Columns 1 and 2 under CAT: A/T and T/O; row 1 reads "TO" across: an undeclared run.
    assert warning_codes(result) == ["ACCIDENTAL_VALID"] or "ACCIDENTAL_INVALID" in codes(result)
    bad = verify("CAT H\nAX[0] @ CAT[1] V\nTO[0] @ CAT[2] V")
    assert "ACCIDENTAL_INVALID" in codes(bad)
    good = verify("CAT H\nAT[0] @ CAT[1] V\nTO[0] @ CAT[2] V")
    accidental = [w for w in good.warnings if w.code == "ACCIDENTAL_VALID"]
    assert [w.word for w in accidental] == ["TO"]
    assert good.valid  # warnings never invalidate
    assert accidental[0].line == 3


def test_tiles_not_in_hand_and_unused():
    result = verify("CAT H", hand="CTXY")
    assert codes(result) == ["TILES_NOT_IN_HAND"]
    assert "{'A': 1}" in result.errors[0].message
    assert warning_codes(result) == ["TILES_UNUSED"]
    assert "{'X': 1, 'Y': 1}" in result.warnings[0].message
    assert not result.complete


def test_complete_needs_every_tile():
    assert verify("CAT H", hand="act").complete
    assert not verify("CAT H", hand="acts").complete
    assert not verify("CAT H").complete  # no hand, nothing to complete


def test_levels_match_the_spec_table():
    assert LEVELS["EMPTY_BOARD"] == LEVELS["INVALID_ROOT"] == LEVELS["INVALID_LINE"] == 0
    for code in (
        "TARGET_NOT_FOUND",
        "TARGET_INDEX_OOB",
        "WORD_INDEX_OOB",
        "LETTER_MISMATCH",
        "SAME_DIRECTION",
    ):
        assert LEVELS[code] == 1
    assert LEVELS["GRID_CONFLICT"] == LEVELS["DISCONNECTED"] == 2
    assert LEVELS["INVALID_WORD"] == LEVELS["ACCIDENTAL_INVALID"] == LEVELS["ACCIDENTAL_VALID"] == 3
    assert LEVELS["TILES_NOT_IN_HAND"] == LEVELS["TILES_UNUSED"] == 4


def test_custom_dictionary():
    words = Dictionary.from_text("qi\nza\n", "mine")
    assert verify("QI H", dictionary=words).valid
    result = verify("CAT H", dictionary=words)
    assert codes(result) == ["INVALID_WORD"]
    assert "mine" in result.errors[0].message


def test_hand_must_be_letters():
    with pytest.raises(ValueError):
        verify("CAT H", hand="C4T")


# --- Banana-Bench bugs ------------------------------------------------------------------------


def test_repeated_word_does_not_erase_the_earlier_placement():
    result = verify("CAT H\nCAT[0] @ CAT[0] V", hand="CAT")
    assert result.tiles_used == 5
    assert codes(result) == ["TILES_NOT_IN_HAND"]  # Banana-Bench passed this with 3 tiles


def test_target_naming_a_repeated_word_means_its_latest_placement():
    text = "CAT H\nCAT[0] @ CAT[0] V\nTAR[0] @ CAT[2] H"
    result = verify(text)
    # The latest CAT runs down from (0,0): its T is at (0,2), so TAR starts there.
    assert result.cells[(1, 2)] == "A" and result.cells[(2, 2)] == "R"
    assert (3, 0) not in result.cells


def test_conflict_keeps_the_first_letter():
    result = verify("CAT H\nDOG[0] @ CAT[0] V")
    assert result.cells[(0, 0)] == "C"


def test_out_of_range_words_are_not_drawn():
    result = verify("CAT H\nDOGS[7] @ CAT[1] V")
    assert result.tiles_used == 3
    assert result.grid == ["CAT"]


def test_accidental_words_in_grid_order_deterministic():
    text = "CAT H\nAT[0] @ CAT[1] V\nTO[0] @ CAT[2] V\nCOT[0] @ CAT[0] V"
    first = verify(text)
    for _ in range(5):
        assert verify(text).to_dict() == first.to_dict()
    accidental = [i.word for i in first.errors + first.warnings if i.code.startswith("ACCIDENTAL")]
    assert accidental == sorted(accidental, key=lambda w: first.words.index(w))


def test_legacy_notation_line_by_line():
    # `WORLD HELLO 4 0 V` means WORLD[0] @ HELLO[4] V.
    mismatch = verify("HELLO H\nWORLD HELLO 4 0 V")
    assert codes(mismatch)[0] == "LETTER_MISMATCH"
    assert "WORLD[0] @ HELLO[4]" in mismatch.errors[0].message
    result = verify("HELLO H\nOWL HELLO 4 0 V")
    assert result.valid
    assert result.cells[(4, 1)] == "W" and result.cells[(4, 2)] == "L"
    mixed = verify("HELLO H\nOWL HELLO 4 0 V\nLAW[0] @ OWL[2] H")
    assert mixed.valid and mixed.words == ["HELLO", "OWL", "LAW"]


# --- the feedback cascade -----------------------------------------------------------------------


def issue(code, n=1):
    return Issue(code, f"{code} message {n}", line=n)


def test_cascade_level_zero_shows_only_level_zero():
    errors = [issue("INVALID_LINE"), issue("TARGET_NOT_FOUND"), issue("INVALID_WORD")]
    assert feedback(errors, []) == ["Error INVALID_LINE (line 1): INVALID_LINE message 1"]


def test_cascade_level_one_shows_structure_then_invalid_words_then_tiles():
    errors = [
        issue("TARGET_NOT_FOUND", 1),
        issue("GRID_CONFLICT", 2),
        issue("INVALID_WORD", 3),
        issue("ACCIDENTAL_INVALID", 4),
        issue("TILES_NOT_IN_HAND", 5),
    ]
    shown = feedback(errors, [])
    assert [line.split()[1] for line in shown] == [
        "TARGET_NOT_FOUND",
        "INVALID_WORD",
        "TILES_NOT_IN_HAND",
    ]


def test_cascade_level_two_shows_two_three_four():
    errors = [
        issue("GRID_CONFLICT"),
        issue("ACCIDENTAL_INVALID"),
        issue("INVALID_WORD"),
        issue("TILES_NOT_IN_HAND"),
    ]
    shown = feedback(errors, [])
    assert [line.split()[1] for line in shown] == [
        "GRID_CONFLICT", "ACCIDENTAL_INVALID", "INVALID_WORD", "TILES_NOT_IN_HAND",
    ]  # fmt: skip


def test_cascade_caps_at_five_with_a_summary():
    six = [issue("INVALID_WORD", n) for n in range(1, 7)]
    shown = feedback(six, [])
    assert len(shown) == 5
    assert shown[-1] == "... and 2 more similar errors. Fix the above first."
    five = [issue("INVALID_WORD", n) for n in range(1, 6)]
    assert len(feedback(five, [])) == 5
    assert not any(line.startswith("...") for line in feedback(five, []))


def test_warnings_always_shown_unfiltered():
    errors = [issue("INVALID_ROOT")]
    warnings = [issue("ACCIDENTAL_VALID", n) for n in range(1, 8)]
    shown = feedback(errors, warnings)
    assert len(shown) == 1 + 7
    assert all(line.startswith("Warning ACCIDENTAL_VALID") for line in shown[1:])


def test_result_feedback_uses_the_cascade():
    # CXX runs down from CAT's C; DUO crosses CXX's second X with a mismatch and a conflict.
    text = "CAT H\nTAR[1] @ DOG[1] V\nCXX[0] @ CAT[0] V\nDUO[0] @ CXX[2] H"
    result = verify(text, hand="CATXY")
    shown = [line.split()[1].rstrip(":") for line in result.feedback]
    assert shown == [
        "TARGET_NOT_FOUND", "LETTER_MISMATCH", "INVALID_WORD", "TILES_NOT_IN_HAND", "TILES_UNUSED",
    ]  # fmt: skip
    # The stored result keeps everything, including what the cascade hid.
    assert "GRID_CONFLICT" in codes(result)
