"""The write tools: ``fork_with_edit``, ``replay_from`` and ``resume``, each the runtime's own
command (:mod:`playground.runtime.time_travel`; an answer to ``interrupt()`` as the Run page
sends it, :mod:`playground.runtime.run`), behind the debugger's own 412.

Every write names the head the assistant last read (``expected_head``: the head's full
checkpoint id or its ``#N``, as ``get_thread`` gives them). The thread is read first; when its
head is another checkpoint now (a run, a tab, another call wrote since), the write is refused
and nothing is written: the refusal names the new head (its ``#N``, its id, and the node or the
kind of write that made it) and says to read the thread again (:func:`check_head`). An edit is
validated as History validates it (:func:`~playground.apps.state_fields.validate_edit`, inside
the runtime's ``fork_with_edit``): a refused edit writes nothing. A node that raises is a tool
error of one sentence naming the node and its error, and what the run wrote before it stays as
LangGraph left it.

An answer says what was written: the new checkpoints (the first and the last, ``#N`` and id,
from the checkpoint the run started at), the head now, the nodes due there (paused, and the
question an ``interrupt()`` asks, or finished), and the state values at the head, read back
through the engine's safe decoder and cut to the read tools' caps.

Each function here runs on a write's worker thread (:meth:`~playground.mcp.writes.PlaceWrites.run`)
and reads the place through the server's reads, a storage opened for each look and closed
before the graph runs (a read's deadline starts when its storage opens).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from playground.apps.state_fields import EditRefused
from playground.mcp.answers import Answer, Refused, sentence_of
from playground.mcp.arguments import checkpoint_in
from playground.mcp.bounds import clip, cut, jsonable
from playground.mcp.checkpoints import named
from playground.mcp.reads import thread_tree
from playground.mcp.threads import ID_CAP, signal_json
from playground.mcp.writes import PlaceWrites
from playground.runtime import time_travel
from playground.runtime.run import GraphRun, Question, outcome_of, resume_command
from playground.timetravel.errors import UnknownThread, UnreadableCheckpoint
from playground.timetravel.storage import Storage
from playground.timetravel.thread_list import thread_named
from playground.timetravel.tree import CheckpointTree, ensure_details

# How each kind of write LangGraph records (a checkpoint's metadata ``source``) is said.
_MADE_BY = {"update": "an edit (update_state)", "fork": "a replay", "input": "new input",
            "loop": "a step"}


@dataclass(frozen=True)
class Thread:
    """A thread as a write found it, before writing.

    Attributes:
        thread_id: its stored id (a room's thread named as a page names it is read under it).
        asked: the id as the assistant gave it.
        tree: its checkpoints then.
        metadata: its head's metadata, as the engine decoded it.
    """

    thread_id: str
    asked: str
    tree: CheckpointTree
    metadata: Mapping[str, Any]

    def said(self, what: str) -> str:
        """``what``, said of the thread (and of its stored id when it was named otherwise)."""
        stored = (f" (thread {clip(self.asked)} is stored as {clip(self.thread_id)})"
                  if self.asked != self.thread_id else "")
        return what + stored


# -- the debugger's 412 ---------------------------------------------------------------------


def head_named(tree: CheckpointTree, expected_head: str) -> str:
    """The checkpoint ``expected_head`` names: a full checkpoint id, or ``#N``.

    Raises:
        Refused: neither (a part of an id is no head: another checkpoint may share it), or
            ``#N`` past the thread's checkpoints.
    """
    text = expected_head.strip()
    if text in tree.nodes:
        return text
    if text.startswith("#") and text[1:].isdigit():
        return argument_checkpoint(tree, text, "expected_head")
    raise Refused(f"expected_head {clip(text, 60)!r} is not a checkpoint of thread "
                  f"{clip(tree.thread_id)}: give the head's full checkpoint_id or its #N, as "
                  "get_thread shows them")


def argument_checkpoint(tree: CheckpointTree, text: str, argument: str) -> str:
    """The checkpoint an argument names (an id, a unique part of one, ``#N``).

    Raises:
        Refused: none, or several, match; said with the argument's name.
    """
    try:
        return checkpoint_in(tree, text)
    except ValueError as exc:
        raise Refused(f"{argument}: {sentence_of(exc)}") from None


def check_head(tool: str, storage: Storage, tree: CheckpointTree, expected_head: str) -> None:
    """Refuse a write whose ``expected_head`` is no longer the thread's head.

    Raises:
        Refused: the thread moved on (:func:`stale_sentence`), or ``expected_head`` names no
            checkpoint of it.
    """
    expected = head_named(tree, expected_head)
    if expected != tree.head:
        ensure_details(storage, tree, [tree.head])
        raise Refused(stale_sentence(tool, tree, expected))


def stale_sentence(tool: str, tree: CheckpointTree, expected: str) -> str:
    """Why a write on a thread that moved past ``expected`` wrote nothing, in one sentence:
    the new head's ``#N`` and id, what made it, and what to do."""
    head = tree.head
    record = tree.nodes[head]
    detail = tree.details.get(head)
    writers = detail.writers if detail else ()
    source = record.source or "unknown"
    who = (f"written by {', '.join(writers)} (source {source})" if writers
           else f"made by {_MADE_BY.get(source, source)} (source {source})")
    newer = len(tree) - tree.ordinal(expected)
    return (f"{tool} refused, nothing was written: thread {clip(tree.thread_id)} moved on since "
            f"you read it: its head is now #{tree.ordinal(head)} ({clip(head, 80)}), {who}, "
            f"{newer} checkpoint{'s' if newer != 1 else ''} newer than #"
            f"{tree.ordinal(expected)}, your expected_head; read the thread again with "
            "get_thread and decide on what it holds now")


def read_thread(writes: PlaceWrites, tool: str, thread_id: str, expected_head: str) -> Thread:
    """The thread as it is, checked to be still at ``expected_head``.

    Raises:
        UnknownThread: no such thread.
        Refused: the thread moved on, or ``expected_head`` names none of its checkpoints.
    """
    reads = writes.reads

    def look(storage: Storage) -> Thread:
        stored = thread_id
        try:
            tree = thread_tree(storage, thread_id, reads.trees)
        except UnknownThread:
            # a name as a page shows it, read on the storage already open (the CLI's rule)
            stored = thread_named(storage.thread_ids(), thread_id)
            if stored is None:
                raise
            tree = thread_tree(storage, stored, reads.trees)
        check_head(tool, storage, tree, expected_head)
        metadata = storage.checkpoint_metadata(stored, "", [tree.head]).get(tree.head, {})
        return Thread(stored, thread_id, tree, metadata if isinstance(metadata, Mapping) else {})

    return reads.read(look)


# -- the tools --------------------------------------------------------------------------------


def fork_with_edit(writes: PlaceWrites, *, thread_id: str, checkpoint: str,
                   values: dict[str, Any], expected_head: str, as_node: str | None = None
                   ) -> Answer:
    """Edit a checkpoint of a thread (a new ``update`` checkpoint, its child) and run the graph
    on from it: a new branch beside the old one (``fork_with_edit`` of the runtime).

    Raises:
        Refused: the thread moved on, the edit does not fit the state (nothing written), or the
            run failed in a node (what it wrote stays).
        UnknownThread: no such thread.
    """
    tool = "fork_with_edit"
    found = read_thread(writes, tool, thread_id, expected_head)
    origin = argument_checkpoint(found.tree, checkpoint, "checkpoint")
    graph = writes.graph_for(found.thread_id, found.metadata)
    try:
        result = time_travel.fork_with_edit(graph, _config(found.thread_id, origin), values,
                                            as_node=as_node or None)
    except EditRefused as exc:
        raise Refused(f"{tool} refused the edit, nothing was written: {sentence_of(exc)}"
                      ) from None
    except Exception as exc:  # the run: a node raised (or the place failed under it)
        raise Refused(failure_sentence(writes, tool, found, _error_text(exc))) from None
    keys = ", ".join(clip(str(key), 40) for key in values)
    return written(writes, found, origin, result.new_checkpoint_ids,
                   f"forked #{found.tree.ordinal(origin)} of thread {clip(found.thread_id)} "
                   f"with {clip(keys, 200)}", {"edited": sorted(map(str, values))})


def replay_from(writes: PlaceWrites, *, thread_id: str, checkpoint: str, expected_head: str
                ) -> Answer:
    """Re-run a thread from one of its checkpoints: a new branch beside the old one
    (``replay_from`` of the runtime).

    Raises:
        Refused: the thread moved on, or the run failed in a node (what it wrote stays).
        UnknownThread: no such thread.
    """
    tool = "replay_from"
    found = read_thread(writes, tool, thread_id, expected_head)
    origin = argument_checkpoint(found.tree, checkpoint, "checkpoint")
    graph = writes.graph_for(found.thread_id, found.metadata)
    try:
        result = time_travel.replay_from(graph, _config(found.thread_id, origin))
    except Exception as exc:  # the run: a node raised (or the place failed under it)
        raise Refused(failure_sentence(writes, tool, found, _error_text(exc))) from None
    return written(writes, found, origin, result.new_checkpoint_ids,
                   f"replayed thread {clip(found.thread_id)} from "
                   f"#{found.tree.ordinal(origin)}", {})


def resume(writes: PlaceWrites, *, thread_id: str, expected_head: str, answer: Any = None
           ) -> Answer:
    """Run a paused thread on from its head: with ``answer``, the answer to the
    ``interrupt()`` it waits on (``Command(resume=...)``, as the Run page sends it); without,
    the runtime's ``resume_thread``.

    Raises:
        Refused: the thread moved on, waits for an answer none was given for (or for none when
            one was), or the run failed in a node (what it wrote stays).
        UnknownThread: no such thread.
    """
    tool = "resume"
    found = read_thread(writes, tool, thread_id, expected_head)
    graph = writes.graph_for(found.thread_id, found.metadata)
    config = {"configurable": {"thread_id": found.thread_id}}
    try:
        before = outcome_of(graph, config)
    except Exception as exc:  # the saver could not give the thread's state back
        raise Refused(f"{tool} refused, nothing was written: the thread's state could not be "
                      f"read to resume it: {_error_text(exc)}") from None
    said = f"resumed thread {clip(found.thread_id)} from #{found.tree.ordinal(found.tree.head)}"
    if answer is None:
        if before.status == "waiting":
            question = before.questions[0]
            raise Refused(f"{tool} refused, nothing was written: thread "
                          f"{clip(found.thread_id)} waits for an answer ({question.node} asks "
                          f"{clip(question.text, 200)!r}): pass it as answer")
        result = time_travel.resume_thread(graph, found.thread_id)
        if not result.ok:
            raise Refused(failure_sentence(writes, tool, found, None, fallback=result.line))
        return written(writes, found, found.tree.head, None, said, {"ran": list(result.ran)})
    questions = [question for question in before.questions if not question.held]
    if not questions:
        why = ("it is held by a NodeInterrupt, which takes no answer: change the state with "
               "fork_with_edit, then resume without answer" if before.status == "held" else
               f"it waits for none ({clip(before.message, 200)}): resume it without answer")
        raise Refused(f"{tool} refused, nothing was written: thread {clip(found.thread_id)} "
                      f"takes no answer now: {why}")
    run = GraphRun(graph, config, resume_command(questions, _answers(tool, questions, answer)))
    try:
        ran = [step.node for step in run if step.kind == "update"]
    except Exception as exc:  # GraphRun says a node's failure in its outcome; anything else
        raise Refused(failure_sentence(writes, tool, found, _error_text(exc))) from None
    outcome = run.outcome
    if outcome is not None and outcome.status in ("failed", "recursion"):
        error = (f"{outcome.failure.error}" if outcome.failure is not None
                 else outcome.message)
        raise Refused(failure_sentence(writes, tool, found, clip(error, 300)))
    asked = ", ".join(dict.fromkeys(question.node for question in questions))
    return written(writes, found, found.tree.head, None, f"{said}, answering {asked}",
                   {"ran": ran})


def _answers(tool: str, questions: list[Question], answer: Any) -> dict[str | None, Any]:
    """The answer to each waiting question: the one answer, or one per interrupt id when
    several wait (an object mapping each interrupt_id to its answer)."""
    if len(questions) == 1:
        return {questions[0].interrupt_id: answer}
    ids = [question.interrupt_id for question in questions]
    if isinstance(answer, dict) and set(ids) <= set(answer):
        return {interrupt_id: answer[interrupt_id] for interrupt_id in ids}
    asked = "; ".join(f"{clip(str(q.interrupt_id), 40)}: {q.node} asks {clip(q.text, 60)!r}"
                      for q in questions[:5])
    raise Refused(f"{tool} refused, nothing was written: {len(questions)} questions wait "
                  f"({asked}): answer with an object mapping each interrupt_id to its answer")


def _config(thread_id: str, checkpoint_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": "",
                             "checkpoint_id": checkpoint_id}}


def _error_text(exc: BaseException) -> str:
    """An exception as ``Kind: first line of its message``."""
    said = sentence_of(exc)
    kind = type(exc).__name__
    return said if said == kind else f"{kind}: {said}"


# -- what a write says ------------------------------------------------------------------------


def failure_sentence(writes: PlaceWrites, tool: str, before: Thread, error: str | None,
                     fallback: str = "") -> str:
    """A run that stopped on an error, in one sentence: the node and its error (the error the
    thread's head stores, when the run raised none itself), what was written before it, and
    that the thread stays as LangGraph left it."""
    try:
        tree = writes.reads.read(lambda storage: thread_tree(storage, before.thread_id,
                                                             writes.reads.trees))
    except Exception:  # the place itself failed: say the run's error alone
        tree = None
    new = [cid for cid in tree.nodes if cid not in before.tree.nodes] if tree else []
    stored = next((signal for signal in tree.signals.get(tree.head, ())
                   if signal.kind == "error"), None) if tree else None
    if error is None and stored is None:
        # nothing failed: the runtime said why nothing ran (nothing to resume)
        wrote = "" if new else ", nothing was written"
        return f"{tool}: {fallback}{wrote}"
    where = f" in node {stored.node}" if stored is not None and stored.node else ""
    what = error if error is not None else clip(stored.text, 300)
    if len(new) > 1:
        wrote = (f"it wrote #{tree.ordinal(new[0])} to #{tree.ordinal(new[-1])} before it "
                 "stopped")
    elif new:
        wrote = f"it wrote #{tree.ordinal(new[0])} before it stopped"
    else:
        wrote = "nothing was written"
    return (f"{tool}: the run failed{where}: {what}; {wrote}, and the thread is as LangGraph "
            "left it: read it with get_thread")


def written(writes: PlaceWrites, before: Thread, origin: str, new_ids: tuple[str, ...] | None,
            what: str, extra: dict[str, Any]) -> Answer:
    """The answer of a write: the checkpoints it wrote (``new_ids``, oldest first; those the
    thread did not hold before when None), the head now, its next nodes and its values."""
    reads = writes.reads

    def look(storage: Storage) -> Answer:
        tree = thread_tree(storage, before.thread_id, reads.trees)
        if new_ids is None:
            ids = [cid for cid in tree.nodes if cid not in before.tree.nodes]
        else:
            ids = [cid for cid in new_ids if cid in tree.nodes]
        head = tree.head
        ensure_details(storage, tree, [head])
        detail = tree.details[head]
        try:
            state = storage.state(before.thread_id, head)
            values: dict[str, Any] | None = {key: cut(jsonable(value))
                                             for key, value in state.values.items()}
            problem = detail.problem
        except UnreadableCheckpoint as exc:
            values, problem = None, str(exc)
        questions = [signal_json(signal) for signal in tree.signals.get(head, ())
                     if signal.kind == "interrupt"]
        sibling = bool(before.tree.children.get(origin))
        data: dict[str, Any] = {
            "thread_id": cut(before.thread_id, ID_CAP),
            "branch": ({"from": named(tree, origin), "first": named(tree, ids[0]),
                        "last": named(tree, ids[-1]), "checkpoints": len(ids),
                        "new_branch": sibling} if ids else None),
            "head": {**named(tree, head), "source": tree.nodes[head].source,
                     "writers": list(detail.writers)},
            "next": list(detail.next),
            "paused": bool(detail.next),
            "questions": questions,
            **extra,
            "problem": problem,
            "values": values,
        }
        if ids:
            first, last = tree.ordinal(ids[0]), tree.ordinal(ids[-1])
            span = f"#{first}" if first == last else f"#{first} to #{last}"
            wrote = (f"wrote {span} ({len(ids)} checkpoint{'s' if len(ids) != 1 else ''}) "
                     + ("on a new branch" if sibling else "on its branch"))
        else:
            wrote = "wrote nothing"
        where = (f"paused before {', '.join(detail.next)}" if detail.next else "finished")
        for question in questions[:1]:
            where += f" ({question['node'] or 'the run'} asks: {clip(question['text'], 200)})"
        return Answer(before.said(f"{what}: {wrote}; head now #{tree.ordinal(head)}, {where}"),
                      data)

    return reads.read(look)
