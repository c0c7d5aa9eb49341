"""The fork server's own process (:mod:`metaeval.forkserver` starts it and its doors talk to it):
it imports the heavy libraries once, listens on the run's socket and forks a child per door's
request; the child takes the door's settings (umask, nice level, CPU affinity, resource limits),
environment, working directory, arguments and standard streams, and runs the door's script. Also
the messages the doors and the server exchange.

The server runs this file by its path (``runpy.run_path``), not as a module of the package, so that
the package's own modules are imported (and their contents recorded) only when it preloads them:
this module imports nothing of the project.
"""
from __future__ import annotations

import hashlib
import json
import os
import resource
import select
import signal
import socket
import struct
import sys
import time
from pathlib import Path

LIBRARY = "metaeval"
# Imported before the server takes its first job (what every job imports), then one by one while no
# job is waiting (what many import: numba with its compiler set up and this project first, as the
# scoring jobs come first), so that the first jobs of a run, which start about a second after the
# server, already start warm.
PRELOAD_FIRST = ("numpy", "pandas", "yaml", "snakemake.iocontainers")
PRELOAD_THEN = ("numba", LIBRARY, "scipy.special", "matplotlib.pyplot", "scipy.stats", "scipy.linalg", "sacrebleu")
IDLE_SECONDS = 60.0                     # a server no run ends (started by hand) exits after this long without jobs
SEND_SECONDS = 5.0                      # the longest a door's request may take to send, or the server to read it
BACKLOG = 64                            # doors queued beyond this find the server busy, and run cold
SWITCH = "METAEVAL_FORKSERVER"          # "0": every job starts cold
# Every resource limit a child takes from its door (RLIMIT_AS finite: the door runs cold instead).
LIMITS = tuple(sorted(name for name in dir(resource) if name.startswith("RLIMIT_")))
_HEADER = struct.Struct("!I")
# What a door receives: (kind, value). The child sends STARTED (its pid) once it has taken the
# door's settings, or COLD if it could not; then STATUS (its exit status). The server sends STATUS
# too when it reaps a child (the only sender for a child killed by a signal).
_MESSAGE = struct.Struct("!Bi")
STARTED, STATUS, COLD = 1, 2, 3
_GO = b"g"                              # the door's answer to STARTED: it waits for this job (no cold run)


def _receive(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        try:
            chunk = connection.recv(size - len(data))
        except (BlockingIOError, ConnectionResetError):
            break
        if not chunk:
            break
        data += chunk
    return data



# ----------------------------------------------------------------------------- the server's side

def serve(path: Path, owner: int, idle_seconds: float = IDLE_SECONDS) -> None:
    """Preload, listen on ``path`` (made visible only when ready), fork a child per request and send
    each door the status of its child when it is reaped; exit when the socket is gone, when the
    process ``owner`` (the run's Snakemake) is, or after ``idle_seconds`` without jobs."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    for name in PRELOAD_FIRST:
        _preload(name)
    later = list(PRELOAD_THEN)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    staging = path.with_name(f"{path.stem}.{os.getpid()}.tmp")
    listener.bind(str(staging))
    listener.listen(BACKLOG)
    os.replace(staging, path)
    inode = os.lstat(path).st_ino
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    doors: dict[int, socket.socket] = {}
    last = time.monotonic()
    while ((doors or time.monotonic() - last < idle_seconds) and os.getppid() == owner
           and _is_file(path, inode)):
        ready, _, _ = select.select([listener, wake_read], [], [], 0.0 if later else 1.0)
        if not ready and later:
            _preload(later.pop(0))
            continue
        if not ready and _library and _drop_stale_library(os.path.dirname(sys.modules[LIBRARY].__file__)):
            later.append(LIBRARY)       # an edited module: the library imported again, while idle
        if wake_read in ready:
            os.read(wake_read, 512)
        _reap(doors)
        if listener in ready:
            door, _ = listener.accept()
            pid = _fork_job(door, listener, (wake_read, wake_write), doors)
            if pid:
                doors[pid] = door
        if doors:
            last = time.monotonic()
    listener.close()    # doors still in the queue see the connection close, and run cold
    if _is_file(path, inode):
        path.unlink(missing_ok=True)
    log = path.with_suffix(".log")
    if log.exists() and not log.stat().st_size:
        log.unlink(missing_ok=True)


def _preload(name: str) -> None:
    """Import ``name``; for numba also compile one trivial function: numba sets up its compiler on
    the first compilation or cache load (about 0.25 s), which each job that loads a cached kernel
    would otherwise pay again. A library that fails to import is left to the job (which then
    reports the error as it would without the server)."""
    import importlib

    try:
        if name == LIBRARY:
            _preload_library()
            return
        module = importlib.import_module(name)
        if name == "numba":
            module.njit(lambda x: x + 1)(1)
    except Exception:
        pass


# This project's modules as the server imported them: name -> (file, SHA-256 of its contents), each
# taken before its import. A child whose door finds any of them changed, gone, or the package in
# another folder drops them all and imports the library afresh. Contents, not the file's time and
# size (Python's check of a cached .pyc): `cp -p`, `rsync -t` and `tar x` keep both across an edit.
_library: dict[str, tuple[str, bytes]] = {}


def _preload_library() -> None:
    import importlib
    import importlib.util
    import pkgutil

    package = importlib.import_module(LIBRARY)
    folder = os.path.dirname(package.__file__)
    _library[LIBRARY] = _digest(package.__file__)
    for info in pkgutil.walk_packages([folder], prefix=f"{LIBRARY}."):
        spec = importlib.util.find_spec(info.name)
        if spec is None or not spec.origin:
            continue
        before = _digest(spec.origin)
        try:
            importlib.import_module(info.name)
        except Exception:
            continue
        _library[info.name] = before


def _digest(path: str) -> tuple[str, bytes]:
    with open(path, "rb") as f:
        return path, hashlib.sha256(f.read()).digest()


def _drop_stale_library(folder: str | None) -> bool:
    """Forget the preloaded library unless every module is the file it was, in the door's folder
    (``folder``); whether it was forgotten."""
    loaded = sys.modules.get(LIBRARY)
    if loaded is None or not _library:
        return False
    current = folder is not None and os.path.dirname(loaded.__file__) == folder
    for path, digest in _library.values() if current else ():
        try:
            if _digest(path) != (path, digest):
                current = False
                break
        except OSError:
            current = False
            break
    if not current:
        for name in [n for n in sys.modules if n == LIBRARY or n.startswith(f"{LIBRARY}.")]:
            del sys.modules[name]
        _library.clear()
    return not current


def _is_file(path: Path, inode: int) -> bool:
    """Whether ``path`` is still this server's socket (it is removed when the run ends, or by a door
    that found the server not answering)."""
    try:
        return os.lstat(path).st_ino == inode
    except OSError:
        return False


def _send(connection: socket.socket, kind: int, value: int) -> None:
    try:
        connection.sendall(_MESSAGE.pack(kind, value))
    except OSError:
        pass


def _reap(doors: dict[int, socket.socket]) -> None:
    while doors:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        door = doors.pop(pid, None)
        if door is not None:
            code = os.waitstatus_to_exitcode(status)
            _send(door, STATUS, 128 - code if code < 0 else code)   # sent by the child already, unless killed
            door.close()


def _fork_job(door: socket.socket, listener: socket.socket, wake: tuple[int, int],
              doors: dict[int, socket.socket]) -> int:
    """Read a door's request and fork its child; 0 if the request came from another user, was broken
    or took longer than SEND_SECONDS (the door sees the connection close and runs cold)."""
    try:
        door.settimeout(SEND_SECONDS)       # a door killed before sending must not stall the server
        uid = struct.unpack("3i", door.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[1]
        if uid != os.getuid():
            raise OSError("not a request of this user's doors")
        header = _receive(door, _HEADER.size)
        if len(header) < _HEADER.size:
            raise OSError("not a request of a door")
        request = json.loads(_receive(door, _HEADER.unpack(header)[0]))
        door.settimeout(None)
    except (OSError, ValueError):
        door.close()
        return 0
    pid = os.fork()
    if pid:
        return pid
    # The child: nothing of the server's loop may run here again.
    try:
        listener.close()
        for other in doors.values():
            other.close()
        signal.set_wakeup_fd(-1)
        for fd in wake:
            os.close(fd)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        if not _take_settings(request):
            _send(door, COLD, 0)
            os._exit(0)
        _send(door, STARTED, os.getpid())
        # No time limit: a door that gave up waiting has closed its end (an empty read), and one
        # that read STARTED always answers.
        go, fds, _, _ = socket.recv_fds(door, len(_GO), 3)
        if go != _GO or len(fds) != 3:
            _send(door, COLD, 0)
            os._exit(0)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        code = _run_job(door, request)
        _send(door, STATUS, code)           # on the child's own connection: it reaches the door without the server
        os._exit(code)
    finally:
        os._exit(1)


def _take_settings(request: dict) -> bool:
    """Take the door's umask, nice level, CPU affinity and resource limits; whether all could be
    taken (an unprivileged process cannot lower its nice level or raise a hard limit)."""
    try:
        os.umask(request["umask"])
        if os.getpriority(os.PRIO_PROCESS, 0) != request["nice"]:
            os.setpriority(os.PRIO_PROCESS, 0, request["nice"])
        os.sched_setaffinity(0, request["affinity"])
        for name, (soft, hard) in request["limits"].items():
            if hasattr(resource, name):
                resource.setrlimit(getattr(resource, name), (soft, hard))
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return True


def _run_job(door: socket.socket, request: dict) -> int:
    import logging
    import runpy
    import tempfile
    import threading
    import traceback

    def watch_door():
        # The door closes its end when it exits or is killed: the job then ends too.
        try:
            while door.recv(1):
                pass
        except OSError:
            pass
        os.kill(os.getpid(), signal.SIGKILL)

    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    threading.Thread(target=watch_door, daemon=True).start()
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["environ"])
    os.environ[SWITCH] = "0"          # this process is the warm one: its door runs here
    sys.argv = request["argv"]
    sys.path[:] = request["path"]
    tempfile.tempdir = None           # found again from the door's TMPDIR
    _drop_stale_library(request.get("library"))
    code = 0
    try:
        runpy.run_path(request["script"], run_name="__main__")
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        if not isinstance(stop.code, (int, type(None))):
            print(stop.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        code = 1
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    return code


if __name__ == "metaeval_forkserver":
    serve(Path(sys.argv[1]), int(sys.argv[2]))
