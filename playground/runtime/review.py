"""Reviews a person answers: LangChain's human-in-the-loop requests, read as data.

``HumanInTheLoopMiddleware`` (``langchain.agents``) pauses an agent with an ``interrupt()``
whose value asks a person to review tool calls. It comes in two shapes:

- batched (the default): ``{"action_requests": [{name, args, description}], "review_configs":
  [{action_name, allowed_decisions}]}``, answered with ``{"decisions": [one per action]}``;
- per call: ``{"type": "tool_approval", "tool_call_id", "name", "args", "description"}``,
  answered with one decision.

A decision is ``{"type": "approve"}``, ``{"type": "edit", "edited_action": {"name", "args"}}``,
``{"type": "reject", "message": ...}`` or ``{"type": "respond", "message": ...}``. This module
recognises a request in an interrupt's value and builds the answer from a person's choices, so
the Run page can offer approve / edit / reject instead of a raw JSON box. Nothing here imports
LangChain.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

ALL_DECISIONS = ("approve", "edit", "reject", "respond")


class ReviewRefused(ValueError):
    """A review that cannot be sent as it stands (edited arguments that are not a JSON object)."""


@dataclass(frozen=True)
class ReviewAction:
    """One tool call waiting for a person.

    Attributes:
        name: the tool.
        args: the arguments the model chose.
        description: what the middleware tells the reviewer.
        allowed: the decisions the app allows for it, in its order.
    """

    name: str
    args: Mapping[str, Any]
    description: str
    allowed: tuple[str, ...]


@dataclass(frozen=True)
class ReviewRequest:
    """An interrupt that asks for a review: its actions, and how the answer is shaped."""

    actions: tuple[ReviewAction, ...]
    per_call: bool


@dataclass(frozen=True)
class Choice:
    """What a person decided for one action.

    Attributes:
        decision: ``approve``, ``edit``, ``reject`` or ``respond``.
        args_text: for ``edit``, the arguments as JSON text.
        message: for ``reject`` (why) and ``respond`` (the tool's answer).
    """

    decision: str
    args_text: str = ""
    message: str = ""


def _allowed(value: Any) -> tuple[str, ...]:
    if not isinstance(value, Sequence) or isinstance(value, str):
        return ("approve", "edit", "reject")
    found = tuple(d for d in value if d in ALL_DECISIONS)
    return found or ("approve", "reject")


def review_request(value: Any) -> ReviewRequest | None:
    """The review an interrupt's value asks for, or None when it is another kind of question."""
    if not isinstance(value, Mapping):
        return None
    if value.get("type") == "tool_approval" and isinstance(value.get("name"), str):
        args = value.get("args")
        return ReviewRequest((ReviewAction(
            value["name"], args if isinstance(args, Mapping) else {},
            str(value.get("description") or ""),
            _allowed(value.get("allowed_decisions"))),), per_call=True)
    requests, configs = value.get("action_requests"), value.get("review_configs")
    if not isinstance(requests, list) or not requests or not isinstance(configs, list):
        return None
    allowed = {c.get("action_name"): _allowed(c.get("allowed_decisions"))
               for c in configs if isinstance(c, Mapping)}
    actions = []
    for request in requests:
        if not isinstance(request, Mapping) or not isinstance(request.get("name"), str):
            return None
        args = request.get("args")
        actions.append(ReviewAction(request["name"], args if isinstance(args, Mapping) else {},
                                    str(request.get("description") or ""),
                                    allowed.get(request["name"], ("approve", "reject"))))
    return ReviewRequest(tuple(actions), per_call=False)


def _decision(action: ReviewAction, choice: Choice) -> dict[str, Any]:
    if choice.decision not in action.allowed:
        raise ReviewRefused(f"{action.name}: {choice.decision!r} is not allowed here "
                            f"(allowed: {', '.join(action.allowed)})")
    if choice.decision == "approve":
        return {"type": "approve"}
    if choice.decision == "edit":
        try:
            args = json.loads(choice.args_text)
        except json.JSONDecodeError as exc:
            raise ReviewRefused(f"{action.name}: the edited arguments are not valid JSON "
                                f"({exc.msg} at column {exc.colno})") from None
        if not isinstance(args, dict):
            raise ReviewRefused(f"{action.name}: the edited arguments must be a JSON object")
        return {"type": "edit", "edited_action": {"name": action.name, "args": args}}
    if choice.decision == "respond":
        if not choice.message.strip():
            raise ReviewRefused(f"{action.name}: type the answer the tool should give")
        return {"type": "respond", "message": choice.message}
    decision: dict[str, Any] = {"type": "reject"}
    if choice.message.strip():
        decision["message"] = choice.message
    return decision


def review_answer(request: ReviewRequest, choices: Sequence[Choice]) -> Any:
    """The resume value for a review: ``{"decisions": [...]}``, or one decision per call.

    Raises:
        ReviewRefused: a choice the request does not allow, or edited arguments that are not a
            JSON object; nothing is sent then.
    """
    if len(choices) != len(request.actions):
        raise ReviewRefused(f"decide each of the {len(request.actions)} actions")
    decisions = [_decision(a, c) for a, c in zip(request.actions, choices, strict=True)]
    return decisions[0] if request.per_call else {"decisions": decisions}
