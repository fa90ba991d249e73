"""Board notations (anchor, legacy, drawn grid), grids of cells, and formatting back to anchor.

A grid is a `dict[Cell, str]` mapping (x, y) to an upper-case letter; x grows right, y grows
down, and the root word's first letter sits at (0, 0).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from engines.bananagrams.issues import Issue, shorten

Cell = tuple[int, int]
Grid = dict[Cell, str]
STEP: dict[str, Cell] = {"H": (1, 0), "V": (0, 1)}

# Limits that keep the verifier fast on hostile input; a real board has at most 144 tiles.
MAX_BOARD_CHARS = 1_000_000
MAX_BOARD_LINES = 5_000
# Letters in the declared words (a full board declares fewer than 300) or on a drawn grid. This
# bounds the work per cell (conflicts, runs, groups) and the bounding box of anchor notation.
MAX_BOARD_LETTERS = 2_000
# Cells in a drawn grid's bounding box, which the rendered grid fills with '.'.
MAX_GRID_AREA = 1_000_000

_FLAGS = re.IGNORECASE | re.ASCII
ROOT_RE = re.compile(r"^([A-Z]+)\s+([HV])$", _FLAGS)
ANCHOR_RE = re.compile(r"^([A-Z]+)\[(\d+)\]\s*@\s*([A-Z]+)\[(\d+)\]\s+([HV])$", _FLAGS)
LEGACY_RE = re.compile(r"^([A-Z]+)\s+([A-Z]+)\s+(\d+)\s+(\d+)\s+([HV])$", _FLAGS)
GRID_ROW_RE = re.compile(r"^[A-Z. ]+$", _FLAGS)
BOARD_TAG_RE = re.compile(r"<board>(.*?)(?:</board>|$)", re.IGNORECASE | re.DOTALL)

ROOT_HELP = "Expected: 'WORD H' or 'WORD V'. Example: 'CAT H'"
LINE_HELP = (
    "Expected: 'WORD[j] @ TARGET[i] H' or 'WORD[j] @ TARGET[i] V' (letter j of WORD sits on "
    "letter i of TARGET). Example: 'TAR[1] @ CAT[1] V'"
)


@dataclass(frozen=True)
class Line:
    """One declared word of anchor or legacy notation. The root has no target."""

    number: int
    word: str
    direction: str
    target: str | None = None
    target_index: int = 0
    word_index: int = 0

    @property
    def is_root(self) -> bool:
        return self.target is None


@dataclass
class ParsedBoard:
    """What the text said: declared lines (anchor/legacy) or cells (drawn grid), plus level-0
    problems. `notation` is 'anchor', 'grid' or 'empty'."""

    notation: str
    lines: list[Line] = field(default_factory=list)
    cells: Grid = field(default_factory=dict)
    row_lines: dict[int, int] = field(default_factory=dict)  # grid row y -> line number
    problems: list[Issue] = field(default_factory=list)


def extract_board_text(text: str) -> str:
    """The first `<board>...</board>` block if there is one (an unclosed one runs to the end)."""
    match = BOARD_TAG_RE.search(text)
    return match.group(1) if match else text


def _index(digits: str) -> int:
    # Python refuses to convert enormous digit strings; anything that long is out of bounds anyway.
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= 18 else 10**18


def _non_blank_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def parse_board(text: str) -> ParsedBoard:
    """Parse any notation. Never raises; problems become level-0 issues."""
    text = extract_board_text(text)
    if len(text) > MAX_BOARD_CHARS:
        return _too_large(f"{len(text):,} characters; the limit is {MAX_BOARD_CHARS:,}")
    rows = _non_blank_lines(text)
    if len(rows) > MAX_BOARD_LINES:
        return _too_large(f"{len(rows):,} lines; the limit is {MAX_BOARD_LINES:,}")
    if not rows:
        return ParsedBoard(
            "empty",
            problems=[
                Issue("EMPTY_BOARD", f"The board is empty. Start with a root line. {ROOT_HELP}")
            ],
        )
    if _looks_like_drawn_grid(rows):
        rows = [row.rstrip() for row in rows]
        letters = sum(len(row) - row.count(".") - row.count(" ") for row in rows)
        parsed = None if letters > MAX_BOARD_LETTERS else _parse_grid(rows)
    else:
        parsed = _parse_anchor([row.strip() for row in rows])
        letters = sum(len(line.word) for line in parsed.lines)
    if parsed is None or letters > MAX_BOARD_LETTERS:
        return _too_large(f"{letters:,} letters; the limit is {MAX_BOARD_LETTERS:,}")
    if parsed.cells:
        min_x, min_y, max_x, max_y = bounds(parsed.cells)
        width, height = max_x - min_x + 1, max_y - min_y + 1
        if width * height > MAX_GRID_AREA:
            return _too_large(
                f"a grid {width:,} wide and {height:,} high; the limit is {MAX_GRID_AREA:,} cells"
            )
    return parsed


def _too_large(detail: str) -> ParsedBoard:
    message = (
        f"The board is too large to check ({detail}). A Bananagrams board has at most 144 tiles."
    )
    return ParsedBoard("empty", problems=[Issue("BOARD_TOO_LARGE", message)])


def _looks_like_drawn_grid(rows: list[str]) -> bool:
    if ROOT_RE.match(rows[0].strip()):
        return False
    if not all(GRID_ROW_RE.match(row.rstrip()) for row in rows):
        return False
    # A lone bare word is a broken root line ('CAT' without a direction), not a one-row grid.
    return len(rows) > 1 or "." in rows[0]


def _parse_grid(rows: list[str]) -> ParsedBoard:
    indent = min(len(row) - len(row.lstrip(" ")) for row in rows)
    parsed = ParsedBoard("grid")
    for y, row in enumerate(rows):
        parsed.row_lines[y] = y + 1
        for x, char in enumerate(row[indent:].rstrip()):
            if char not in ". ":
                parsed.cells[(x, y)] = char.upper()
    if not parsed.cells:
        parsed.notation = "empty"
        parsed.problems.append(Issue("EMPTY_BOARD", "The drawn grid has no letters."))
    return parsed


def _parse_anchor(rows: list[str]) -> ParsedBoard:
    parsed = ParsedBoard("anchor")
    root = ROOT_RE.match(rows[0])
    if not root:
        message = f"Invalid root line format: '{shorten(rows[0])}'. {ROOT_HELP}"
        parsed.problems.append(Issue("INVALID_ROOT", message, line=1))
        return parsed
    parsed.lines.append(Line(1, root.group(1).upper(), root.group(2).upper()))
    for number, row in enumerate(rows[1:], start=2):
        line = _parse_line(number, row)
        if line is None:
            message = f"Invalid line format: '{shorten(row)}'. {LINE_HELP}"
            parsed.problems.append(Issue("INVALID_LINE", message, line=number))
        else:
            parsed.lines.append(line)
    return parsed


def _parse_line(number: int, row: str) -> Line | None:
    if match := ANCHOR_RE.match(row):
        word, j, target, i, direction = match.groups()
    elif match := LEGACY_RE.match(row):
        word, target, i, j, direction = match.groups()
    else:
        return None
    return Line(number, word.upper(), direction.upper(), target.upper(), _index(i), _index(j))


# --- grids -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """A maximal run of 2+ letters on a grid: a word as the board shows it."""

    x: int
    y: int
    direction: str
    word: str

    def cells(self) -> Iterator[Cell]:
        dx, dy = STEP[self.direction]
        return ((self.x + k * dx, self.y + k * dy) for k in range(len(self.word)))


def word_cells(x: int, y: int, direction: str, length: int) -> list[Cell]:
    dx, dy = STEP[direction]
    return [(x + k * dx, y + k * dy) for k in range(length)]


def grid_runs(cells: Mapping[Cell, str]) -> list[Run]:
    """All maximal runs of 2+ letters, in grid order: by start cell (row, then column), H first."""
    runs: list[Run] = []
    for x, y in cells:
        for direction, (dx, dy) in STEP.items():
            if (x - dx, y - dy) in cells or (x + dx, y + dy) not in cells:
                continue  # not the start of a run of 2+
            letters, cx, cy = [], x, y
            while (cx, cy) in cells:
                letters.append(cells[(cx, cy)])
                cx, cy = cx + dx, cy + dy
            runs.append(Run(x, y, direction, "".join(letters)))
    runs.sort(key=lambda run: (run.y, run.x, run.direction))
    return runs


def components(cells: Mapping[Cell, str]) -> list[set[Cell]]:
    """Groups of orthogonally touching cells, largest first (ties by position)."""
    unseen = set(cells)
    groups: list[set[Cell]] = []
    while unseen:
        start = min(unseen, key=lambda c: (c[1], c[0]))
        group, frontier = {start}, [start]
        unseen.discard(start)
        while frontier:
            x, y = frontier.pop()
            for near in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if near in unseen:
                    unseen.discard(near)
                    group.add(near)
                    frontier.append(near)
        groups.append(group)
    groups.sort(key=lambda g: (-len(g), min((c[1], c[0]) for c in g)))
    return groups


def bounds(cells: Mapping[Cell, str]) -> tuple[int, int, int, int]:
    """(min_x, min_y, max_x, max_y) of a non-empty grid."""
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    return min(xs), min(ys), max(xs), max(ys)


def render_rows(cells: Mapping[Cell, str]) -> list[str]:
    """Rows top to bottom, '.' for empty cells, cropped to the bounding box."""
    if not cells:
        return []
    min_x, min_y, max_x, max_y = bounds(cells)
    return [
        "".join(cells.get((x, y), ".") for x in range(min_x, max_x + 1))
        for y in range(min_y, max_y + 1)
    ]


def format_anchor(cells: Mapping[Cell, str]) -> str | None:
    """Anchor notation that rebuilds exactly this grid with every run declared, or None when no
    such spec exists: a disconnected grid, or tiles that are in no run of 2+ (a lone tile)."""
    runs = grid_runs(cells)
    if not runs or {c for run in runs for c in run.cells()} != set(cells):
        return None
    if len(components(cells)) != 1:
        return None
    runs_at: dict[Cell, list[Run]] = {}
    for run in runs:
        for cell in run.cells():
            runs_at.setdefault(cell, []).append(run)
    # Roots are tried in grid order; a later root only helps when repeated words shadow targets.
    for root in runs[:20]:
        lines = _anchor_lines_from(root, runs, runs_at)
        if lines is not None:
            return "\n".join(lines)
    return "\n".join(_anchor_lines_redeclaring(runs, runs_at))


def _anchor_line(run: Run, target: Run, cell: Cell) -> str:
    j = list(run.cells()).index(cell)
    i = list(target.cells()).index(cell)
    return f"{run.word}[{j}] @ {target.word}[{i}] {run.direction}"


def _anchor_lines_from(
    root: Run, runs: list[Run], runs_at: dict[Cell, list[Run]]
) -> list[str] | None:
    lines = [f"{root.word} {root.direction}"]
    placed = {root}
    latest = {root.word: root}  # a TARGET names the latest earlier line with that word
    pending = [run for run in runs if run != root]
    while pending:
        choice = safe = None
        for run in pending:
            anchor = _reachable_crossing(run, placed, latest, runs_at)
            if anchor is None:
                continue
            # Prefer words that don't shadow an earlier line of the same text, then words that
            # shadow one no pending word still needs as a target.
            choice = (run, *anchor)
            if run.word not in latest:
                break
            shadowed = latest[run.word]
            if safe is None and all(
                other in placed or other is run
                for cell in shadowed.cells()
                for other in runs_at[cell]
            ):
                safe = choice
        else:
            choice = safe or choice
        if choice is None:
            return None
        run, target, cell = choice
        lines.append(_anchor_line(run, target, cell))
        placed.add(run)
        latest[run.word] = run
        pending.remove(run)
    return lines


def _anchor_lines_redeclaring(runs: list[Run], runs_at: dict[Cell, list[Run]]) -> list[str]:
    """Anchor lines for any connected grid whose tiles all lie in runs, found when no order of
    plain lines works (e.g. three copies of a word hanging off a fourth). Runs are attached in
    breadth-first order; when a target is shadowed by a later line with the same word, the runs
    on a path from that line to the target are declared again, each a copy of a run already on
    the grid (so the grid doesn't change), which makes the target the latest again."""
    crossings = {
        run: [(other, cell) for cell in run.cells() for other in runs_at[cell] if other != run]
        for run in runs
    }
    root = runs[0]
    parent: dict[Run, tuple[Run, Cell] | None] = {root: None}
    order = [root]
    for run in order:  # grows while it is walked: breadth-first
        for other, cell in crossings[run]:
            if other not in parent:
                parent[other] = (run, cell)
                order.append(other)
    lines = [f"{root.word} {root.direction}"]
    latest = {root.word: root}
    placed = {root}
    for run in order[1:]:
        target, cell = parent[run]  # type: ignore[misc]
        shadow = latest[target.word]
        if shadow != target:
            steps = _path(shadow, target, crossings, placed)
            for (here, _), (there, shared) in zip(steps, steps[1:], strict=False):
                lines.append(_anchor_line(there, here, shared))
                latest[there.word] = there
        lines.append(_anchor_line(run, target, cell))
        latest[run.word] = run
        placed.add(run)
    return lines


def _path(
    start: Run, goal: Run, crossings: dict[Run, list[tuple[Run, Cell]]], allowed: set[Run]
) -> list[tuple[Run, Cell | None]]:
    """The shortest chain of crossing runs from start to goal within `allowed`, each with the
    cell it shares with the one before."""
    came_from: dict[Run, tuple[Run, Cell] | None] = {start: None}
    frontier = [start]
    for run in frontier:
        if run == goal:
            break
        for other, cell in crossings[run]:
            if other in allowed and other not in came_from:
                came_from[other] = (run, cell)
                frontier.append(other)
    steps: list[tuple[Run, Cell | None]] = []
    run, via = goal, came_from[goal]
    while via is not None:
        steps.append((run, via[1]))
        run, via = via[0], came_from[via[0]]
    steps.append((start, None))
    return steps[::-1]


def _reachable_crossing(
    run: Run, placed: set[Run], latest: dict[str, Run], runs_at: dict[Cell, list[Run]]
) -> tuple[Run, Cell] | None:
    for cell in run.cells():
        for other in runs_at[cell]:
            if other is not run and other in placed and latest[other.word] is other:
                return other, cell
    return None
