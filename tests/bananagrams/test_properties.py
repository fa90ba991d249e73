"""Property tests (hypothesis) for the board notations and the verifier.

- Boards grown from dictionary words, crossing one another without conflicts or accidental
  runs, verify valid with exactly the declared words, and complete against their own letters.
- `format_anchor` re-parses to the same grid, and finds a spec for every connected grid whose
  tiles all lie in runs of 2+, repeated words included.
- The verifier never raises on arbitrary text and gives the same result every time.
- A drawn grid (`render_rows`) re-parses to the same cells.

The grid logic used to build and check boards here is the test's own; only the functions under
test come from the engine.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engines.bananagrams.board import format_anchor, render_rows
from engines.bananagrams.dictionary import Dictionary, enable
from engines.bananagrams.issues import LEVELS
from engines.bananagrams.tiles import check_tiles
from engines.bananagrams.verifier import verify

Cell = tuple[int, int]
STEP = {"H": (1, 0), "V": (0, 1)}
ACROSS = {"H": "V", "V": "H"}

PROPERTY = settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
QUICK = settings(deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow])

# --- boards grown from words ---------------------------------------------------------------------


@dataclass(frozen=True)
class Placed:
    word: str
    x: int
    y: int
    direction: str

    def cells(self) -> list[Cell]:
        dx, dy = STEP[self.direction]
        return [(self.x + k * dx, self.y + k * dy) for k in range(len(self.word))]


@dataclass(frozen=True)
class SpecLine:
    word: str
    direction: str
    target: str | None = None
    target_index: int = 0
    word_index: int = 0


@dataclass
class BoardBuilder:
    """A board grown one crossing word at a time; `attach` refuses any word that would put two
    letters in one cell, run parallel along another word, or touch a tile side by side (so no
    accidental runs ever appear). Every declared word is then exactly one maximal run."""

    placed: list[Placed] = field(default_factory=list)
    lines: list[SpecLine] = field(default_factory=list)
    cells: dict[Cell, str] = field(default_factory=dict)
    covering: dict[Cell, set[str]] = field(default_factory=dict)  # cell -> directions through it

    @classmethod
    def start(cls, word: str, direction: str) -> BoardBuilder:
        builder = cls()
        builder._put(Placed(word, 0, 0, direction))
        builder.lines.append(SpecLine(word, direction))
        return builder

    def targets(self) -> list[int]:
        """Placements a new line may name: the latest placement of each word text."""
        latest = {p.word: index for index, p in enumerate(self.placed)}
        return sorted(latest.values())

    def attach(self, target: int, target_index: int, word: str, word_index: int) -> bool:
        on = self.placed[target]
        assert self.targets().count(target) == 1, "only the latest placement can be named"
        if on.word[target_index] != word[word_index]:
            return False
        direction = ACROSS[on.direction]
        dx, dy = STEP[direction]
        cx, cy = on.cells()[target_index]
        new = Placed(word, cx - word_index * dx, cy - word_index * dy, direction)
        cells = new.cells()
        before = (cells[0][0] - dx, cells[0][1] - dy)
        after = (cells[-1][0] + dx, cells[-1][1] + dy)
        if before in self.cells or after in self.cells:
            return False
        for (x, y), letter in zip(cells, word, strict=True):
            if (x, y) in self.cells:
                if self.cells[(x, y)] != letter or direction in self.covering[(x, y)]:
                    return False
            elif (x + dy, y + dx) in self.cells or (x - dy, y - dx) in self.cells:
                return False  # a new tile beside an old one would start an accidental run
        self._put(new)
        self.lines.append(SpecLine(word, direction, on.word, target_index, word_index))
        return True

    def _put(self, placed: Placed) -> None:
        self.placed.append(placed)
        for cell, letter in zip(placed.cells(), placed.word, strict=True):
            self.cells[cell] = letter
            self.covering.setdefault(cell, set()).add(placed.direction)

    def words(self) -> list[str]:
        return [p.word for p in self.placed]

    def spec(self) -> str:
        return "\n".join(anchor_line(line) for line in self.lines)


def anchor_line(line: SpecLine) -> str:
    if line.target is None:
        return f"{line.word} {line.direction}"
    return f"{line.word}[{line.word_index}] @ {line.target}[{line.target_index}] {line.direction}"


@cache
def words_with(letter: str) -> list[str]:
    return sorted(w for w in short_words() if letter in w)


@cache
def short_words() -> list[str]:
    return sorted(w for w in enable().words if len(w) <= 7)


def pick(draw, words: list[str]) -> str:
    # Not st.sampled_from: hypothesis labels that strategy by hashing every element, which
    # costs seconds over tens of thousands of words.
    return words[draw(st.integers(0, len(words) - 1))]


def grow(draw, builder: BoardBuilder, steps: int, pool, repeat_odds: int = 4) -> BoardBuilder:
    """Try `steps` crossings; a crossing that doesn't fit is skipped, so every draw is kept.
    About one word in `repeat_odds` repeats a word already on the board."""
    for _ in range(steps):
        target = draw(st.sampled_from(builder.targets()))
        on = builder.placed[target]
        target_index = draw(st.integers(0, len(on.word) - 1))
        letter = on.word[target_index]
        again = sorted({w for w in builder.words() if letter in w})
        if again and draw(st.integers(1, repeat_odds)) == 1:
            word = draw(st.sampled_from(again))  # repeated words on purpose
        else:
            word = pick(draw, pool(letter))
        word_index = draw(st.sampled_from([k for k, c in enumerate(word) if c == letter]))
        builder.attach(target, target_index, word, word_index)
    return builder


@st.composite
def word_boards(draw, max_steps: int = 40) -> BoardBuilder:
    """A connected board of ENABLE words (lengths 2-7), repeated words included."""
    builder = BoardBuilder.start(pick(draw, short_words()), draw(st.sampled_from("HV")))
    return grow(draw, builder, draw(st.integers(0, max_steps)), words_with)


def tiny_words(letter: str) -> list[str]:
    """All words of 2-4 letters over A and B: boards made of them repeat words all the time."""
    words = [""]
    for _ in range(4):
        words = [w + c for w in words for c in "AB"] + words
    return sorted({w for w in words if len(w) >= 2 and letter in w})


TINY_DICTIONARY = Dictionary(frozenset(tiny_words("A") + tiny_words("B")), "AB-words")


@st.composite
def tiny_boards(draw) -> BoardBuilder:
    builder = BoardBuilder.start(
        draw(st.sampled_from(tiny_words("A"))), draw(st.sampled_from("HV"))
    )
    return grow(draw, builder, draw(st.integers(0, 30)), tiny_words, repeat_odds=2)


@st.composite
def spec_text(draw, builder: BoardBuilder) -> str:
    """The builder's lines as a player might write them: anchor or legacy lines, any case,
    spacing, leading zeros, indentation, blank lines, CRLF, inside <board> tags or not."""
    rows = []
    for line in builder.lines:
        space = draw(st.sampled_from([" ", "  ", "\t"]))
        if line.target is None:
            row = f"{line.word}{space}{line.direction}"
        else:
            zeros_i, zeros_j = (
                draw(st.sampled_from(["", "0", "00"])),
                draw(st.sampled_from(["", "0"])),
            )
            i, j = f"{zeros_i}{line.target_index}", f"{zeros_j}{line.word_index}"
            if draw(st.integers(0, 4)) == 0:
                row = f"{line.word}{space}{line.target}{space}{i}{space}{j}{space}{line.direction}"
            else:
                at = draw(st.sampled_from(["@", " @ ", "@ ", " @", "\t@\t"]))
                row = f"{line.word}[{j}]{at}{line.target}[{i}]{space}{line.direction}"
        if draw(st.booleans()):
            row = row.lower() if draw(st.booleans()) else row.swapcase()
        rows.append(draw(st.sampled_from(["", " ", "    ", "\t"])) + row)
        if draw(st.integers(0, 5)) == 0:
            rows.append(draw(st.sampled_from(["", "   ", "\t"])))
    text = draw(st.sampled_from(["\n", "\r\n"])).join(rows)
    wrapper = draw(
        st.sampled_from(
            [
                "{}",
                "<board>\n{}\n</board>",
                "<game_plan>CAT H is a plan</game_plan>\n<action>NONE</action>\n<board>{}</board>",
                "<BOARD>{}",
            ]
        )
    )
    return wrapper.format(text)


def shifted(cells: dict[Cell, str]) -> dict[Cell, str]:
    """The same grid moved so its top-left corner of the bounding box is (0, 0)."""
    min_x = min(x for x, _ in cells)
    min_y = min(y for _, y in cells)
    return {(x - min_x, y - min_y): letter for (x, y), letter in cells.items()}


# --- (a) grown boards are valid ------------------------------------------------------------------


@PROPERTY
@given(data=st.data())
def test_boards_grown_from_words_are_valid_and_complete(data):
    builder = data.draw(word_boards())
    text = data.draw(spec_text(builder))
    result = verify(text)
    assert result.notation == "anchor"
    assert result.errors == [] and result.warnings == [], text
    assert result.valid
    assert result.cells == builder.cells
    assert sorted(result.words) == sorted(builder.words())
    assert result.tiles_used == len(builder.cells)

    letters = "".join(builder.cells.values())
    shuffled = "".join(data.draw(st.permutations(letters)))
    with_hand = verify(text, hand=shuffled.lower())
    assert with_hand.complete and with_hand.errors == [] and with_hand.warnings == []
    # One tile more in hand: still valid, not complete, a TILES_UNUSED warning.
    spare = verify(text, hand=letters + "Q")
    assert spare.valid and not spare.complete
    assert [w.code for w in spare.warnings] == ["TILES_UNUSED"]
    # One tile fewer: the board uses a tile the player doesn't have.
    short = verify(text, hand=letters[1:])
    assert not short.valid and [e.code for e in short.errors] == ["TILES_NOT_IN_HAND"]


@PROPERTY
@given(builder=tiny_boards())
def test_boards_of_repeated_words_are_valid(builder):
    result = verify(builder.spec(), dictionary=TINY_DICTIONARY)
    assert result.errors == [] and result.warnings == [], builder.spec()
    assert result.cells == builder.cells
    assert sorted(result.words) == sorted(builder.words())


# --- (b) format_anchor round trip ----------------------------------------------------------------


def own_runs(cells: dict[Cell, str]) -> list[str]:
    runs = []
    for x, y in cells:
        for dx, dy in STEP.values():
            if (x - dx, y - dy) in cells or (x + dx, y + dy) not in cells:
                continue
            word, cx, cy = "", x, y
            while (cx, cy) in cells:
                word, cx, cy = word + cells[(cx, cy)], cx + dx, cy + dy
            runs.append(word)
    return sorted(runs)


def is_connected(cells: dict[Cell, str]) -> bool:
    start = next(iter(cells))
    seen, frontier = {start}, [start]
    while frontier:
        x, y = frontier.pop()
        for near in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if near in cells and near not in seen:
                seen.add(near)
                frontier.append(near)
    return len(seen) == len(cells)


def every_tile_in_a_run(cells: dict[Cell, str]) -> bool:
    return all(
        any(near in cells for near in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)))
        for x, y in cells
    )


def assert_anchor_rebuilds(cells: dict[Cell, str], spec: str) -> None:
    """`spec` rebuilds exactly `cells` (anchor notation puts its root at (0, 0), so compare up
    to a shift) and declares every run: with the grid's own runs as the dictionary it is valid
    without a single warning."""
    runs = own_runs(cells)
    result = verify(spec, dictionary=Dictionary(frozenset(runs), "the grid's runs"))
    assert result.notation == "anchor"
    assert shifted(result.cells) == shifted(cells), spec
    assert result.errors == [] and result.warnings == [], spec
    assert sorted(result.words) == runs


@PROPERTY
@given(builder=st.one_of(word_boards(), tiny_boards()))
def test_format_anchor_rebuilds_grown_boards(builder):
    spec = format_anchor(builder.cells)
    assert spec is not None
    assert_anchor_rebuilds(builder.cells, spec)


@st.composite
def blobs(draw, letters: str = "AB", max_size: int = 24) -> dict[Cell, str]:
    """A connected set of tiles grown at random, each a letter of `letters`."""
    cells: dict[Cell, str] = {(0, 0): draw(st.sampled_from(letters))}
    for _ in range(draw(st.integers(1, max_size))):
        x, y = draw(st.sampled_from(sorted(cells)))
        dx, dy = draw(st.sampled_from([(1, 0), (-1, 0), (0, 1), (0, -1)]))
        cells.setdefault((x + dx, y + dy), draw(st.sampled_from(letters)))
    return cells


drawn_grids = st.dictionaries(
    st.tuples(st.integers(0, 5), st.integers(0, 5)), st.sampled_from("AB"), min_size=1, max_size=24
)


def grid_of(*rows: str) -> dict[Cell, str]:
    return {(x, y): c for y, row in enumerate(rows) for x, c in enumerate(row) if c != "."}


# Three copies of a word hanging off a fourth copy: no order of plain lines rebuilds it (each
# copy placed shadows the one before), so the spec must declare a word again.
COMB = grid_of("AAAAA", "A.A.A", "A.A.A", "A.A.A", "A.A.A")
BANANA_COMB = grid_of(".B.B.B", "BANANA", ".N.N.N", ".A.A.A", ".N.N.N", ".A.A.A")
# Found by hypothesis: plain lines work, but only in the right order (AA[1] before AABB[0]).
TWO_OF_EACH = grid_of("...AA", "..AA.", "...B.", "BAAB.", "A.A..", "A.B..", "B.B..")


@PROPERTY
@example(cells=COMB)
@example(cells=BANANA_COMB)
@example(cells=TWO_OF_EACH)
@example(cells={(0, 0): "A", (1, 0): "A", (0, 1): "A", (1, 1): "A"})
@given(cells=st.one_of(drawn_grids, blobs(), blobs(letters="A", max_size=40)))
def test_format_anchor_of_any_grid(cells):
    spec = format_anchor(cells)
    if is_connected(cells) and every_tile_in_a_run(cells):
        assert spec is not None, render_rows(cells)
    if spec is not None:
        assert_anchor_rebuilds(cells, spec)


def test_banana_comb_is_a_real_valid_board():
    # Four BANANAs, three of them hanging off the first: a board a player can really build.
    spec = format_anchor(BANANA_COMB)
    assert spec is not None
    result = verify(spec)
    assert result.valid and result.warnings == []
    assert result.words == ["BANANA"] * 4


# --- (c) arbitrary text ---------------------------------------------------------------------------

NASTY = [
    "\x00", "\r\n", "\r", "\n", "\t", " ", "  ", "\x0b", "\x0c", "\x85", "\u2028", "\ufeff",
    "É", "é", "ß", "ſ", "\u212a", "ı", "İ", "ﬁ", "Ａ", "٣", "²",
    "[", "]", "@", ".", "<board>", "</board>", "<BOARD>", "</Board>", "<board",
    "0", "7", "00", "99999999999", "9" * 40, "H", "V", "h", "v",
    "CAT", "cat", "TAR", "A", "QI", "AA", "[0]", "[1]", "[2]", " @ ", "CAT H", "TAR[1] @ CAT[1] V",
    "WORLD HELLO 4 0 V", "CAT\n..A\n..R", "...",
]  # fmt: skip


@st.composite
def mutated_boards(draw) -> str:
    """A valid board's text with a few characters inserted, deleted or replaced."""
    text = draw(spec_text(draw(word_boards(max_steps=6))))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        piece = draw(st.one_of(st.sampled_from(NASTY), st.characters(), st.just("")))
        cut = draw(st.integers(0, 2))
        text = text[:at] + piece + text[at + cut :]
    return text


hostile_text = st.one_of(
    st.text(),
    st.text(alphabet=st.sampled_from("CATRH V[]@0123.\n\r\t\x00Éßſ\u212a")),
    st.lists(st.one_of(st.sampled_from(NASTY), st.text(max_size=4)), max_size=30).map("".join),
    mutated_boards(),
)


def check_result_invariants(text: str, result) -> None:
    data = result.to_dict()
    json.dumps(data)  # serialisable as is
    assert result.valid == (result.errors == [])
    assert all(not e.is_warning for e in result.errors)
    assert all(w.is_warning for w in result.warnings)
    levels = [e.level for e in result.errors]
    assert levels == sorted(levels)
    line_count = max(1, len(text.splitlines()))
    for issue in data["errors"] + data["warnings"]:
        assert set(issue) == {"code", "message", "word", "line", "level"}
        assert LEVELS[issue["code"]] == issue["level"]
        assert issue["line"] is None or 1 <= issue["line"] <= line_count
        assert len(issue["message"]) < 1_000
    # Only A-Z letters reach the grid, whatever the text held.
    assert all(len(v) == 1 and "A" <= v <= "Z" for v in result.cells.values())
    assert all(len(word) >= 2 and word.isascii() and word.isalpha() for word in result.words)
    assert result.grid == render_rows(result.cells)
    assert result.tiles_used == len(result.cells) == sum(result.letters_used.values())
    shown_errors = [line for line in result.feedback if not line.startswith("Warning ")]
    assert len(shown_errors) <= 5
    assert len(result.feedback) - len(shown_errors) == len(result.warnings)


@PROPERTY
@example(text="CAT H\n" + "CAT[0] @ CAT[0] V\n" * 3 + "TAR[9" + "9" * 5000 + "] @ CAT[0] V")
@example(text="<board></board>CAT H")
@example(text="STRAßE H\nſ[0] @ STRAßE[0] V")
@example(text="CAT\x00 H")
@given(text=hostile_text)
def test_verifier_never_raises_and_is_deterministic(text):
    first = verify(text)
    second = verify(text)
    assert first.to_dict() == second.to_dict()
    check_result_invariants(text, first)


@QUICK
@given(
    text=hostile_text, hand=st.text(alphabet=st.sampled_from("aBcZ1 ßſıﬁ\u212aÉ\x00-"), max_size=6)
)
def test_a_hand_is_ascii_letters_or_refused(text, hand):
    # 'ß'.upper() is 'SS' and 'ſ'.upper() is 'S': such a hand must be refused, not reinterpreted.
    if hand.isascii() and (hand.isalpha() or hand == ""):
        result = verify(text, hand=hand)
        check_result_invariants(text, result)
        assert result.hand == hand.upper()
    else:
        try:
            verify(text, hand=hand)
        except ValueError:
            pass
        else:
            raise AssertionError(f"hand {hand!r} was accepted")


@QUICK
@given(letters=st.text(alphabet=st.sampled_from("AEQzß1 ſıﬁ\u212a"), max_size=5))
def test_check_tiles_accepts_only_ascii_letters(letters):
    problem = check_tiles(letters)
    if letters.isascii() and (letters.isalpha() or letters == ""):
        assert problem is None or "letters A-Z" not in problem  # e.g. too many Q
    else:
        assert problem is not None and "letters A-Z" in problem


# --- (d) drawn grids ------------------------------------------------------------------------------


@st.composite
def drawn_text(draw, cells: dict[Cell, str]) -> str:
    """render_rows as a player might paste it: any case, a common indent, blank lines, CRLF,
    inside <board> tags or not."""
    rows = render_rows(cells)
    indent = draw(st.sampled_from(["", " ", "   "]))
    lines = []
    for row in rows:
        if draw(st.booleans()):
            row = row.lower()
        lines.append(indent + row + draw(st.sampled_from(["", " ", "  "])))
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", "  "])))
    text = draw(st.sampled_from(["\n", "\r\n"])).join(lines)
    return draw(st.sampled_from(["{}", "<board>\n{}\n</board>"])).format(text)


grid_cells = st.one_of(
    st.dictionaries(
        st.tuples(st.integers(-3, 6), st.integers(-3, 6)),
        st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
        min_size=1,
        max_size=30,
    ),
    blobs(letters="CATRES"),
    word_boards(max_steps=6).map(lambda builder: builder.cells),
)


@PROPERTY
@given(data=st.data(), cells=grid_cells)
def test_drawn_grid_round_trip(data, cells):
    rows = render_rows(cells)
    text = data.draw(drawn_text(cells))
    result = verify(text)
    if len(rows) == 1 and "." not in rows[0]:
        # A lone bare word is read as a root line missing its direction ('CAT'), by design.
        assert [e.code for e in result.errors] == ["INVALID_ROOT"]
        return
    assert result.notation == "grid"
    assert result.cells == shifted(cells)
    assert result.grid == rows
    assert sorted(result.words) == own_runs(cells)
    assert any(e.code == "DISCONNECTED" for e in result.errors) != is_connected(cells)
    # The same cells handed over directly (as the UI does) give the same verdict; only the
    # line numbers differ (UI cells have no lines). Messages name rows and columns by the
    # cells' coordinates, so hand the cells over with the text's origin.
    assert without_lines(verify(shifted(cells)).to_dict()) == without_lines(result.to_dict())


def without_lines(data: dict) -> dict:
    data = {**data, "feedback": None}
    for key in ("errors", "warnings"):
        data[key] = [{**issue, "line": None} for issue in data[key]]
    return data


def test_the_builder_refuses_tiles_side_by_side():
    # The builder is what makes the boards above valid; check it against the verifier once.
    builder = BoardBuilder.start("CAT", "H")
    assert builder.attach(0, 2, "TAR", 0)  # TAR down from CAT's T
    assert not builder.attach(0, 0, "TAR", 1)  # CAT[0] is C, TAR[1] is A
    assert not builder.attach(1, 1, "TA", 1)  # TA across row 1 would put T under CAT's A
    side_by_side = builder.spec() + "\nTA[1] @ TAR[1] H"
    assert [w.code for w in verify(side_by_side).warnings] == ["ACCIDENTAL_VALID"]  # AT
    assert builder.attach(1, 1, "AT", 0)  # AT across row 1, right of TAR: touches nothing
    result = verify(builder.spec(), hand="CATARt")
    assert result.complete and result.warnings == []
    assert result.cells == builder.cells
