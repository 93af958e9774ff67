"""Files the user names: read and written so that nothing is lost, destroyed or half-written.

Every output goes through :func:`output`: a regular file (or a new name) is
written under a temporary name made with ``mkstemp`` beside it (``O_EXCL``: it
can never be an existing file, an input or another output) and renamed into
place once complete; a target that is not a regular file (a FIFO, a character
device such as ``/dev/null``, ``/dev/stdout``) is written to directly, since
renaming over it would replace the device with a file. A symlink to a regular
file is followed, so the link survives and its target gets the new content.

A FIFO is opened without blocking, retried in short naps until a reader opens
it (said once on stderr): a plain ``open()`` would wait in the kernel, where
Python retries it after every Ctrl-C or SIGTERM whose handler did not raise, so
the command could not be stopped. A name whose temporary name would not fit the
folder's 255 bytes gets a short one (``.ar-sudoku.XXXXXXXX.part.EXT``); a loop
of symbolic links, like any name the system refuses, is refused up front.

OpenCV's path-taking calls (``imread``, ``imwrite``, ``VideoCapture``,
``FileStorage``) crash on a file name that is not valid UTF-8, so images are
encoded and decoded in memory and the bytes go through Python's own file I/O;
:func:`opencv_path` gives OpenCV a name it can take.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import secrets
import stat
import sys
import time
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import IO

from ar_sudoku.errors import ArSudokuError


class OutputError(ArSudokuError):
    """An output refused up front (a missing or read-only folder, a bad name): bad input, exit 2."""


class WriteError(ArSudokuError):
    """An output that could not be written once the work was done (a full disk): exit 1."""

    exit_code = 1


def reason(exc: BaseException) -> str:
    """The one-line why of an OS error."""
    text = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return text.splitlines()[0]


def is_stream(path: str | Path) -> bool:
    """True for an existing target that is not a regular file (a FIFO, a device, a link to one):
    written to directly, never replaced."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def real_target(path: str | Path) -> Path:
    """The file a write lands in: a symlink's target (so the link is kept), else the path itself.

    Raises OSError (ELOOP) for a loop of links, which ``Path.resolve`` reports as a RuntimeError."""
    p = Path(path)
    if not p.is_symlink():
        return p
    try:
        return p.resolve()
    except RuntimeError as exc:  # Python < 3.13: "Symlink loop from ..."
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path)) from exc


def name_max(folder: Path) -> int:
    """The longest file name, in bytes, the folder's file system takes (255 almost everywhere)."""
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def check_output(path: Path, extensions: Collection[str] | None = None) -> None:
    """Refuse an output before any work: a bad extension, a missing or read-only folder, a folder."""
    if extensions is not None and path.suffix.lower() not in extensions:
        raise OutputError(f"{path}: unsupported extension; use one of {', '.join(sorted(extensions))}")
    if is_stream(path):
        return
    try:
        if path.is_dir():
            raise OutputError(f"{path}: is a folder")
        target = real_target(path)
        folder = target.parent
        if not folder.exists():
            raise OutputError(f"{path}: the folder {folder} does not exist")
        if len(os.fsencode(target.name)) > name_max(folder):
            raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), str(path))
    except OSError as exc:  # a name too long, a loop of links
        raise OutputError(f"{path}: cannot be written ({reason(exc)})") from exc
    if not os.access(folder, os.W_OK) or _read_only_mount(folder):  # a read-only mount refuses even root
        raise OutputError(f"{path}: the folder {folder} is not writable")


def check_folder(folder: Path) -> None:
    """Refuse a folder outputs cannot be written into (missing, read-only) before any work."""
    try:
        is_dir = folder.is_dir()
        real_target(folder)
    except OSError as exc:  # a loop of links, a name too long
        raise OutputError(f"{folder}: cannot be written into ({reason(exc)})") from exc
    if not is_dir:
        raise OutputError(f"{folder}: not a folder")
    if not os.access(folder, os.W_OK) or _read_only_mount(folder):
        raise OutputError(f"{folder}: the folder is not writable")


def ensure_folder(folder: Path) -> None:
    """An output folder (``--out-dir``) ready before any work: made when missing, as a file would be, only
    inside a folder that exists (``typo/a/b`` is refused, never a new tree of folders), then checked."""
    try:
        missing = not folder.exists() and not folder.is_symlink()
        parent = folder.parent
        if missing and not parent.is_dir():
            raise OutputError(f"{folder}: the folder {parent} does not exist")
        if missing:
            folder.mkdir()
    except OSError as exc:  # read-only, a name too long
        raise OutputError(f"{folder}: cannot be made ({reason(exc)})") from exc
    check_folder(folder)


def _read_only_mount(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


def _safe_name(name: str) -> str:
    """``name`` if it is valid UTF-8 (so any library can take the temporary name), else a stand-in."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "ar-sudoku"
    return name


def _new_mode(target: Path) -> int:
    """The permissions of the file being replaced, or what a plain ``open()`` would give a new one."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


SHORT_PREFIX = ".ar-sudoku."  # the temporary name of a target whose own name leaves no room for more


def _temporary_affixes(target: Path) -> tuple[str, str]:
    """``.STEM.`` and ``.part.EXT`` around mkstemp's 8 random characters, or a short prefix (and no
    extension if need be) where that would pass the folder's name limit: any legal name can be written."""
    prefix, suffix = f".{_safe_name(target.stem)}.", f".part{_safe_name(target.suffix)}"
    limit = name_max(target.parent)
    if len(os.fsencode(prefix + suffix)) + 8 > limit:
        prefix = SHORT_PREFIX
        if len(os.fsencode(prefix + suffix)) + 8 > limit:
            suffix = ".part"
    return prefix, suffix


def temporary(path: Path) -> Path:
    """A new, empty, hidden file beside ``path`` (``.STEM.XXXXXXXX.part.EXT``) that no other file can be.

    The name is chosen before the file is made (``O_EXCL``), not by ``tempfile.mkstemp``: a signal handled
    right after the file is made (Python runs handlers after each call) would leave it behind unnamed.
    """
    try:
        target = real_target(path)
        prefix, suffix = _temporary_affixes(target)
    except OSError as exc:
        raise OutputError(f"{path}: cannot be written ({reason(exc)})") from exc
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        name = os.path.join(target.parent, f"{prefix}{secrets.token_hex(4)}{suffix}")
        try:
            fd = os.open(name, flags, 0o600)
            os.close(fd)
            with contextlib.suppress(OSError):
                os.chmod(name, _new_mode(target))
            return Path(name)
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutputError(f"{path}: cannot be written ({reason(exc)})") from exc
        except BaseException:  # Ctrl-C, SIGTERM, even just after the file was made: no temporary file left
            with contextlib.suppress(OSError):
                os.unlink(name)
            raise
    raise OutputError(f"{path}: cannot be written (no free temporary name beside it)")


def part_files(path: str | Path) -> list[Path]:
    """The temporary files of ``path`` left beside it (for tests and clean-up checks), short names included."""
    p = Path(path)
    found = set(p.parent.glob(f".{glob.escape(p.stem)}.*.part{glob.escape(p.suffix)}"))
    found |= set(p.parent.glob(f"{SHORT_PREFIX}*.part*"))
    return sorted(found)


def finish(tmp: Path, path: Path) -> None:
    """Give a complete temporary file its real name in one step (the target's own, behind a symlink)."""
    os.replace(tmp, real_target(path))


def discard(tmp: Path) -> None:
    with contextlib.suppress(OSError):
        tmp.unlink(missing_ok=True)


WAIT_NAP = 0.05  # seconds between tries to open a FIFO that has no reader yet
WAIT_SAID = 1.0  # after this long without a reader, one line says what the command waits for


def open_stream_fd(path: str | Path) -> int:
    """A FIFO or device opened for writing, as a descriptor in blocking mode.

    A FIFO without a reader (``ENXIO`` when opened without blocking) is tried again every
    ``WAIT_NAP`` seconds; the naps let Ctrl-C and SIGTERM stop the command, and after ``WAIT_SAID``
    seconds one line on stderr says what it waits for.
    """
    flags = os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    start, said = time.monotonic(), False
    while True:
        try:
            fd = os.open(path, flags)
            break
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
        if not said and time.monotonic() - start >= WAIT_SAID:
            print(f"ar-sudoku: {path}: waiting for a reader of this FIFO (Ctrl-C stops)", file=sys.stderr, flush=True)
            said = True
        time.sleep(WAIT_NAP)
    os.set_blocking(fd, True)
    return fd


def open_stream(path: str | Path, mode: str = "wb", encoding: str | None = None) -> IO:
    """:func:`open_stream_fd` as a file object; :class:`OutputError` when it cannot be opened."""
    try:
        fd = open_stream_fd(path)
    except OSError as exc:
        raise OutputError(f"{path}: cannot be written ({reason(exc)})") from exc
    return open(fd, mode, encoding=encoding)  # noqa: SIM115 - the caller closes it


class Staged:
    """An output being written: ``file`` is a new temporary file beside the target, or the FIFO or
    device itself; :meth:`commit` gives the whole file its name, :meth:`discard` leaves the name as it was.

    For a command that reports each file it writes: everything that can wait (a FIFO's reader) or fail
    (a full disk) happens before the commit, which is one rename.
    """

    def __init__(self, path: str | Path, mode: str = "wb", encoding: str | None = None):
        self.path = Path(path)
        self.stream = is_stream(self.path)
        if self.stream:
            self.tmp = self.path
            self.file: IO = open_stream(self.path, mode, encoding)
            return
        self.tmp = temporary(self.path)
        try:
            self.file = open(self.tmp, mode, encoding=encoding)  # noqa: SIM115 - closed by commit or discard
        except OSError as exc:
            discard(self.tmp)
            raise OutputError(f"{self.path}: cannot be written ({reason(exc)})") from exc
        except BaseException:  # Ctrl-C, SIGTERM: no temporary file left
            discard(self.tmp)
            raise

    def write(self, data: bytes | str) -> None:
        """Write it all, flushed (so that :meth:`commit` has nothing left to write into a FIFO whose reader
        may be slow); on any failure or stop the temporary file is removed."""
        try:
            self.file.write(data)
            self.file.flush()
        except OSError as exc:
            self.discard()
            raise self._failed(exc) from exc
        except BaseException:
            self.discard()
            raise

    def commit(self) -> None:
        """Close the file and rename it into place; :class:`WriteError` (the name untouched) if that fails."""
        try:
            self.file.close()
            if not self.stream:
                finish(self.tmp, self.path)
        except OSError as exc:
            self.discard()
            raise self._failed(exc) from exc
        except BaseException:  # stopped between the close and the rename: no temporary file left
            self.discard()
            raise

    def discard(self) -> None:
        """Close and remove the temporary file (a FIFO or device is only closed)."""
        with contextlib.suppress(OSError):
            self.file.close()
        if not self.stream:
            discard(self.tmp)

    def _failed(self, exc: OSError) -> WriteError:
        if self.stream:
            return WriteError(f"{self.path}: could not be written ({reason(exc)})")
        return WriteError(f"{self.path}: could not be written ({reason(exc)}); nothing was left under that name")


@contextlib.contextmanager
def output(path: str | Path, mode: str = "wb", encoding: str | None = None) -> Iterator[IO]:
    """``with output(p) as f: f.write(...)``: ``p`` holds the whole content or is untouched.

    Raises :class:`OutputError` when the file cannot be created and :class:`WriteError` when
    writing it fails; the temporary file is removed on every failure (and on Ctrl-C).
    """
    staged = Staged(path, mode, encoding)
    try:
        yield staged.file
    except OSError as exc:
        staged.discard()
        raise staged._failed(exc) from exc
    except BaseException:
        staged.discard()
        raise
    staged.commit()


def write_bytes(path: str | Path, data: bytes) -> None:
    with output(path) as f:
        f.write(data)


def write_text(path: str | Path, text: str) -> None:
    with output(path, "w", encoding="utf-8") as f:
        f.write(text)


def encode_image(path: Path, img: object) -> bytes:
    """The image in the format ``path``'s extension names (PNG, JPEG, ...), encoded in memory."""
    import cv2

    ext = path.suffix.lower() or ".png"
    try:
        ok, buf = cv2.imencode(_safe_name(ext), img)
    except cv2.error:
        ok = False
    if not ok:
        raise OutputError(f"{path}: cannot encode an image as {ext}")
    return buf.tobytes()


def write_image(path: str | Path, img: object) -> None:
    """Encode and write an image atomically (any file name: no path reaches OpenCV)."""
    p = Path(path)
    write_bytes(p, encode_image(p, img))


def utf8_name(path: str | Path) -> bool:
    """Whether OpenCV can take this path (its bindings crash on a name that is not valid UTF-8)."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@contextlib.contextmanager
def opencv_path(path: str | Path) -> Iterator[str]:
    """A name OpenCV can open ``path`` by: the path itself, or for a name that is not valid UTF-8 the
    file through ``/proc/self/fd`` while the block runs (OpenCV opens its own handle meanwhile)."""
    if utf8_name(path):
        yield str(path)
        return
    if not os.path.isdir("/proc/self/fd"):
        raise ArSudokuError(f"{path}: the file name is not valid UTF-8; rename the file")
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        raise ArSudokuError(f"{path}: cannot be read ({reason(exc)})") from exc
    try:
        yield f"/proc/self/fd/{fd}"
    finally:
        os.close(fd)
