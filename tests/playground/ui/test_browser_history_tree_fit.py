"""The History tree in Chromium, on a wide screen and on a phone: a refused write reads as
refused at its branch's tip, the hover card sits beside the hovered row (never over the rows
below it or the legend), and at 390 px on a touch screen a checkpoint's facts sit two by two
and no keyboard hint shows.

The ticket agent runs a turn and writes (``v2``); History then replays the paused checkpoint,
whose write goes out with the version read before it and meets a 412.
"""

from __future__ import annotations

import os

import pytest

from tests.playground.ui.browser import ShotTab, chromium_missing, playground_server

pytestmark = pytest.mark.skipif(
    chromium_missing() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (bash .ci/run installs it)",
)

PHONE = {"width": 390, "height": 2400}


@pytest.fixture(scope="module")
def refused_replay(tmp_path_factory, browser):
    """A ticket agent thread whose replay's write met a 412, and the server that ran it."""
    with playground_server(tmp_path_factory.mktemp("agent")) as url:
        tab = ShotTab(browser.new_context(viewport={"width": 1440, "height": 1900}), url).open()
        tab.open("agent").click("Run turn").click("Resume")
        tab.open("history").click("Previous")  # back to the pause before write
        tab.click("Replay from here")
        assert "outcome: 412" in tab.text(), tab.banners()
        tab.page.context.close()
        yield url, tab.room


def _history(browser, server: str, room: str, shots=None, **context) -> ShotTab:
    context.setdefault("viewport", {"width": 1440, "height": 1900})
    tab = ShotTab(browser.new_context(**context), server, shots)
    tab.room = room
    tab.open("history")
    tab.tree_point(1).wait_for()
    return tab


def _overlap(a: dict, b: dict) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def test_a_replay_whose_write_met_412_reads_412_refused_at_its_tip_in_the_tree(
        refused_replay, browser):
    tab = _history(browser, *refused_replay)

    drawn = tab.page.locator(".ht").first.inner_text()

    assert "head · 412 refused · replay of #4" in drawn
    assert "written v2 · original run" in drawn
    assert "finished" not in drawn


@pytest.mark.parametrize("viewport", [{"width": 1440, "height": 1900}, PHONE],
                         ids=["1440px", "390px"])
def test_the_hover_card_covers_neither_the_rows_below_nor_the_legend(refused_replay, browser,
                                                                      viewport):
    tab = _history(browser, *refused_replay, viewport=viewport)
    hovered = tab.tree_point(4)
    hovered.hover()
    card = tab.page.locator(".ht-tooltip")
    card.wait_for()

    box = card.bounding_box()

    assert "#4 loop · plan" in card.inner_text()
    for ordinal in (3, 2, 1):  # the rows drawn below #4
        assert not _overlap(box, tab.tree_point(ordinal).bounding_box()), ordinal
    assert not _overlap(box, tab.page.locator(".ht-legend").bounding_box())
    row = hovered.bounding_box()
    if viewport["width"] > 1000:  # room beside the drawing: level with the row
        assert box["y"] <= row["y"] + row["height"] and row["y"] <= box["y"] + box["height"]
        assert box["x"] >= tab.page.locator(".ht").bounding_box()["x"] + \
            tab.page.locator(".ht").bounding_box()["width"]


def test_on_a_touch_phone_the_facts_sit_two_by_two_and_no_key_hint_shows(refused_replay,
                                                                         browser, shots):
    tab = _history(browser, *refused_replay, shots, viewport=PHONE, has_touch=True,
                   is_mobile=True)
    facts = tab.page.locator('.st-key-checkpoint-facts [data-testid="stHorizontalBlock"]'
                             ).first.locator(':scope > [data-testid="stColumn"]')

    boxes = [cell.bounding_box() for cell in facts.all()]

    assert [cell.inner_text().split("\n")[0] for cell in facts.all()] == [
        "Source", "Step", "Next", "Stored"]
    assert len({round(b["x"]) for b in boxes}) == 2  # two columns
    assert len({round(b["y"]) for b in boxes}) == 2  # of two rows
    assert not tab.page.get_by_text("The Up and Down keys").is_visible()
    assert tab.page.locator('[data-testid="stBaseButton-secondary"] kbd').evaluate_all(
        "els => els.filter(e => e.getClientRects().length > 0).length") == 0
    tab.shot("history-touch-phone")


def test_with_a_mouse_the_key_hint_shows_at_any_width(refused_replay, browser):
    for viewport in ({"width": 1440, "height": 1900}, PHONE):
        tab = _history(browser, *refused_replay, viewport=viewport)

        assert tab.page.get_by_text("The Up and Down keys").is_visible(), viewport
        tab.page.context.close()


def test_in_compare_the_hover_card_stays_in_the_page_never_under_the_sidebar(refused_replay,
                                                                              browser):
    """Compare's tree fills the page's width: the card has no room to its right, and to its
    left lies the sidebar, which would hide it."""
    tab = _history(browser, *refused_replay)
    tab.segment("Compare")
    hovered = tab.tree_point(1)
    hovered.hover()
    card = tab.page.locator(".ht-tooltip")
    card.wait_for()

    box = card.bounding_box()
    main = tab.page.locator('[data-testid="stMain"]').bounding_box()

    assert "#1 input" in card.inner_text()
    assert box["x"] >= main["x"] and box["x"] + box["width"] <= main["x"] + main["width"]
