"""The words the engine says to the model. The action format here must match `parsing.py`."""

from __future__ import annotations

import json
from collections.abc import Sequence

from engines.agent.llm import ToolSpec

SYSTEM_PROMPT = """\
You are a careful research agent answering the user's question.
Use the tools to find or compute facts instead of guessing. Tool results are tagged with \
evidence ids such as [E1].
When you are done, call final_answer with:
- answer: only the answer (a number, a few words or a short list), no explanation;
- claims (optional): the facts the answer rests on, each with the evidence ids that contain it \
and, when it is not word for word in the evidence, a quote copied exactly from the evidence.
You have at most {steps} steps."""

TEXT_ACTION_FORMAT = """\
Tools are not called natively here. Every reply must be exactly one JSON object, with no other \
text:
{{"thought": "what you will do and why", "action": "<tool name>", "action_input": {{...}}}}
To call several tools at once:
{{"thought": "...", "actions": [{{"action": "<tool>", "action_input": {{...}}}}, ...]}}
To answer:
{{"thought": "...", "action": "final_answer", "action_input": {{"answer": "...", "claims": \
[{{"text": "...", "evidence": ["E1"], "quote": "..."}}]}}}}
action_input must match the tool's argument schema. The tools:
{tools}"""

ACTION_EXAMPLE = '{"thought": "...", "action": "final_answer", "action_input": {"answer": "..."}}'

THINK_REMINDER = "Continue: call a tool, or call final_answer when you have the answer."
TEXT_THINK_REMINDER = (
    'Continue: reply with a JSON action ("action" and "action_input"), or answer with '
    'the "final_answer" action.'
)
EMPTY_REPLY = "Your reply was empty. Call a tool, or call final_answer with your answer."
FORCED_ANSWER = (
    "The {axis} budget is used up. Reply now with your best final answer by calling "
    "final_answer, and no other tool. If you cannot answer, say so in the answer."
)
TEXT_FORCED_ANSWER = (
    "The {axis} budget is used up. Reply now with your best final answer as the JSON action "
    '{{"action": "final_answer", "action_input": {{"answer": "..."}}}} and nothing else.'
)
DENIED = (
    "The person denied this call to {tool}. Do not retry it; choose another way to reach the "
    "answer, or answer with what you have."
)
NO_PERSON = (
    "{tool} needs a person's approval and no one can approve it in this mode. Choose another "
    "way to reach the answer."
)


def system_prompt(base: str, steps: int | None, policy_notes: str) -> str:
    text = base.format(steps=steps if steps is not None else "unlimited")
    return f"{text}\n\n{policy_notes}".strip() if policy_notes else text


def text_action_instructions(specs: Sequence[ToolSpec]) -> str:
    lines = []
    for spec in specs:
        schema = json.dumps(spec.parameters, separators=(",", ":"))
        lines.append(f"- {spec.name}: {spec.description}\n  arguments: {schema}")
    return TEXT_ACTION_FORMAT.format(tools="\n".join(lines))


def question_message(question: str, files: Sequence[str]) -> str:
    if not files:
        return question
    listed = "\n".join(f"- {name}" for name in files)
    return f"{question}\n\nAttached files (read them with your tools):\n{listed}"
