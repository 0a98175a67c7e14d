"""What a run of the agent is given besides the conversation: its Runtime context."""

from __future__ import annotations

from dataclasses import dataclass, field

from react_agent.prompts import SYSTEM_PROMPT


@dataclass(kw_only=True)
class Context:
    """Settings a person picks per thread (Studio and the playground draw a form for them)."""

    model: str = field(
        default="stand-in/brief",
        metadata={"description": "provider/model: stand-in/brief answers in one sentence, "
                                 "stand-in/thorough quotes every handbook entry it found."},
    )
    system_prompt: str = field(
        default=SYSTEM_PROMPT,
        metadata={"description": "The instructions the model gets before the conversation."},
    )
    max_search_results: int = field(
        default=3, metadata={"description": "How many handbook entries a search returns."})
