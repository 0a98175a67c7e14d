"""The assistant's tools: an address book it may read freely, and mail it may only send once a
person approved (the middleware in agent.py pauses before ``send_email``)."""

from __future__ import annotations

from langchain_core.tools import tool

CONTACTS = {
    "ana": "ana@example.org",
    "ben": "ben@example.org",
    "carla": "carla@example.org",
}
OUTBOX: list[dict] = []


@tool
async def find_contact(name: str) -> str:
    """Find a colleague's email address by their first name."""
    address = CONTACTS.get(name.strip().lower())
    return address or f"no contact named {name}"


@tool
async def send_email(to: str, subject: str, body: str) -> str:
    """Send an email. Needs a person's approval first."""
    OUTBOX.append({"to": to, "subject": subject, "body": body})
    return f"sent '{subject}' to {to}"


TOOLS = [find_contact, send_email]
