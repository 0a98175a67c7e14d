"""langgraph.json's store section: what the store is given, and what is refused in one line."""

from __future__ import annotations

import pytest

from playground.apps.errors import AppLoadError
from playground.apps.store_config import store_options


def test_ttl_options_are_passed_to_the_store():
    assert store_options({"ttl": {"default_ttl": 60, "refresh_on_read": False}}) == {
        "ttl": {"default_ttl": 60, "refresh_on_read": False}}


@pytest.mark.parametrize(("section", "message"), [
    ({"ttl": {"default_ttl": "soon"}}, r"store.ttl.default_ttl must be a number"),
    ({"ttl": {"forever": True}}, r"store.ttl: unknown key 'forever'"),
    ({"index": {"dims": 8}}, r"store.index needs 'embed' and 'dims'"),
    ({"index": {"dims": -1, "embed": "a:b"}}, r"dims must be a positive integer"),
    ({"vectors": {}}, r"store: unknown key 'vectors'"),
])
def test_a_store_section_that_cannot_be_honoured_is_refused_in_one_line(section, message):
    with pytest.raises(AppLoadError, match=message):
        store_options(section)


def test_an_index_with_a_local_embedding_function_is_loaded_from_the_project(tmp_path):
    (tmp_path / "embed.py").write_text(
        "def embed(texts):\n    return [[float(len(t)), 1.0] for t in texts]\n")

    options = store_options({"index": {"dims": 2, "embed": "./embed.py:embed"}}, tmp_path)

    assert options["index"]["embed"](["abc"]) == [[3.0, 1.0]]
