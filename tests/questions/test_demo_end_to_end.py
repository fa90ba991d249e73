"""The shipped demo set answered end to end through the real tools.

The scripted "model" below behaves like a careful agent: it calls read_file, python and the
calculator, and works its answer out of what those tools return (never from the set's
answers). So full accuracy here means the PDF, CSV, JSON and text readers, the python sandbox,
the calculator, the agent loop, the runner and the scorer all work together.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from arena.questions import resolve_question_set
from arena.questions_run import AgentOptions, level_stats, run_question_set
from engines.agent.scripted import ScriptedLLM, ScriptedRequest, call, reply

# A step sees the previous tool's output and returns the next tool call, as (name, arguments),
# or, as the last step of a recipe, the final answer text.
Step = Callable[[str], "tuple[str, dict] | str"]

READ_CSV = "import csv, os\nrows = list(csv.DictReader(open(os.path.join(os.environ['WORKSPACE'], 'fruit_stock.csv'))))\n"
NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"


def found(pattern: str, text: str, group: int = 1) -> str:
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not found in tool output:\n{text}"
    return match.group(group)


def after_equals(text: str) -> str:
    return text.rsplit("=", 1)[1].strip()


def plots_sum(text: str) -> str:
    numbers = re.findall(r"Plot [A-Z] \([^)]*\): (\d+)", text)
    assert len(numbers) == 3, text
    return " + ".join(numbers)


def revenue_code(text: str) -> str:
    return (
        f"report = {text!r}\n"
        "import re\n"
        "tonnes = sum(int(n) for n in re.findall(r'Plot [A-Z] \\([^)]*\\): (\\d+)', report))\n"
        "price = float(re.search(r'Export price: ([\\d.]+)', report).group(1))\n"
        "spoilage = float(re.search(r'Spoilage: ([\\d.]+)%', report).group(1))\n"
        "print(round(tonnes * (1 - spoilage / 100) * price))\n"
    )


def low_stock(table: str) -> str:
    rows = [line.split("|")[1:-1] for line in table.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in rows[0]]
    data = [dict(zip(header, (cell.strip() for cell in row), strict=True)) for row in rows[2:]]
    assert len(data) == 12, table
    return repr([row["fruit"] for row in data if int(row["stock"]) < 20])


PALLETS = r"hold up to (\w+) pallets"


def word_to_number_code(word: str) -> str:
    return f"print({NUMBER_WORDS.split()!r}.index({word!r}))"


RECIPES: dict[str, list[Step]] = {
    "demo-01": [
        lambda _: ("read_file", {"path": "harvest_report.pdf"}),
        lambda out: found(r"founded in (\d{4})", out),
    ],
    "demo-02": [
        lambda _: ("read_file", {"path": "harvest_report.pdf"}),
        lambda out: ("calculator", {"expression": plots_sum(out)}),
        after_equals,
    ],
    "demo-03": [
        lambda _: ("read_file", {"path": "harvest_report.pdf"}),
        lambda out: ("python", {"code": revenue_code(out)}),
        str.strip,
    ],
    "demo-04": [
        lambda _: ("read_file", {"path": "fruit_stock.csv"}),
        lambda _: (
            "python",
            {"code": READ_CSV + "print(max(rows, key=lambda r: int(r['stock']))['fruit'])"},
        ),
        str.strip,
    ],
    "demo-05": [
        lambda _: (
            "python",
            {
                "code": READ_CSV
                + "print(f\"{sum(int(r['stock']) * float(r['price_usd']) for r in rows):.2f}\")"
            },
        ),
        str.strip,
    ],
    "demo-06": [
        lambda _: ("read_file", {"path": "fruit_stock.csv"}),
        lambda out: ("python", {"code": f"print(', '.join(sorted({low_stock(out)})))"}),
        str.strip,
    ],
    "demo-07": [
        lambda _: ("calculator", {"expression": "37 * 49 + 112"}),
        after_equals,
    ],
    "demo-08": [
        lambda _: (
            "python",
            {
                "code": "primes = []\nn = 2\nwhile len(primes) < 100:\n"
                "    if all(n % p for p in primes if p * p <= n):\n        primes.append(n)\n"
                "    n += 1\nprint(sum(primes))"
            },
        ),
        str.strip,
    ],
    "demo-09": [
        lambda _: (
            "python",
            {
                "code": "from datetime import date\nprint((date(2024, 3, 1) - date(2024, 1, 15)).days)"
            },
        ),
        str.strip,
    ],
    "demo-10": [
        lambda _: (
            "python",
            {"code": "print(sum(1 for i in range(1, 10001) if i % 7 == 0 and i % 11 != 0))"},
        ),
        str.strip,
    ],
    "demo-11": [
        lambda _: ("read_file", {"path": "tournament.json"}),
        lambda out: (
            "python",
            {
                "code": "import json, os\n"
                "data = json.load(open(os.path.join(os.environ['WORKSPACE'], 'tournament.json')))\n"
                "rules = data['rules']\nplayers = rules['players_per_table']\n"
                "for span, tiles in rules['starting_tiles'].items():\n"
                "    low, high = map(int, span.split()[0].split('-'))\n"
                "    if low <= players <= high:\n        print(tiles)\n"
                # the model checks the key it saw in read_file's output is the one it uses
                + ("" if '"players_per_table": 4' in out else "raise SystemExit('unexpected')\n")
            },
        ),
        str.strip,
    ],
    "demo-12": [
        lambda _: ("read_file", {"path": "letter.txt"}),
        lambda out: found(r"regards,\s*\n\s*\n?\s*\S+ (\S+)\s*\n", out),
    ],
    "demo-13": [
        lambda _: ("read_file", {"path": "letter.txt"}),
        lambda out: ("python", {"code": word_to_number_code(found(PALLETS, out))}),
        str.strip,
    ],
}


def tool_output(request: ScriptedRequest) -> str:
    """What the last tool returned, without its evidence tag; a tool error fails the test."""
    last = request.last
    if last.get("role") != "tool":
        return ""
    content = str(last.get("content") or "")
    assert not content.startswith("Error"), content
    return re.sub(r"^\[E\d+\] ", "", content)


def recipe_llm(steps: list[Step]) -> ScriptedLLM:
    def act(step: Step, final: bool):
        def respond(request: ScriptedRequest):
            outcome = step(tool_output(request))
            if final:
                assert isinstance(outcome, str)
                return reply(calls=[call("final_answer", answer=outcome)])
            name, arguments = outcome
            return reply(f"Calling {name}.", calls=[call(name, arguments)])

        return respond

    return ScriptedLLM([act(step, i == len(steps) - 1) for i, step in enumerate(steps)])


async def test_demo_set_full_accuracy_through_real_tools() -> None:
    demo = resolve_question_set("demo")
    assert set(RECIPES) == set(demo.by_id())
    llms: dict[str, ScriptedLLM] = {}

    def factory(task_id: str | None) -> ScriptedLLM:
        llms[task_id] = recipe_llm(RECIPES[task_id])
        return llms[task_id]

    finished = []
    runs = await run_question_set(
        demo.questions,
        factory,
        AgentOptions(allow_risky=True),
        concurrency=4,
        on_finished=finished.append,
    )
    assert len(finished) == len(demo)
    wrong = {run.question.task_id: (run.answer, run.error) for run in runs if not run.score.correct}
    assert wrong == {}
    assert all(run.result.outcome.value == "answered" for run in runs)

    used = {
        (event.tool, event.is_error)
        for run in runs
        for event in run.result.events
        if event.kind == "tool_call_finished"
    }
    assert used == {("read_file", False), ("python", False), ("calculator", False)}
    read = {
        event.args["path"]
        for run in runs
        for event in run.result.events
        if event.kind == "tool_call_started" and event.tool == "read_file"
    }
    assert {"harvest_report.pdf", "fruit_stock.csv", "tournament.json", "letter.txt"} <= read
    assert all(llm.remaining == 0 for llm in llms.values())

    total = level_stats(runs)[-1]
    assert (total.level, total.correct, total.scored) == (0, len(demo), len(demo))


async def test_python_is_denied_without_yes() -> None:
    demo = resolve_question_set("demo")
    question = demo.by_id()["demo-08"]

    def denied_then_answer(request: ScriptedRequest):
        # the denial reaches the model as the tool's reply
        assert "no one can approve it" in str(request.last["content"])
        return reply(calls=[call("final_answer", answer="unknown")])

    script = [reply(calls=[call("python", code="print(24133)")]), denied_then_answer]
    [run] = await run_question_set(
        [question], lambda _: ScriptedLLM(script), AgentOptions(allow_risky=False)
    )
    decisions = [e for e in run.result.events if e.kind == "approval_decided"]
    assert [(e.tool, e.decision, e.source) for e in decisions] == [("python", "deny", "no_person")]
    assert run.score.correct is False
    assert run.prediction_row()["model_answer"] == "unknown"


async def test_workspace_holds_only_the_attachment() -> None:
    demo = resolve_question_set("demo")
    question = demo.by_id()["demo-04"]
    script = [
        reply(calls=[call("read_file", path="metadata.jsonl")]),
        reply(calls=[call("read_file", path="../metadata.jsonl")]),
        reply(calls=[call("final_answer", answer="banana")]),
    ]
    llm = ScriptedLLM(script)
    await run_question_set([question], lambda _: llm, AgentOptions())
    # the set's answers are out of reach: the workspace holds a copy of the attachment only
    listing = str(llm.requests[1].last["content"])
    assert listing.startswith("Error: no such file")
    assert listing.endswith("holds: fruit_stock.csv")
    escape = str(llm.requests[2].last["content"])
    assert escape.startswith("Error:") and "Final answer" not in escape


@pytest.mark.parametrize("policy", ["react+", "plan"])
async def test_other_policies_run_headless(policy: str) -> None:
    demo = resolve_question_set("demo")
    question = demo.by_id()["demo-07"]
    script = [
        reply(calls=[call("calculator", expression="37*49+112")]),
        reply(calls=[call("final_answer", answer="1925")]),
    ]
    if policy == "react+":
        script.insert(0, reply(calls=[call("ask_user", question="Shall I compute it?")]))
    if policy == "plan":
        script.insert(0, reply(calls=[call("add_tasks", tasks=["compute"])]))
        script.insert(2, reply(calls=[call("complete_task", task_id="T1", result="1925")]))
    llm = ScriptedLLM(script)
    [run] = await run_question_set(
        [question], lambda _: llm, AgentOptions(policy=policy), mode="lenient"
    )
    assert run.score.correct and run.score.mode.value == "lenient"
    assert run.policy == policy
    if policy == "react+":
        assert "No person is available" in str(llm.requests[1].last["content"])


async def test_react_plus_headless_denies_approvals() -> None:
    question = resolve_question_set("demo").by_id()["demo-08"]
    script = [
        reply(calls=[call("python", code="print(1)")]),
        reply(calls=[call("final_answer", answer="24133")]),
    ]
    llm = ScriptedLLM(script)
    [run] = await run_question_set([question], lambda _: llm, AgentOptions(policy="react+"))
    decided = [e for e in run.result.events if e.kind == "approval_decided"]
    assert [(e.tool, e.decision) for e in decided] == [("python", "deny")]
    assert "denied" in str(llm.requests[1].last["content"])
