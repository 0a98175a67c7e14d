"""Which checkpoint databases the Inspect page may open, decided without Streamlit.

The page runs on a shared server, so a visitor must not be able to read arbitrary files on it.
Three rules keep that so:

* a file on the server is opened only from an allowed folder (``PLAYGROUND_INSPECT_DIR``, and
  the bundled samples); a name with ``..`` is refused outright, and the resolved path (symlinks
  followed) must still lie inside the folder, so a link cannot point elsewhere;
* an upload is size-limited, copied into a fresh private temporary folder and made read-only,
  and opened from there (never from a name the visitor chose);
* an imported thread export is written, through the same validation as ``playground import``,
  into a new SQLite file in such a private folder, and opened read-only from there;
* a URL (a Postgres database, an Agent Server) is the only other target, and reaches only
  what the rule every typed kind shares lets it (:mod:`playground.places.typed_targets`):
  never the server's own checkpoints, and on a server beyond loopback only what the person who
  started it allowed (``playground run --allow-url URL``). Every error of such a URL, a
  refusal or a failure to connect or read, is said through :func:`typed_error`, which beyond
  loopback says the same whatever lies at the address.

The server's own checkpoint file (``PLAYGROUND_CHECKPOINTS``) and its store beside it are
neither listed nor opened, should they lie in an allowed folder.

Whatever is opened is read through the safe decoder: nothing in it is imported or run.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import stat
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path

from playground.places.door import DEFAULT_CHECKPOINTS, UrlRefused, open_place
from playground.places.typed_targets import failure_said
from playground.timetravel.errors import CheckpointDbError

INSPECT_DIR_ENV = "PLAYGROUND_INSPECT_DIR"
CHECKPOINTS_ENV = "PLAYGROUND_CHECKPOINTS"  # the server's own checkpoint file
DEFAULT_INSPECT_DIR = Path(".playground") / "inspect"
# Inside the package, so a non-editable install (pip install .) has it too.
SAMPLES_DIR = Path(__file__).resolve().parents[1] / "samples"
DATABASE_SUFFIXES = (".sqlite", ".db")
UPLOAD_SUFFIXES = (".sqlite", ".sqlite3", ".db")
MAX_UPLOAD_MB = 50
MAX_UPLOAD_BYTES = MAX_UPLOAD_MB * 1024 * 1024
_UPLOAD_PREFIX = "playground-inspect-"
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


class AccessRefused(ValueError):
    """The target may not be opened; the message says why and what to do instead."""


@dataclass(frozen=True)
class AllowedFile:
    """A database file the page may open, and how to name it to a person."""

    path: Path
    label: str


def inspect_dir() -> Path:
    """The folder whose databases anyone on this server may inspect (``PLAYGROUND_INSPECT_DIR``)."""
    return Path(os.environ.get(INSPECT_DIR_ENV) or DEFAULT_INSPECT_DIR)


def allowed_roots() -> tuple[Path, ...]:
    """Folders files may be opened from: the bundled samples, then the inspect folder."""
    return (SAMPLES_DIR, inspect_dir())


def own_files() -> set[Path]:
    """The server's own checkpoint file (``PLAYGROUND_CHECKPOINTS``) and the store file the
    place keeps beside it, resolved: a page never opens them, whatever folder they lie in."""
    own = Path(os.environ.get(CHECKPOINTS_ENV) or DEFAULT_CHECKPOINTS)
    return {own.resolve(), Path(open_place(own).store_place()).resolve()}


def _inside(path: Path, roots: tuple[Path, ...]) -> Path | None:
    """The root that ``path`` lies in once every symlink is followed, or None."""
    resolved = path.resolve()
    for root in roots:
        if resolved.is_relative_to(root.resolve()):
            return root
    return None


def list_databases(roots: tuple[Path, ...] | None = None) -> list[AllowedFile]:
    """Database files directly inside the allowed folders (``*.sqlite``, ``*.db``).

    A symlink that leads out of its folder is left out: opening it would be refused anyway;
    so is the server's own checkpoint file (:func:`own_files`).
    """
    roots = allowed_roots() if roots is None else roots
    own = own_files()
    found: list[AllowedFile] = []
    for root in roots:
        if not root.is_dir():
            continue
        for entry in sorted(root.iterdir(), key=lambda p: p.name):
            if entry.suffix.lower() not in DATABASE_SUFFIXES or not entry.is_file():
                continue
            if _inside(entry, (root,)) is None or entry.resolve() in own:
                continue
            found.append(AllowedFile(entry, f"{root.name}/{entry.name}"))
    return found


def resolve_allowed(target: str | Path, roots: tuple[Path, ...] | None = None) -> Path:
    """The real path of a database file inside an allowed folder.

    Args:
        target: a file name relative to an allowed folder, or a path inside one.
        roots: the allowed folders (default: :func:`allowed_roots`).

    Raises:
        AccessRefused: the name has ``..``, leads outside every allowed folder (a symlink
            included), is not a ``.sqlite``/``.db`` file, does not exist, or is the server's
            own checkpoint file (:func:`own_files`).
    """
    roots = allowed_roots() if roots is None else roots
    path = Path(target)
    if ".." in path.parts:
        raise AccessRefused(f"{target}: '..' is not allowed; pick a file from the list")
    candidates = [path] if path.is_absolute() else [root / path for root in roots]
    where = ", ".join(str(root) for root in roots)
    for candidate in candidates:
        if _inside(candidate, roots) is None:
            # A missing name under one folder may exist under the next; anything that exists
            # (a dangling link too) and leads outside is refused.
            if path.is_absolute() or os.path.lexists(candidate):
                raise AccessRefused(
                    f"{target}: outside the folders that may be inspected ({where}); "
                    f"copy the file into {inspect_dir()} or upload it"
                )
            continue
        if candidate.suffix.lower() not in DATABASE_SUFFIXES:
            raise AccessRefused(f"{target}: only .sqlite and .db files can be opened")
        if candidate.is_file():
            if candidate.resolve() in own_files():
                raise AccessRefused(f"{target}: the playground's own checkpoints are not "
                                    "opened from a page (their threads are on History)")
            return candidate.resolve()
    raise AccessRefused(f"{target}: no such database file in {where}")


def check_upload_size(size: int, limit: int = MAX_UPLOAD_BYTES) -> None:
    """Refuse an upload larger than ``limit`` bytes.

    Raises:
        AccessRefused: the upload is too large; the message names the way around it.
    """
    if size > limit:
        raise AccessRefused(
            f"the upload is {size / 1024 / 1024:.1f} MB, over the {limit / 1024 / 1024:.0f} MB "
            f"limit: copy the file into {inspect_dir()} on the server and open it from the list"
        )


def _private_file(name: str, suffixes: tuple[str, ...], default_suffix: str) -> Path:
    """A path for ``name`` (made safe) inside a fresh private temporary folder."""
    stem = _SAFE_NAME.sub("-", Path(name).name).strip(".-") or "upload"
    if not stem.lower().endswith(suffixes):
        stem += default_suffix
    # The server's pid in the folder's name: `playground run` removes what a killed server left.
    folder = Path(tempfile.mkdtemp(prefix=f"{_UPLOAD_PREFIX}{os.getpid()}-"))
    _MADE.add(folder)
    return folder / stem


def save_upload(name: str, data: bytes, limit: int = MAX_UPLOAD_BYTES) -> Path:
    """Copy an uploaded database into a fresh private temporary folder, read-only.

    The copy is named after the upload with anything unusual replaced, inside a folder made for
    it alone, so SQLite's side files (``-wal``, ``-shm``) land there too and go with it.

    Raises:
        AccessRefused: the upload is over ``limit`` bytes. Nothing is written.
    """
    check_upload_size(len(data), limit)
    path = _private_file(name, UPLOAD_SUFFIXES, ".sqlite")
    path.write_bytes(data)
    path.chmod(stat.S_IRUSR)
    return path


def save_export(name: str, data: bytes, limit: int = MAX_UPLOAD_BYTES) -> tuple[Path, str]:
    """Import an uploaded thread export into a new private SQLite file, made read-only.

    The export is checked whole (format, version, every row) before anything is written, by
    the same code as ``playground import``; its blobs are copied, never decoded.

    Returns:
        The new file and the imported thread's id.

    Raises:
        AccessRefused: the upload is too large, or is not an export this page can open (the
            message says why; a Postgres export names the command that imports it).
    """
    from playground.timetravel.transfer import TransferRefused, import_thread, loads_export

    check_upload_size(len(data), limit)
    path = None
    try:
        export = loads_export(data.decode("utf-8", errors="replace"))
        # This page imports into a file only: say which command takes a Postgres export.
        if isinstance(export, dict) and export.get("storage") == "postgres":
            raise TransferRefused(
                "this export was written from a Postgres checkpoint database: import it into "
                "one with `playground import postgresql://... FILE`, then open it from the "
                "Postgres URL tab"
            )
        path = _private_file(Path(name).stem, (".sqlite",), ".sqlite")
        storage = open_place(path).reads(writable=True, create=True)
        try:
            report = import_thread(storage, export)
        finally:
            storage.close()
    except (TransferRefused, CheckpointDbError) as exc:
        if path is not None:
            discard_upload(path)  # the half-made file goes with its folder
        raise AccessRefused(f"{name}: {exc}") from None
    path.chmod(stat.S_IRUSR)
    return path, report.thread_id


def is_upload(path: str | Path) -> bool:
    """True for a copy made by :func:`save_upload`."""
    folder = Path(path).parent
    return folder.name.startswith(_UPLOAD_PREFIX) and folder.parent == Path(tempfile.gettempdir())


def discard_upload(path: str | Path) -> None:
    """Delete an upload's copy and its folder; anything else is left alone."""
    if is_upload(path):
        _MADE.discard(Path(path).parent)
        shutil.rmtree(Path(path).parent, ignore_errors=True)


class UploadHandle:
    """Owns an upload's copy for a browser session: the copy goes when the handle does.

    Kept in the session's state, it is freed when Streamlit drops the session (the tab closed)
    and the copy is deleted then, not left in the temporary folder; ``atexit`` deletes every
    copy still there when the server stops.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._finalizer = weakref.finalize(self, discard_upload, self.path)

    def discard(self) -> None:
        """Delete the copy now."""
        self._finalizer()


_MADE: set[Path] = set()


def _discard_all() -> None:
    for folder in list(_MADE):
        shutil.rmtree(folder, ignore_errors=True)
    _MADE.clear()


def discard_uploads_of(pid: int) -> None:
    """Delete the upload copies a server process left behind (one that was killed)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{_UPLOAD_PREFIX}{pid}-*"):
        shutil.rmtree(folder, ignore_errors=True)


atexit.register(_discard_all)


def check_typed_url(url: str) -> str:
    """The URL, stripped, when it names a place a page may open.

    Raises:
        AccessRefused: it is not a URL a page may be given (a file path typed here is refused,
            so the folder rule cannot be bypassed), it asks for more than a page may (a
            Postgres URL: host, port, user, password, database, sslmode and connect_timeout;
            :func:`playground.places.urls.typed_connection`), or it leads where a page may not
            reach (:mod:`playground.places.typed_targets`: the server's own checkpoints, and
            beyond loopback anything the person who started the server did not allow; then
            the message is one sentence, whatever the URL).
    """
    url = url.strip()
    try:
        open_place(url, typed=True)
    except UrlRefused as exc:
        raise AccessRefused(str(exc)) from None
    return url


def typed_error(exc: BaseException, label: str) -> str:
    """What the page says of any error of a URL typed into it (plain text: the page escapes
    it). Every such error goes through here: a refusal at the tab, a failure to open, a read
    that fails later, a download.

    A refusal (:class:`AccessRefused`, ``UrlRefused``) is said in the door's words, which
    beyond loopback are one sentence whatever the URL; a thread export's own refusal, about
    the thread and not the address, as it is; anything else is a failure to connect or read,
    said by :func:`playground.places.typed_targets.failure_said` (beyond loopback the same
    sentence for an open port, a closed one and a silent host).

    Args:
        exc: the error.
        label: the place's label (a URL's password is never said: the label is redacted).
    """
    from playground.timetravel.transfer import TransferRefused

    if isinstance(exc, (AccessRefused, UrlRefused, TransferRefused)):
        return str(exc)
    return failure_said(exc, label)
