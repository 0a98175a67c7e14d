"""A deterministic chat model to try a graph with no model provider, no key and no network.

The examples (and tests, and benchmarks) swap their LLM for :class:`StandInChatModel`, the way a
template's ``load_chat_model("provider/model")`` would pick one: the graph keeps its real shape
(``bind_tools``, tool calls, ``ToolNode``, ``create_agent``) and only the replies come from
rules. A rule is a function from the conversation (and the bound tools' names) to the next
``AIMessage``.

It streams like a real model: text token by token (words and the spaces between them), then
each tool call as one chunk, so the playground's token stream and ``stream_mode="messages"``
show what a provider's model would show. ``token_delay`` seconds pass between tokens (0 by
default; ``STANDIN_TOKEN_DELAY`` in the environment sets it for a model made without one).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
import zlib
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

Rules = Callable[[Sequence[BaseMessage], Sequence[str]], AIMessage]
DELAY_ENV = "STANDIN_TOKEN_DELAY"


def _env_delay() -> float:
    try:
        return max(float(os.environ.get(DELAY_ENV, "0") or 0), 0.0)
    except ValueError:
        return 0.0


def text_of(message: BaseMessage | None) -> str:
    """A message's text, whether its content is a string or a list of content blocks."""
    if message is None:
        return ""
    content = message.content
    if isinstance(content, str):
        return content
    return " ".join(part.get("text", "") if isinstance(part, dict) else str(part)
                    for part in content)


class StandInChatModel(BaseChatModel):
    """A chat model whose replies come from ``rules``, streamed token by token.

    Args:
        rules: ``rules(messages, tool_names) -> AIMessage``, the whole "intelligence".
        name: what the model calls itself (``stand-in/brief``), as a model name would.
        token_delay: seconds between streamed tokens; None reads ``STANDIN_TOKEN_DELAY``.
    """

    rules: Any
    model_name: str = "stand-in"
    token_delay: float | None = None
    tool_names: tuple[str, ...] = ()

    @property
    def _llm_type(self) -> str:
        return "stand-in"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> StandInChatModel:
        """The same rules, told which tools are bound (by name)."""
        names = tuple(getattr(t, "name", None) or getattr(t, "__name__", str(t)) for t in tools)
        return self.model_copy(update={"tool_names": names})

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        reply = self.rules(messages, self.tool_names)
        if not isinstance(reply, AIMessage):
            reply = AIMessage(content=str(reply))
        if reply.id is None:
            # Ids that depend only on the conversation: a replay of the thread streams the
            # same message ids, and a re-run from a recording can line them up.
            seen = "\x1f".join(text_of(m) for m in messages).encode()
            reply.id = f"standin-{len(messages)}-{zlib.crc32(seen):08x}"
        reply.response_metadata = {**reply.response_metadata, "model_name": self.model_name}
        return reply

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    def _chunks(self, reply: AIMessage) -> Iterator[AIMessageChunk]:
        text = reply.content if isinstance(reply.content, str) else text_of(reply)
        tokens = [token for token in re.split(r"(\s+)", text) if token]
        for token in tokens:
            yield AIMessageChunk(content=token, id=reply.id)
        for index, call in enumerate(reply.tool_calls):
            yield AIMessageChunk(content="", id=reply.id, tool_call_chunks=[{
                "name": call["name"], "args": json.dumps(call["args"]), "id": call["id"],
                "index": index, "type": "tool_call_chunk"}])
        yield AIMessageChunk(content="", id=reply.id, chunk_position="last",
                             response_metadata=reply.response_metadata)

    def _delay(self) -> float:
        return _env_delay() if self.token_delay is None else self.token_delay

    def _stream(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        delay = self._delay()
        for chunk in self._chunks(self._reply(messages)):
            if delay and chunk.content:
                time.sleep(delay)
            generation = ChatGenerationChunk(message=chunk)
            if run_manager:
                run_manager.on_llm_new_token(str(chunk.content), chunk=generation)
            yield generation

    async def _astream(self, messages: list[BaseMessage], stop: Any = None,
                       run_manager: Any = None, **kwargs: Any
                       ) -> AsyncIterator[ChatGenerationChunk]:
        delay = self._delay()
        for chunk in self._chunks(self._reply(messages)):
            if delay and chunk.content:
                await asyncio.sleep(delay)
            generation = ChatGenerationChunk(message=chunk)
            if run_manager:
                await run_manager.on_llm_new_token(str(chunk.content), chunk=generation)
            yield generation
