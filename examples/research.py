"""A research graph that needs no model provider: fan-out, a reducer, a subgraph and a loop.

``plan`` splits a topic into questions; each question is sent (``Send``) to ``research``, a
subgraph of its own (``search`` -> ``summarize``), and the findings of all of them are gathered
by a reducer (``operator.add``). ``review`` loops back to ``plan`` for a second, deeper round
until there are enough findings, then ``write`` puts the report together.

Run it in the playground::

    .venv/bin/playground run --graph examples/research.py:graph
"""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

ANGLES = ("what it is", "how it is used", "what can go wrong")
ENOUGH = 6  # findings before the report is written


class ResearchState(TypedDict, total=False):
    """The whole research: the topic, this round's questions, every finding, the report."""

    topic: str
    questions: list[str]
    findings: Annotated[list[str], operator.add]
    rounds: int
    report: str


class QuestionState(TypedDict, total=False):
    """One question, researched on its own by the subgraph."""

    question: str
    notes: str
    findings: Annotated[list[str], operator.add]


def plan(state: ResearchState) -> dict:
    """Split the topic into one question per angle; deeper ones in later rounds."""
    depth = "in depth: " if state.get("rounds") else ""
    return {"questions": [f"{depth}{state['topic']}: {angle}?" for angle in ANGLES]}


def fan_out(state: ResearchState) -> list[Send]:
    """One research task per question, run side by side."""
    return [Send("research", {"question": question}) for question in state["questions"]]


def search(state: QuestionState) -> dict:
    """Look the question up (here: write notes about it)."""
    return {"notes": f"notes on '{state['question']}'"}


def summarize(state: QuestionState) -> dict:
    """Turn the notes into one finding."""
    return {"findings": [f"{state['question']} -> {len(state['notes'])} characters of notes"]}


def _build_research():
    builder = StateGraph(QuestionState)
    builder.add_node("search", search)
    builder.add_node("summarize", summarize)
    builder.add_edge(START, "search")
    builder.add_edge("search", "summarize")
    builder.add_edge("summarize", END)
    return builder.compile()


def review(state: ResearchState) -> dict:
    """Count the round."""
    return {"rounds": state.get("rounds", 0) + 1}


def enough(state: ResearchState) -> str:
    """Loop back to plan until there are enough findings."""
    return "write" if len(state.get("findings", [])) >= ENOUGH else "plan"


def write(state: ResearchState) -> dict:
    """The report: every finding, numbered."""
    lines = [f"{i}. {finding}" for i, finding in enumerate(state["findings"], 1)]
    return {"report": f"Report on {state['topic']} ({state['rounds']} rounds)\n" + "\n".join(lines)}


def build_graph(checkpointer=None):
    """plan -> research x N (Send, a subgraph) -> review -> (plan again | write)."""
    builder = StateGraph(ResearchState)
    builder.add_node("plan", plan)
    builder.add_node("research", _build_research())
    builder.add_node("review", review)
    builder.add_node("write", write)
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", fan_out, ["research"])
    builder.add_edge("research", "review")
    builder.add_conditional_edges("review", enough, ["plan", "write"])
    builder.add_edge("write", END)
    return builder.compile(checkpointer=checkpointer)


graph = build_graph()
