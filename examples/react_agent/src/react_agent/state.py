"""The agent's state: the conversation, and whether LangGraph's step budget is nearly spent."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated

from langchain_core.messages import AnyMessage
from langgraph.graph import add_messages
from langgraph.managed import IsLastStep


@dataclass
class InputState:
    """What a caller sends: new messages, appended to the conversation by add_messages."""

    messages: Annotated[Sequence[AnyMessage], add_messages] = field(default_factory=list)


@dataclass
class State(InputState):
    """The whole state. ``is_last_step`` is managed by LangGraph: never an input."""

    is_last_step: IsLastStep = field(default=False)
