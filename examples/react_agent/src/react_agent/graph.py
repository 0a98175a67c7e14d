"""An async ReAct-style agent: the model decides, the tools act, until it has an answer.

Written as LangGraph's templates write agents: ``async def`` nodes, a dataclass state with a
separate input schema, the model and prompt read from ``Runtime[Context]``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from langchain_core.messages import AIMessage
from langgraph.graph import StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.runtime import Runtime

from react_agent.context import Context
from react_agent.state import InputState, State
from react_agent.tools import TOOLS
from react_agent.utils import load_chat_model


async def call_model(state: State, runtime: Runtime[Context]) -> dict[str, list[AIMessage]]:
    """Ask the model for the next step, with the context's prompt and model."""
    model = load_chat_model(runtime.context.model).bind_tools(TOOLS)
    prompt = runtime.context.system_prompt.format(system_time=datetime.now(tz=UTC).isoformat())
    response = await model.ainvoke([{"role": "system", "content": prompt}, *state.messages])
    if state.is_last_step and response.tool_calls:
        return {"messages": [AIMessage(id=response.id,
                                       content="I ran out of steps before finding an answer.")]}
    return {"messages": [response]}


def route_model_output(state: State) -> Literal["__end__", "tools"]:
    """Run the tools the model asked for, or finish when it answered."""
    last = state.messages[-1]
    if not isinstance(last, AIMessage):
        raise ValueError(f"expected an AIMessage after call_model, got {type(last).__name__}")
    return "tools" if last.tool_calls else "__end__"


builder = StateGraph(State, input_schema=InputState, context_schema=Context)
builder.add_node(call_model)
builder.add_node("tools", ToolNode(TOOLS))
builder.add_edge("__start__", "call_model")
builder.add_conditional_edges("call_model", route_model_output)
builder.add_edge("tools", "call_model")

graph = builder.compile(name="Office Agent")
