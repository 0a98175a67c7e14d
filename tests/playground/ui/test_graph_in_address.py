"""One graph per page, in its address (issue 51): on a server running several graphs of a
langgraph.json, the page's address carries the graph and the thread, so a sidebar link, a
reload, a bookmark or a new tab opens the graph and thread the page showed (AppTest)."""

from __future__ import annotations

from tests.playground.ui.conftest import EXAMPLES

CONFIG = EXAMPLES / "langgraph.json"  # support_chat first, research second


def _research_thread(at):
    """Pick the second graph, research, and run it once on thread-1."""
    at.selectbox(key="graph-picker").select("research").run()
    at.text_input(key="run-in-topic").input("forks")
    at.button(key="FormSubmitter:run-input-Run").click().run()
    assert not at.exception and "**Finished.**" in "\n".join(m.value for m in at.markdown)
    return at


def _sidebar_link(at, page: str):
    """Go to ``page`` as the sidebar's link does in a browser: its address holds no query."""
    for name in list(at.query_params):
        del at.query_params[name]
    return at.switch_page(page).run()


def _param(at, name: str) -> str:
    """The address's ``name`` as the page last wrote it (AppTest keeps a value or a list)."""
    value = at.query_params[name]
    return value[-1] if isinstance(value, list) else value


def _research_steps(ui, at) -> bool:
    """Whether History draws research's steps (its review and write), and none of
    support_chat's."""
    nodes = " ".join(str(row["node"]) for row in ui.tree(at)[1])
    return "review" in nodes and "write" in nodes and "assistant" not in nodes


def test_a_sidebar_link_keeps_the_picked_graph_and_writes_graph_and_thread_in_the_address(
        config_app, ui):
    at = _research_thread(config_app(CONFIG))

    _sidebar_link(at, "views/history.py")

    assert not at.exception
    assert at.selectbox(key="graph-picker").value == "research"
    assert "has no checkpoints yet" not in ui.texts(at)
    assert _research_steps(ui, at)
    assert _param(at, "graph") == "research" and _param(at, "thread") == "thread-1"
    for page in ("views/sizes.py", "views/run.py"):
        _sidebar_link(at, page)
        assert not at.exception
        assert at.selectbox(key="graph-picker").value == "research"
        assert _param(at, "graph") == "research"


def test_an_address_with_graph_and_thread_opens_that_graph_and_thread_on_history(
        config_app, ui):
    at = _research_thread(config_app(CONFIG))
    room = _param(at, "room")

    # A reload, a bookmark or a new tab: a new session, only the address.
    fresh = config_app(CONFIG, room=room, graph="research", thread="thread-1")
    fresh.switch_page("views/history.py").run()

    assert not fresh.exception
    assert fresh.selectbox(key="graph-picker").value == "research"
    assert _research_steps(ui, fresh)
    assert "has no checkpoints yet" not in ui.texts(fresh)


def test_the_pickers_graph_follows_an_address_naming_another_graph(config_app):
    at = config_app(CONFIG)
    assert at.selectbox(key="graph-picker").value == "support_chat"

    at.query_params["graph"] = "research"  # a link of another page, in the same session
    at.run()

    assert at.selectbox(key="graph-picker").value == "research"


def test_an_unknown_graph_in_the_address_says_so_escaped_and_opens_the_first(config_app, ui):
    at = config_app(CONFIG, graph="**nope**<b>")

    assert not at.exception
    said = [w.value for w in at.warning]
    assert any("runs no graph named" in text for text in said), said
    assert any(r"\*\*nope\*\*" in text for text in said), said  # shown as typed, not bold
    assert at.selectbox(key="graph-picker").value == "support_chat"
    assert _param(at, "graph") == "support_chat"
