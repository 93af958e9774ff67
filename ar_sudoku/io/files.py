"""Files the user names: read and written so that nothing is lost, destroyed or half-written.

Every output goes through :func:`output`: a regular file (or a new name) is
written under a temporary name made with ``mkstemp`` beside it (``O_EXCL``: it
can never be an existing file, an input or another output) and renamed into
place once complete; a target that is not a regular file (a FIFO, a character
device such as ``/dev/null``, ``/dev/stdout``) is written to directly, since
renaming over it would replace the device with a file. A symlink to a regular
file is followed, so the link survives and its target gets the new content.

OpenCV's path-taking calls (``imread``, ``imwrite``, ``VideoCapture``,
``FileStorage``) crash on a file name that is not valid UTF-8, so images are
encoded and decoded in memory and the bytes go through Python's own file I/O;
:func:`opencv_path` gives OpenCV a name it can take.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
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
    """The file a write lands in: a symlink's target (so the link is kept), else the path itself."""
    p = Path(path)
    return p.resolve() if p.is_symlink() else p


def check_output(path: Path, extensions: Collection[str] | None = None) -> None:
    """Refuse an output before any work: a bad extension, a missing or read-only folder, a folder."""
    if extensions is not None and path.suffix.lower() not in extensions:
        raise OutputError(f"{path}: unsupported extension; use one of {', '.join(sorted(extensions))}")
    if is_stream(path):
        return
    try:
        if path.is_dir():
            raise OutputError(f"{path}: is a folder")
        folder = real_target(path).parent
        if not folder.exists():
            raise OutputError(f"{path}: the folder {folder} does not exist")
    except OSError as exc:  # a name too long, a loop of links
        raise OutputError(f"{path}: cannot be written ({reason(exc)})") from exc
    if not os.access(folder, os.W_OK) or _read_only_mount(folder):  # a read-only mount refuses even root
        raise OutputError(f"{path}: the folder {folder} is not writable")


def check_folder(folder: Path) -> None:
    """Refuse a folder outputs cannot be written into (missing, read-only) before any work."""
    if not folder.is_dir():
        raise OutputError(f"{folder}: not a folder")
    if not os.access(folder, os.W_OK) or _read_only_mount(folder):
        raise OutputError(f"{folder}: the folder is not writable")


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


def temporary(path: Path) -> Path:
    """A new, empty, hidden file beside ``path`` (``.STEM.XXXXXXXX.part.EXT``) that no other file can be."""
    target = real_target(path)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{_safe_name(target.stem)}.", suffix=f".part{_safe_name(target.suffix)}",
                                    dir=target.parent)
    except OSError as exc:
        raise OutputError(f"{path}: cannot be written ({reason(exc)})") from exc
    os.close(fd)
    with contextlib.suppress(OSError):
        os.chmod(name, _new_mode(target))
    return Path(name)


def part_files(path: str | Path) -> list[Path]:
    """The temporary files of ``path`` left beside it (for tests and clean-up checks)."""
    p = Path(path)
    return sorted(p.parent.glob(f".{p.stem}.*.part{p.suffix}"))


def finish(tmp: Path, path: Path) -> None:
    """Give a complete temporary file its real name in one step (the target's own, behind a symlink)."""
    os.replace(tmp, real_target(path))


def discard(tmp: Path) -> None:
    with contextlib.suppress(OSError):
        tmp.unlink(missing_ok=True)


@contextlib.contextmanager
def output(path: str | Path, mode: str = "wb", encoding: str | None = None) -> Iterator[IO]:
    """``with output(p) as f: f.write(...)``: ``p`` holds the whole content or is untouched.

    Raises :class:`OutputError` when the file cannot be created and :class:`WriteError` when
    writing it fails; the temporary file is removed on every failure (and on Ctrl-C).
    """
    p = Path(path)
    if is_stream(p):
        try:
            f = open(p, mode, encoding=encoding)  # noqa: SIM115 - closed below, errors said in one line
        except OSError as exc:
            raise OutputError(f"{p}: cannot be written ({reason(exc)})") from exc
        try:
            with f:
                yield f
        except OSError as exc:
            raise WriteError(f"{p}: could not be written ({reason(exc)})") from exc
        return
    tmp = temporary(p)
    try:
        with open(tmp, mode, encoding=encoding) as f:
            yield f
        finish(tmp, p)
    except OSError as exc:
        discard(tmp)
        raise WriteError(f"{p}: could not be written ({reason(exc)}); nothing was left under that name") from exc
    except BaseException:
        discard(tmp)
        raise


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
