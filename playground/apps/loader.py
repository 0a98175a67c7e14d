"""Load a user's graph from the spec the person starting the server typed.

A spec is ``PATH.py:ATTR`` (a file; any spec with ``/`` or ending in ``.py`` before the colon) or
``package.module:ATTR`` (importable from ``sys.path``). ATTR names a compiled graph, an
uncompiled ``StateGraph`` (compiled here), or a factory that returns either; a factory gets a
``RunnableConfig``, as LangGraph's own server calls it, and is called once per process. A
factory may be ``async def`` (awaited on the process's event loop) or return a context manager,
sync or async (entered, and held open until the graph is reloaded).

Specs come only from the command line or ``langgraph.json``, never from a browser: loading one
runs the user's code, which is the point, and is why nothing else may name one.

Every way a spec can fail is a :class:`AppLoadError` with one line naming the file or attribute
and the reason (a syntax error with its file and line), so ``playground run`` can print it and
exit 2 before it writes anything.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from langgraph.graph import StateGraph
from langgraph.pregel import Pregel

from playground.apps.errors import AppLoadError

__all__ = ["AppLoadError", "GraphSpec", "load_graph", "parse_spec", "reload_graph"]


@dataclass(frozen=True)
class GraphSpec:
    """Where a graph lives.

    Attributes:
        target: the file path (resolved) or the dotted module name.
        attr: the attribute holding the graph or its factory.
        is_file: True for a file path, False for a module.
        text: the spec as the user wrote it.
    """

    target: str
    attr: str
    is_file: bool
    text: str

    @property
    def default_name(self) -> str:
        """A name for the graph: the file's stem, or the module's last part."""
        return Path(self.target).stem if self.is_file else self.target.rsplit(".", 1)[-1]


def parse_spec(text: str, base: Path | None = None) -> GraphSpec:
    """Split ``PATH.py:ATTR`` or ``module:ATTR``.

    Args:
        text: the spec.
        base: the folder a relative file path is relative to (default: the working directory).

    Raises:
        AppLoadError: no ``:ATTR``, or an empty part.
    """
    where, sep, attr = text.strip().rpartition(":")
    if not sep or not where or not attr or not attr.isidentifier():
        raise AppLoadError(
            f"{text!r} is not a graph spec: write PATH.py:ATTR (a file) or package.module:ATTR, "
            "for example examples/support_chat.py:graph"
        )
    is_file = "/" in where or "\\" in where or where.endswith(".py")
    if is_file:
        path = Path(where).expanduser()
        if not path.is_absolute():
            path = (base or Path.cwd()) / path
        return GraphSpec(str(path.resolve()), attr, True, text)
    return GraphSpec(where, attr, False, text)


def _user_frame(exc: BaseException, file: str | None) -> str:
    """``file.py, line N`` of the deepest frame in the user's file (or of any frame)."""
    frames = traceback.extract_tb(exc.__traceback__)
    inside = [f for f in frames if file and Path(f.filename).resolve() == Path(file)]
    frame = (inside or frames or [None])[-1]
    return f"{frame.filename}, line {frame.lineno}" if frame else ""


def _import_file(path: Path) -> ModuleType:
    if not path.is_file():
        raise AppLoadError(f"{path}: no such file")
    if path.suffix != ".py":
        raise AppLoadError(f"{path}: not a Python file (.py)")
    # The file's folder goes on sys.path, as `python file.py` would do, so the graph's own
    # imports of its neighbours work, and its module name is its stem, as `import stem` gives:
    # the classes it defines then keep the module name their checkpoints already carry.
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = path.stem
    loaded = sys.modules.get(name)
    if loaded is not None and Path(getattr(loaded, "__file__", "") or "").resolve() == path:
        return loaded
    if loaded is not None:  # another module of that name is imported already: keep it
        name = f"playground_app_{abs(hash(str(path))):x}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise AppLoadError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(name, None)
        raise AppLoadError(
            f"{path}: syntax error at {exc.filename}, line {exc.lineno}: {exc.msg}"
        ) from None
    except Exception as exc:
        sys.modules.pop(name, None)
        where = _user_frame(exc, str(path))
        raise AppLoadError(
            f"{path}: importing it raised {type(exc).__name__}: {exc} ({where})"
        ) from None
    return module


def _import_module(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except SyntaxError as exc:
        raise AppLoadError(
            f"module {name}: syntax error at {exc.filename}, line {exc.lineno}: {exc.msg}"
        ) from None
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            raise AppLoadError(
                f"no module named {name!r} (is its package installed in this virtualenv, or "
                "its folder on PYTHONPATH? For a file, write path/to/file.py:ATTR)"
            ) from None
        raise AppLoadError(
            f"module {name}: importing it raised ModuleNotFoundError: {exc} "
            f"({_user_frame(exc, None)})"
        ) from None
    except Exception as exc:
        raise AppLoadError(
            f"module {name}: importing it raised {type(exc).__name__}: {exc} "
            f"({_user_frame(exc, None)})"
        ) from None


def import_target(spec: GraphSpec) -> ModuleType:
    """Import the spec's file or module (running its top-level code).

    Raises:
        AppLoadError: missing, not Python, a syntax error, or an exception while importing.
    """
    return _import_file(Path(spec.target)) if spec.is_file else _import_module(spec.target)


def _where(spec: GraphSpec) -> str:
    return spec.target if spec.is_file else f"module {spec.target}"


def _compiled(value: Any, spec: GraphSpec, what: str) -> Pregel | None:
    if isinstance(value, Pregel):
        return value
    if isinstance(value, StateGraph):
        try:
            return value.compile()
        except Exception as exc:
            raise AppLoadError(
                f"{_where(spec)}: {what} is a StateGraph that does not compile: "
                f"{type(exc).__name__}: {exc}"
            ) from None
    return None


def _wants_config(factory: Any, spec: GraphSpec) -> bool:
    """Whether a factory takes the RunnableConfig: a required argument, or one named or typed so.

    ``build_graph(checkpointer=None)`` is called with nothing: its argument is not a config.
    """
    try:
        parameters = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is inspect.Parameter.empty]
    if len(required) > 1:
        raise AppLoadError(
            f"{_where(spec)}: {spec.attr}() takes {len(required)} arguments; a graph factory "
            "takes none or one (a RunnableConfig)"
        )
    if required:
        return True
    return bool(positional) and (positional[0].name == "config"
                                 or "RunnableConfig" in str(positional[0].annotation))


# Context managers a factory returned, entered for the life of the process (as `langgraph
# dev` holds them), by the spec's text: a reload leaves the old ones once the new graph loaded.
_HELD: dict[str, list[tuple[str, Any]]] = {}


def _enter(made: Any, spec: GraphSpec) -> Any:
    """The graph an async or sync context manager yields, entered and held open."""
    from playground.event_loop import shared_loop

    if hasattr(made, "__aenter__"):
        graph = shared_loop().run(made.__aenter__())
        _HELD.setdefault(spec.text, []).append(("async", made))
    else:
        graph = made.__enter__()
        _HELD.setdefault(spec.text, []).append(("sync", made))
    return graph


def _release(held: list[tuple[str, Any]]) -> None:
    """Leave context managers a factory returned (the graph they gave is going away)."""
    from playground.event_loop import shared_loop

    for kind, manager in held:
        try:
            if kind == "async":
                shared_loop().run(manager.__aexit__(None, None, None))
            else:
                manager.__exit__(None, None, None)
        except Exception:  # the old graph's cleanup failing must not stop a reload
            pass


def _call_factory(factory: Any, spec: GraphSpec) -> Any:
    """Call a graph factory the way LangGraph's server does: with a RunnableConfig if it takes
    one; a coroutine is awaited and a context manager entered, on the process's event loop."""
    from playground.event_loop import shared_loop

    try:
        made = factory({"configurable": {}}) if _wants_config(factory, spec) else factory()
        if inspect.isawaitable(made):
            made = shared_loop().run(made)
        if hasattr(made, "__aenter__") or (
                hasattr(made, "__enter__") and not isinstance(made, (Pregel, StateGraph))):
            made = _enter(made, spec)
    except AppLoadError:
        raise
    except Exception as exc:
        raise AppLoadError(
            f"{_where(spec)}: the factory {spec.attr}() raised {type(exc).__name__}: {exc} "
            f"({_user_frame(exc, spec.target if spec.is_file else None)})"
        ) from None
    return made


def resolve_graph(module: ModuleType, spec: GraphSpec) -> Pregel:
    """The compiled graph the spec's attribute holds or makes.

    Raises:
        AppLoadError: the attribute is missing, not a graph, or a factory that fails.
    """
    if not hasattr(module, spec.attr):
        names = sorted(name for name, value in vars(module).items()
                       if not name.startswith("_") and (
                           isinstance(value, (Pregel, StateGraph))
                           or (inspect.isfunction(value)
                               and value.__module__ == module.__name__)))
        hint = f" (it has: {', '.join(names[:8])})" if names else ""
        raise AppLoadError(f"{_where(spec)} has no attribute {spec.attr!r}{hint}")
    value = getattr(module, spec.attr)
    graph = _compiled(value, spec, spec.attr)
    if graph is not None:
        return graph
    if callable(value) and not isinstance(value, type):
        made = _call_factory(value, spec)
        graph = _compiled(made, spec, f"what {spec.attr}() returned")
        if graph is not None:
            return graph
        raise AppLoadError(
            f"{_where(spec)}: {spec.attr}() returned a {type(made).__name__}, not a LangGraph "
            "graph (a compiled graph or a StateGraph)"
        )
    raise AppLoadError(
        f"{_where(spec)}: {spec.attr} is a {type(value).__name__}, not a LangGraph graph "
        "(a compiled graph, a StateGraph, or a function that returns one)"
    )


def load_graph(spec: GraphSpec) -> Pregel:
    """Import a spec's code and return its compiled graph.

    Raises:
        AppLoadError: any reason the spec does not give a graph; one line.
    """
    return resolve_graph(import_target(spec), spec)


def reload_graph(spec: GraphSpec, folders: tuple[Path, ...] = ()) -> Pregel:
    """Import the spec's file or module again (after the user changed it) and return its graph.

    Every module of the app's ``folders`` is imported afresh too (an edit of ``tools.py``
    counts as much as one of ``graph.py``).

    Raises:
        AppLoadError: as :func:`load_graph`; the modules imported before stay in place.
    """
    from playground.apps.sources import forget_modules

    name = Path(spec.target).stem if spec.is_file else spec.target
    previous = sys.modules.get(name)
    if previous is not None and spec.is_file and Path(
        getattr(previous, "__file__", "") or ""
    ).resolve() != Path(spec.target):
        previous = None  # a module of that name from elsewhere: not ours to reload
    if previous is not None:
        del sys.modules[name]
    dropped = forget_modules(folders)
    importlib.invalidate_caches()
    held = list(_HELD.get(spec.text, ()))
    try:
        graph = load_graph(spec)
    except AppLoadError:
        if previous is not None:
            sys.modules[name] = previous
        for module_name, module in dropped.items():
            sys.modules.setdefault(module_name, module)
        raise
    _HELD[spec.text] = _HELD.get(spec.text, [])[len(held):]
    _release(held)
    return graph
