"""Errors the engine reports to a person, one clear line each."""


class CheckpointDbError(Exception):
    """The target is not a readable LangGraph checkpoint database, or lacks what was asked for."""


class UnknownThread(CheckpointDbError):
    """The database has no checkpoints for this thread."""


class UnreadableCheckpoint(CheckpointDbError):
    """A checkpoint's blob cannot be shown (broken, too large, too deep, or an unknown type)."""
