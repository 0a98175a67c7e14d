"""The long-term store's settings from langgraph.json's ``store`` section (``index``, ``ttl``),
checked before anything runs; the place opens the store with them
(:meth:`playground.places.base.Place.open_store`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playground.apps.errors import AppLoadError

_TTL_KEYS = {"default_ttl": (int, float), "refresh_on_read": bool,
             "sweep_interval_minutes": int, "omit_expired": bool}
_INDEX_KEYS = {"dims", "embed", "fields"}


def _embedder(spec: str, base: Path | None) -> Any:
    """An embedding function named ``path.py:attr`` or ``module:attr``, or a provider string."""
    from playground.apps.loader import import_target, parse_spec

    where = spec.rpartition(":")[0]
    if "/" not in where and not where.endswith(".py") and "." not in where:
        return spec  # "openai:text-embedding-3-small": LangChain's init_embeddings reads it
    graph_spec = parse_spec(spec, base=base)
    function = getattr(import_target(graph_spec), graph_spec.attr, None)
    if not callable(function):
        raise AppLoadError(f"store.index.embed {spec!r} is not a function")
    return function


def store_options(config: dict | None, base: Path | None = None) -> dict[str, Any]:
    """``index`` and ``ttl`` for the store, from langgraph.json's ``store`` section.

    Raises:
        AppLoadError: a key the store does not take, or a value of the wrong type; one line.
    """
    if not config:
        return {}
    unknown = set(config) - {"index", "ttl"}
    if unknown:
        raise AppLoadError(f"store: unknown key {sorted(unknown)[0]!r} (the store takes 'index' "
                           "and 'ttl')")
    options: dict[str, Any] = {}
    ttl = config.get("ttl")
    if ttl is not None:
        if not isinstance(ttl, dict):
            raise AppLoadError("store.ttl must be an object, such as {\"default_ttl\": 60}")
        for key, value in ttl.items():
            kinds = _TTL_KEYS.get(key)
            if kinds is None:
                raise AppLoadError(f"store.ttl: unknown key {key!r} (it takes "
                                   f"{', '.join(sorted(_TTL_KEYS))})")
            if value is not None and (not isinstance(value, kinds) or (
                    kinds is not bool and isinstance(value, bool))):
                raise AppLoadError(f"store.ttl.{key} must be a "
                                   f"{'boolean' if kinds is bool else 'number'}, got {value!r}")
        options["ttl"] = dict(ttl)
    index = config.get("index")
    if index is not None:
        if not isinstance(index, dict) or "embed" not in index or "dims" not in index:
            raise AppLoadError("store.index needs 'embed' and 'dims' (and may name 'fields')")
        if set(index) - _INDEX_KEYS:
            raise AppLoadError(f"store.index: unknown key {sorted(set(index) - _INDEX_KEYS)[0]!r}")
        if not isinstance(index["dims"], int) or index["dims"] <= 0:
            raise AppLoadError(f"store.index.dims must be a positive integer, got "
                               f"{index['dims']!r}")
        if not isinstance(index["embed"], str):
            raise AppLoadError("store.index.embed must name an embedding: 'provider:model' or "
                               "'./file.py:function'")
        options["index"] = {**index, "embed": _embedder(index["embed"], base)}
    return options
