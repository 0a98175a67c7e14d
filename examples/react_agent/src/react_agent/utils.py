"""Pick a chat model by its ``provider/model`` name."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from react_agent.replies import replies_for


def load_chat_model(fully_specified_name: str) -> BaseChatModel:
    """A chat model from ``provider/model``: ``stand-in/brief`` and ``stand-in/thorough`` run
    offline; any other provider goes through LangChain's ``init_chat_model``."""
    provider, _, model = fully_specified_name.partition("/")
    if provider == "stand-in":
        from playground.standin import StandInChatModel

        return StandInChatModel(rules=replies_for(model), model_name=fully_specified_name)
    from langchain.chat_models import init_chat_model

    return init_chat_model(model, model_provider=provider)
