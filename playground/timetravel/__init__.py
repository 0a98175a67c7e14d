"""The time-travel engine: read any place threads live as plain values.

It reads through :class:`~playground.timetravel.storage.Storage`, which each kind of place
implements (``playground/places/``), and runs no graph. Nothing here imports Streamlit or
speaks HTTP, or anything of the playground above it; the pages and the CLI call these modules
and render what they return. Prune, migrate and transfer change rows, through a writable
storage's primitives.

Where to look:
    storage.py       the read seam: what the engine asks of any place, with defaults
    decode.py        the one safe decoder: blobs to plain data, never importing or calling
    errors.py        what a read can raise (a database that is not one, an unknown thread)
    limits.py        the bounds of every read of untrusted data: deadline, rows, depth, text
    records.py       what one checkpoint is, as the engine sees it (pure)
    tree.py          the whole checkpoint tree of a thread, with forks, head and branch, and
                     the newest checkpoint of a branch that fits the graph as it is now
    display.py       a drawable view of a tree of any size (collapsed runs, DOT)
    sizes.py         bytes per checkpoint, resume-load vs stored, growth
    messages.py      chat messages in state, read as a conversation
    signals.py       interrupt questions, resume answers and node errors of a checkpoint
    store_items.py   items of a LangGraph store table beside the checkpoints, read as data
    diff.py          what changed between two states
    prune.py         delete old checkpoints or a branch (one flow over any Storage)
    migrate.py       find threads stranded by a schema change, rename a key to repair one
    transfer.py      export a thread to JSON and import it into a database of the same kind
"""
