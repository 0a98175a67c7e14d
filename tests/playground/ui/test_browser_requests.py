"""What a page load asks of the network: nothing from any host but the playground's own server,
so a workshop offline sees the same pages, and nothing a person does there leaves the machine."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from playground.testing.browser import Tab, chromium_missing, playground_server

pytestmark = pytest.mark.skipif(chromium_missing(), reason="Debian's chromium is not installed")

WEB = {"http", "https", "ws", "wss"}  # a data: or blob: URL is no request to a host


def test_pages_request_nothing_from_another_host_and_the_icon_is_served_by_the_playground(
        browser, tmp_path):
    with playground_server(tmp_path) as server:
        page = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
        asked: list[str] = []
        page.on("request", lambda request: asked.append(request.url))
        tab = Tab(page, server).open()
        tab.open("history")
        tab.open("inspect")

        own = urlsplit(server).netloc
        elsewhere = sorted({urlsplit(url).netloc for url in asked
                            if urlsplit(url).scheme in WEB and urlsplit(url).netloc != own})
        assert elsewhere == [], elsewhere
        icon = page.locator("link[rel*='icon']").first.get_attribute("href") or ""
        assert icon and urlsplit(icon).netloc in ("", own), icon
        served = page.request.get(icon if urlsplit(icon).netloc else f"{server}{icon}")
        assert served.ok and served.headers["content-type"] == "image/png"
