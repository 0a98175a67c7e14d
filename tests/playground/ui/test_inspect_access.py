"""Which files the Inspect page may open: allowed folders, `..` and symlink escapes, uploads."""

from __future__ import annotations

import stat

import pytest

from playground.ui.inspect_access import (
    AccessRefused,
    check_typed_url,
    check_upload_size,
    discard_upload,
    inspect_dir,
    is_upload,
    list_databases,
    resolve_allowed,
    save_upload,
)


@pytest.fixture
def folders(tmp_path):
    """An allowed folder holding one database, and a secret file outside it."""
    allowed = tmp_path / "inspect"
    allowed.mkdir()
    (allowed / "app.sqlite").write_bytes(b"SQLite format 3\x00")
    (allowed / "notes.txt").write_text("not a database")
    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "secret.sqlite").write_bytes(b"SQLite format 3\x00")
    return allowed, outside


def test_file_in_the_allowed_folder_resolves_by_name_and_by_path(folders):
    allowed, _ = folders

    assert resolve_allowed("app.sqlite", (allowed,)) == (allowed / "app.sqlite").resolve()
    assert resolve_allowed(allowed / "app.sqlite", (allowed,)) == (allowed / "app.sqlite").resolve()


def test_dot_dot_is_refused_even_when_it_lands_back_inside(folders):
    allowed, _ = folders

    with pytest.raises(AccessRefused, match=r"'\.\.' is not allowed"):
        resolve_allowed("../private/secret.sqlite", (allowed,))
    with pytest.raises(AccessRefused, match=r"'\.\.' is not allowed"):
        resolve_allowed(f"../{allowed.name}/app.sqlite", (allowed,))


def test_absolute_path_outside_the_allowed_folders_is_refused(folders):
    allowed, outside = folders

    with pytest.raises(AccessRefused, match="outside the folders that may be inspected"):
        resolve_allowed(outside / "secret.sqlite", (allowed,))


def test_symlink_pointing_outside_is_refused_and_not_listed(folders):
    allowed, outside = folders
    (allowed / "link.sqlite").symlink_to(outside / "secret.sqlite")
    (allowed / "linked-dir").symlink_to(outside, target_is_directory=True)

    with pytest.raises(AccessRefused, match="outside the folders"):
        resolve_allowed("link.sqlite", (allowed,))
    with pytest.raises(AccessRefused, match="outside the folders"):
        resolve_allowed("linked-dir/secret.sqlite", (allowed,))
    assert [f.path.name for f in list_databases((allowed,))] == ["app.sqlite"]


def test_symlink_that_stays_inside_the_folder_is_allowed(folders):
    allowed, _ = folders
    (allowed / "alias.db").symlink_to(allowed / "app.sqlite")

    assert resolve_allowed("alias.db", (allowed,)) == (allowed / "app.sqlite").resolve()


def test_listing_shows_only_sqlite_and_db_files_with_their_folder(folders):
    allowed, _ = folders
    (allowed / "other.db").write_bytes(b"")

    listed = list_databases((allowed, allowed.parent / "missing"))

    assert [f.label for f in listed] == ["inspect/app.sqlite", "inspect/other.db"]


def test_other_suffixes_and_missing_files_are_refused(folders):
    allowed, _ = folders

    with pytest.raises(AccessRefused, match=r"only \.sqlite and \.db"):
        resolve_allowed("notes.txt", (allowed,))
    with pytest.raises(AccessRefused, match="no such database file"):
        resolve_allowed("gone.sqlite", (allowed,))


def test_inspect_dir_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("PLAYGROUND_INSPECT_DIR", str(tmp_path))
    assert inspect_dir() == tmp_path
    monkeypatch.delenv("PLAYGROUND_INSPECT_DIR")
    assert str(inspect_dir()) == ".playground/inspect"


def test_oversize_upload_is_refused_before_anything_is_written(monkeypatch, tmp_path):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))

    with pytest.raises(AccessRefused, match="over the 1 MB limit"):
        save_upload("big.sqlite", b"x" * (1024 * 1024 + 1), limit=1024 * 1024)
    with pytest.raises(AccessRefused, match="over the 50 MB limit"):
        check_upload_size(50 * 1024 * 1024 + 1)
    assert list(tmp_path.iterdir()) == []


def test_upload_is_saved_read_only_in_its_own_folder_and_discarded_with_it():
    path = save_upload("../../etc/my app.sqlite", b"SQLite format 3\x00")
    try:
        assert path.name == "my-app.sqlite"
        assert is_upload(path)
        assert path.read_bytes() == b"SQLite format 3\x00"
        assert not path.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    finally:
        discard_upload(path)
    assert not path.parent.exists()


def test_discard_leaves_files_that_are_not_uploads_alone(folders):
    allowed, _ = folders

    discard_upload(allowed / "app.sqlite")

    assert (allowed / "app.sqlite").exists()


def test_postgres_box_accepts_only_postgres_urls():
    assert check_typed_url(" postgresql://u:p@h/db ") == "postgresql://u:p@h/db"
    with pytest.raises(AccessRefused, match="starts with postgresql://"):
        check_typed_url("/etc/passwd")


def test_the_servers_own_checkpoint_file_in_an_allowed_folder_is_neither_listed_nor_opened(
        folders, monkeypatch):
    allowed, _ = folders
    own = allowed / "checkpoints.sqlite"
    own.write_bytes(b"SQLite format 3\x00")
    (allowed / "checkpoints.store.sqlite").write_bytes(b"SQLite format 3\x00")  # its store
    (allowed / "alias.db").symlink_to(own)
    monkeypatch.setenv("PLAYGROUND_CHECKPOINTS", str(own))

    assert [f.path.name for f in list_databases((allowed,))] == ["app.sqlite"]
    for name in ("checkpoints.sqlite", "checkpoints.store.sqlite", "alias.db", own):
        with pytest.raises(AccessRefused, match="the playground's own checkpoints"):
            resolve_allowed(name, (allowed,))
    assert resolve_allowed("app.sqlite", (allowed,)) == (allowed / "app.sqlite").resolve()
