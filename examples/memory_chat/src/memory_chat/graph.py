"""A chat with long-term memory: facts about each user live in the store, not in the thread.

``remember`` (a sync node taking ``store: BaseStore``) keeps or forgets facts; ``chat`` (an async
node) reads them through ``runtime.store`` and answers. A new thread for the same ``user_id``
still knows them; another ``user_id`` does not.
"""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore

from memory_chat.context import Context
from memory_chat.memories import facts_to_keep, words_to_forget
from memory_chat.replies import reply
from playground.standin import StandInChatModel, text_of

model = StandInChatModel(rules=reply, model_name="stand-in/memory")


def _namespace(runtime: Runtime[Context]) -> tuple[str, str]:
    return ("memories", (runtime.context or {}).get("user_id") or "anonymous")


def remember(state: MessagesState, runtime: Runtime[Context], store: BaseStore) -> dict:
    """Keep the facts the newest message asks to keep; forget the ones it asks to forget."""
    last = state["messages"][-1]
    if not isinstance(last, HumanMessage):
        return {}
    namespace = _namespace(runtime)
    text = text_of(last)
    if forget := words_to_forget(text):
        for item in store.search(namespace, limit=100):
            if forget in str(item.value.get("fact", "")).lower():
                store.delete(namespace, item.key)
        return {}
    for key, fact in facts_to_keep(text).items():
        store.put(namespace, key, {"fact": fact})
    return {}


async def chat(state: MessagesState, runtime: Runtime[Context]) -> dict:
    """Answer, with what the store holds about this user in the system prompt."""
    items = await runtime.store.asearch(_namespace(runtime), limit=20)
    facts = "\n".join(f"- {item.value.get('fact')}" for item in sorted(items, key=lambda i: i.key))
    prompt = SystemMessage(f"You are a friendly assistant. What you know about the user:\n{facts}")
    response = await model.ainvoke([prompt, *state["messages"]])
    return {"messages": [response]}


builder = StateGraph(MessagesState, context_schema=Context)
builder.add_node(remember)
builder.add_node(chat)
builder.add_edge(START, "remember")
builder.add_edge("remember", "chat")
builder.add_edge("chat", END)
graph = builder.compile(name="Memory Chat")
