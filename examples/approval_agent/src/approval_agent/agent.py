"""An email assistant built with ``langchain.agents.create_agent``.

Sending mail is gated by ``HumanInTheLoopMiddleware``: the agent pauses before ``send_email``
and a person approves it, edits the message, or rejects it with a reason. Finding a contact
needs no approval. The model is a deterministic stand-in (``approval_agent.replies``), so the
app runs with no provider and no key.
"""

from __future__ import annotations

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware

from approval_agent.replies import reply
from approval_agent.tools import TOOLS
from playground.standin import StandInChatModel

model = StandInChatModel(rules=reply, model_name="stand-in/mail")

agent = create_agent(
    model,
    tools=TOOLS,
    system_prompt="You help people write short emails to their colleagues.",
    middleware=[
        HumanInTheLoopMiddleware(
            interrupt_on={
                "send_email": {"allowed_decisions": ["approve", "edit", "reject"],
                               "description": "Outgoing mail needs your approval"},
                "find_contact": False,
            },
        ),
    ],
    name="approval-assistant",
)
