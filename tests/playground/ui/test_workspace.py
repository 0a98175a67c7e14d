"""Rooms keep attendees apart: tenants and thread ids never cross from one room to another."""

from __future__ import annotations

import pytest

from playground.ui.workspace import Workspace, normalize_room


@pytest.mark.parametrize("thread", ["thread-1", "../other/thread-1", "other/thread-1", "", "/",
                                    "/other/thread-1", "/abc/x"])
def test_any_thread_name_stays_inside_its_room(thread):
    mine = Workspace("mine")

    thread_id = mine.thread_id(thread)

    assert thread_id.startswith("mine/")
    assert mine.thread_name(thread_id) == thread
    assert Workspace("other").thread_name(thread_id) is None


@pytest.mark.parametrize(
    ("code", "expected"),
    [("Monday-Class", "monday-class"), ("ab", None), ("a/b", None), ("../x", None),
     ("x" * 33, None), ("room 1", None), ("-lead", None)],
)
def test_room_codes_are_short_plain_names(code, expected):
    assert normalize_room(code) == expected


def test_each_room_is_its_own_api_tenant():
    assert Workspace("a").tenant != Workspace("b").tenant
    assert Workspace("a").tenant == "room-a"


def test_slash_names_a_thread_the_app_wrote_outside_every_room():
    mine = Workspace("mine")

    assert mine.thread_id("/chat-42") == "chat-42"
    assert mine.thread_name("chat-42") == "/chat-42"
    assert Workspace("other").thread_name("chat-42") == "/chat-42"


def test_in_the_debugger_a_threads_name_is_its_id_and_an_old_slash_link_still_opens():
    workspace = Workspace(None)

    assert workspace.thread_id("thread-1") == "thread-1"
    assert workspace.thread_id("4c1aef5cdc/thread-1") == "4c1aef5cdc/thread-1"  # as written
    assert workspace.thread_id("/abc") == "abc"
    assert workspace.thread_name("4c1aef5cdc/thread-1") == "4c1aef5cdc/thread-1"
    assert workspace.tenant == "debugger"
