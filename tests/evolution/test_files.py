"""Files that survive (evolution.files): a write is atomic and durable (the file and then its
directory fsynced), and a write that fails (a full disk, simulated) leaves the old file whole,
no temporary file, and a one-line WriteError naming the file meant."""

import errno
import os

import pytest

from evolution import files
from evolution.files import WriteError, fsync_directory, make_directory, write_atomic


def _fd_paths(monkeypatch):
    """Record what os.fsync is called on, as paths (Linux: /proc/self/fd)."""
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("needs /proc/self/fd to name a file descriptor")
    synced = []
    real = os.fsync

    def fsync(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return synced


def _full_disk(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_write_atomic_writes_text_and_bytes(tmp_path):
    write_atomic(tmp_path / "a.txt", "héllo\n")
    write_atomic(tmp_path / "b.bin", b"\x00\x01")
    assert (tmp_path / "a.txt").read_bytes() == "héllo\n".encode()
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "b.bin"]


def test_write_atomic_fsyncs_the_file_then_its_directory(tmp_path, monkeypatch):
    synced = _fd_paths(monkeypatch)
    write_atomic(tmp_path / "a.json", "{}")
    assert len(synced) == 2
    assert os.path.basename(synced[0]).startswith(".a.json.tmp")   # the data, before the rename
    assert synced[1] == str(tmp_path)                               # the rename, after it


def test_make_directory_fsyncs_each_parent_it_adds_an_entry_to(tmp_path, monkeypatch):
    synced = _fd_paths(monkeypatch)
    make_directory(tmp_path / "run" / "best")
    assert (tmp_path / "run" / "best").is_dir()
    assert synced == [str(tmp_path), str(tmp_path / "run")]
    synced.clear()
    make_directory(tmp_path / "run" / "best")   # already there: nothing to flush
    assert synced == []


@pytest.mark.parametrize("errno_", [errno.EINVAL, errno.EBADF])
def test_a_directory_that_cannot_be_fsynced_is_skipped_quietly(tmp_path, monkeypatch, errno_):
    def refuse(fd):
        raise OSError(errno_, os.strerror(errno_))
    monkeypatch.setattr(os, "fsync", refuse)
    fsync_directory(tmp_path)                  # no error
    monkeypatch.setattr(os, "open", _full_disk)
    fsync_directory(tmp_path)                  # cannot even open it (Windows): no error either


def test_a_directory_fsync_that_fails_for_real_is_an_error(tmp_path, monkeypatch):
    def eio(fd):
        raise OSError(errno.EIO, os.strerror(errno.EIO))
    monkeypatch.setattr(os, "fsync", eio)
    with pytest.raises(OSError):
        fsync_directory(tmp_path)


@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
def test_a_full_disk_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch, where):
    target = tmp_path / "checkpoint.json"
    target.write_text("the old checkpoint")
    if where == "write":
        real_open = open

        class Full:
            def __init__(self, f):
                self.f = f

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.f.close()

            def write(self, data):
                self.f.write(data[:10])   # some of it got there
                _full_disk()

        monkeypatch.setattr("builtins.open", lambda *a, **k: Full(real_open(*a, **k)))
    elif where == "fsync":
        monkeypatch.setattr(os, "fsync", _full_disk)
    else:
        monkeypatch.setattr(os, "replace", _full_disk)
    with pytest.raises(WriteError) as info:
        write_atomic(target, "the new checkpoint, longer than the space left")
    monkeypatch.undo()
    exc = info.value
    assert isinstance(exc, OSError) and exc.errno == errno.ENOSPC
    assert exc.filename == str(target)
    assert str(exc) == f"cannot write {target}: No space left on device"
    assert target.read_text() == "the old checkpoint"
    assert os.listdir(tmp_path) == ["checkpoint.json"]


def test_a_write_error_is_not_wrapped_twice(tmp_path, monkeypatch):
    def fails(fd):
        raise WriteError(errno.ENOSPC, "No space left on device", "elsewhere")
    monkeypatch.setattr(os, "fsync", fails)
    with pytest.raises(WriteError) as info:
        write_atomic(tmp_path / "x", "x")
    assert info.value.filename == "elsewhere"


def test_ctrl_c_while_writing_leaves_no_temporary(tmp_path, monkeypatch):
    def interrupted(*a):
        raise KeyboardInterrupt
    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(tmp_path / "x", "x")
    assert os.listdir(tmp_path) == []


def test_files_imports_nothing_of_ours():
    source = open(files.__file__).read()
    assert "import physics" not in source and "from ." not in source
