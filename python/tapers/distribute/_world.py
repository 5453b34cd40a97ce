"""The world: MPI start-up, ranks, failure handling and the waiting loop every
collective goes through.

Nothing here imports mpi4py until ``init()`` finds that the process was
started by ``mpiexec`` (or is handed a communicator): a script run alone is a
world of one and never loads MPI.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import subprocess
import sys
import threading
import time
import traceback
from types import TracebackType
from typing import Any, Callable, Optional

import numpy as np

from ..errors import OpError

# Environment variables by which launchers tell a process its rank and the world's size:
# MPICH's hydra and Slurm's PMI (PMI_*), Open MPI (OMPI_COMM_WORLD_*), PMIx launchers.
_RANK_VARS = ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK")
_SIZE_VARS = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE")


class StallError(OpError, TimeoutError):
    """A collective waited longer than the stall timeout: another rank never joined it
    (it skipped the call, or is stuck). ``TAPERS_DISTRIBUTE_TIMEOUT`` sets the timeout."""

    error_code = 4  # DEADLINE_EXCEEDED, TensorFlow's code for an operation that ran out of time


class _State:
    def __init__(self) -> None:
        self.initialized = False
        self.mpi: Any = None  # the mpi4py.MPI module, once loaded
        self.comm: Any = None  # None: a world of one
        self.rank = 0
        self.size = 1
        self.local_rank = 0
        self.local_size = 1
        self.timeout = float(os.environ.get("TAPERS_DISTRIBUTE_TIMEOUT", "300"))
        self.gradient_calls = 0
        self.sentinel: Optional[subprocess.Popen[bytes]] = None
        self.lock = threading.Lock()


_state = _State()


def _native_threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return -1


# Threads of this process when tapers.distribute was imported (numpy's BLAS pool): more
# at init() means tapers' own pool has started, and a fork would leave the child without it.
_THREADS_AT_IMPORT = _native_threads()


def _launched_rank() -> Optional[tuple[int, int]]:
    """(rank, size) as the launcher's environment gives them (size -1 when it does
    not say); None outside a launcher."""
    for rank_var, size_var in zip(_RANK_VARS, _SIZE_VARS):
        if rank_var in os.environ:
            return int(os.environ[rank_var]), int(os.environ.get(size_var, "-1"))
    return None


def init(comm: Any = None) -> None:
    """Starts the distributed world (``hvd.init()``); calling it again does nothing.

    Under ``mpiexec`` it initializes MPI through mpi4py and takes the rank and
    size from ``MPI.COMM_WORLD`` (or from ``comm``, an mpi4py communicator);
    started alone, or without mpi4py installed in a world of one process, it
    loads nothing and every collective returns its input.

    It also makes a failing rank end the whole job: an uncaught exception on
    any rank prints ``tapers.distribute: rank N raised ...`` with its
    traceback and aborts every rank (``MPI_Abort``, non-zero exit), and a rank
    that dies without raising (killed, crashed in native code) is named on
    stderr, with the signal, by its supervisor (on Linux ``init`` forks before
    MPI starts: the parent waits for the rank) while ``mpiexec`` ends the
    others. Call it before running ops: once tapers' thread pool has started
    it cannot fork, and a watcher process reports the first rank of the host
    to end instead.

    Parameters
    ----------
    comm : mpi4py communicator, optional
        The communicator to train over; default ``MPI.COMM_WORLD``.

    Returns
    -------
    None

    Raises
    ------
    ImportError
        When started by an MPI launcher with more than one rank but mpi4py is
        not installed (``pip install 'tapers[distributed]'``).
    """
    with _state.lock:
        if _state.initialized:
            return
        launched = _launched_rank()
        if comm is None and (launched is None or 0 <= launched[1] <= 1):
            _state.initialized = True  # a world of one; MPI is never loaded
            return
        try:
            import mpi4py  # noqa: F401 - the package only: MPI itself starts below, after _watch's fork
        except ImportError as e:
            raise ImportError(
                f"tapers.distribute: this process was started as rank {launched[0] if launched else '?'} by an "
                "MPI launcher, but mpi4py is not installed; install it with pip install 'tapers[distributed]'"
            ) from e
        if comm is None and launched is not None:
            _watch(launched[0])
        from mpi4py import MPI

        _state.mpi = MPI
        _state.comm = comm if comm is not None else MPI.COMM_WORLD
        _state.rank = _state.comm.Get_rank()
        _state.size = _state.comm.Get_size()
        local = _state.comm.Split_type(MPI.COMM_TYPE_SHARED, key=_state.rank)
        _state.local_rank, _state.local_size = local.Get_rank(), local.Get_size()
        local.Free()
        _install_excepthook()
        atexit.register(_goodbye)
        _state.initialized = True


def is_initialized() -> bool:
    """Whether ``init()`` has run.

    Returns
    -------
    bool
    """
    return _state.initialized


def _need_init(name: str) -> None:
    if not _state.initialized:
        raise ValueError(f"tapers.distribute.{name}() needs tapers.distribute.init() first (as Horovod's)")


def rank() -> int:
    """This process's rank in the world, 0 to ``size() - 1`` (``hvd.rank()``).

    Returns
    -------
    int
    """
    _need_init("rank")
    return _state.rank


def size() -> int:
    """The number of processes in the world (``hvd.size()``); 1 when run alone.

    Returns
    -------
    int
    """
    _need_init("size")
    return _state.size


def local_rank() -> int:
    """This process's rank among those on its host (``hvd.local_rank()``).

    Returns
    -------
    int
    """
    _need_init("local_rank")
    return _state.local_rank


def local_size() -> int:
    """The number of processes on this host (``hvd.local_size()``).

    Returns
    -------
    int
    """
    _need_init("local_size")
    return _state.local_size


# --- failures ---------------------------------------------------------------

_SENTINEL_CODE = r"""
import os, sys, time
rank, pid, host, marker = sys.argv[1:5]
data = b""
while True:
    try:
        chunk = os.read(0, 64)
    except InterruptedError:
        continue
    if not chunk:
        break
    data += chunk
if b"done" in data:
    sys.exit(0)
# The first rank of this host to fail claims the marker; the ranks mpiexec then ends
# find it taken and stay quiet, so the message names the rank that failed first.
try:
    os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
except OSError:
    sys.exit(0)
if b"abort" not in data:  # a rank that raised has already named itself
    try:
        os.write(2, ("tapers.distribute: rank %s (pid %s on %s) ended without finishing: killed by a signal or "
                     "crashed outside Python; mpiexec ends the other ranks\n" % (rank, pid, host)).encode())
    except OSError:
        pass
os.close(2)  # mpiexec waits for every holder of its output pipes
time.sleep(10)
os.unlink(marker)
"""


def _watch(rank: int) -> None:
    """Arranges for a rank that dies without raising to be named on stderr.

    On Linux, when no thread pool has started yet, the process forks: the
    parent (the process ``mpiexec`` started) only waits for the child, which
    goes on as the rank. When the rank is killed by a signal, the parent says
    which rank and which signal, then dies by that signal so that
    ``mpiexec`` ends the job; when the parent is killed (``mpiexec`` ending the
    job), the rank dies with it (``PR_SET_PDEATHSIG``). Elsewhere a watcher
    process reports the first rank of the host whose pipe closes, which under
    heavy load may be a rank that ``mpiexec`` ended a moment after the one that
    failed.
    """
    if (
        sys.platform.startswith("linux")
        and os.environ.get("TAPERS_DISTRIBUTE_SUPERVISOR", "1") != "0"
        and _THREADS_AT_IMPORT > 0
        and _native_threads() <= _THREADS_AT_IMPORT
        and threading.active_count() == 1
    ):
        _supervise(rank)
    else:
        _start_sentinel(rank)


def _supervise(rank: int) -> None:
    import ctypes
    import signal

    parent = os.getpid()
    sys.stdout.flush()
    sys.stderr.flush()
    child = os.fork()
    if child == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: die with the supervisor
        if os.getppid() != parent:
            os._exit(1)
        return
    # The supervisor: forward signals meant for the rank, wait, report, end as the rank did.
    # The supervisor keeps its copy of the rank's connection to mpiexec (PMI_FD) open: mpiexec
    # takes its closing as the rank's end, and must not act before the report below is written.
    for forwarded in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(forwarded, lambda signum, _frame: os.kill(child, signum))
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        import socket

        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        os.write(
            2,
            (
                f"tapers.distribute: rank {rank} (pid {child} on {socket.gethostname()}) was killed by {name}; "
                "mpiexec ends the other ranks\n"
            ).encode(),
        )
        _die_by(sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _die_by(sig: int) -> None:
    """Ends the supervisor by the signal that ended its rank.

    mpiexec's proxy ends the job at once when a rank it started dies by a
    signal; a rank that merely exits non-zero ends it only through the close
    of its PMI connection, and hydra skips that when it has already reaped
    the process (the report on stderr wakes it first, about one job in ten).
    Exiting with ``128 + sig`` left the surviving ranks to their stall timeout.
    """
    import resource
    import signal

    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGSEGV, SIGABRT: no core file of the supervisor
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # the two whose action cannot be set (nor blocked)
            signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
    except (OSError, ValueError):
        pass
    os._exit(128 + sig)  # a signal whose default action does not terminate


def _start_sentinel(rank: int) -> None:
    """Starts a tiny watcher process for this rank: it reads a pipe the rank holds
    open and, when the rank vanishes without saying goodbye (SIGKILL, a native
    crash), prints which rank it was. Python code cannot do that for itself,
    and ``mpiexec`` names only the pid."""
    import socket
    import tempfile

    host = socket.gethostname()
    # Ranks on one host share their parent (mpiexec's proxy): one marker per job and host.
    marker = os.path.join(tempfile.gettempdir(), f"tapers-distribute-{host}-{os.getppid()}.failed")
    try:
        _state.sentinel = subprocess.Popen(
            [sys.executable, "-S", "-c", _SENTINEL_CODE, str(rank), str(os.getpid()), host, marker],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            start_new_session=True,  # mpiexec's clean-up of the job must not kill the watcher first
        )
    except OSError:
        _state.sentinel = None
        return
    atexit.register(_dismiss_sentinel)


def _dismiss_sentinel(word: bytes = b"done") -> None:
    s = _state.sentinel
    if s is not None and s.stdin is not None:
        try:
            s.stdin.write(word)
            s.stdin.close()
        except OSError:
            pass
        _state.sentinel = None


def _install_excepthook() -> None:
    previous = sys.excepthook

    def hook(tp: type[BaseException], value: BaseException, tb: Optional[TracebackType]) -> None:
        if _state.comm is None or _state.size <= 1:
            previous(tp, value, tb)
        else:
            _abort_for(value, tb, "raised")

    sys.excepthook = hook
    # Exceptions escaping a thread end the job too: a rank whose worker thread died would hang the others.
    previous_thread = threading.excepthook

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None:
            where = args.thread.name if args.thread else "?"
            _abort_for(args.exc_value, args.exc_traceback, f"raised in thread {where}")
        previous_thread(args)  # only reached in a world of one

    threading.excepthook = thread_hook


def _abort_for(value: BaseException, tb: Optional[TracebackType], how: str) -> None:
    """Names the rank, prints the traceback, and aborts every rank of the job."""
    if _state.comm is None or _state.size <= 1:
        return
    text = "".join(traceback.format_exception(type(value), value, tb))
    sys.stderr.write(
        f"tapers.distribute: rank {_state.rank} of {_state.size} {how} {type(value).__name__}: {value}\n"
        f"{text}tapers.distribute: aborting all {_state.size} ranks\n"
    )
    sys.stderr.flush()
    _dismiss_sentinel(b"abort")  # the message above names this rank; the watcher keeps the others quiet
    # mpiexec forwards a rank's stderr asynchronously, and an abort tears the job
    # (and that forwarding) down: text still in the pipe is lost. Once in a fresh-clone
    # CI run a mismatch test saw an empty stderr from two aborting ranks. Give the
    # forwarder a moment to drain the message before the job ends.
    time.sleep(0.25)
    _state.comm.Abort(1)


# --- waiting ----------------------------------------------------------------


def _wait(requests: Any, what: str, between: Optional[Callable[[], None]] = None) -> None:
    """Waits for mpi4py requests (one or a list) by polling, so that Python
    signal handlers (Ctrl-C) still run and a collective another rank never
    joins ends in a ``StallError`` after the stall timeout instead of a hang.

    ``between`` runs once, after the first poll (the caller's overlapped work).
    """
    MPI = _state.mpi
    reqs = requests if isinstance(requests, list) else [requests]
    if MPI.Request.Testall(reqs):
        if between is not None:
            between()
        return
    if between is not None:
        between()
    start = time.monotonic()
    polls = 0
    while not MPI.Request.Testall(reqs):
        polls += 1
        if polls < 256:
            continue
        # MPI progresses only while polled, so a waiting rank keeps polling, but
        # yields its core between polls (a rank waiting on a slower one must not
        # spin against it when ranks share cores); sched_yield returns at once
        # when no other thread wants the core. Past a few ms it also sleeps, and
        # checks the stall timeout.
        waited = time.monotonic() - start
        if waited < 0.005:
            _yield()
            continue
        time.sleep(0.0001 if waited < 0.1 else 0.002)
        if waited > _state.timeout:
            raise StallError(
                None,
                None,
                f"tapers.distribute: rank {_state.rank} waited {_state.timeout:g} s in {what}, and another rank "
                "never joined it: every rank must make the same collective calls in the same order (a rank "
                "skipped a gradient() or allreduce, or is stuck). TAPERS_DISTRIBUTE_TIMEOUT sets the timeout.",
            )


_yield: Callable[[], None] = getattr(os, "sched_yield", lambda: time.sleep(0))


def _fingerprint(meta: Any) -> int:
    """A 62-bit hash of ``repr(meta)``, the same in every process (Python's ``hash``
    of strings is salted per process)."""
    return int.from_bytes(hashlib.blake2b(repr(meta).encode(), digest_size=8).digest(), "little") >> 2


def _exchange(obj: Any, what: str) -> list[Any]:
    """Every rank's ``obj`` (picklable), in rank order; non-blocking underneath, so
    a rank that never joins ends in a ``StallError`` rather than a hang."""
    import pickle

    comm, MPI = _state.comm, _state.mpi
    data = np.frombuffer(pickle.dumps(obj), dtype=np.uint8)
    n = np.array([data.size], dtype=np.int64)
    sizes = np.empty(_state.size, dtype=np.int64)
    _wait(comm.Iallgather(n, sizes), what)
    out = np.empty(int(sizes.sum()), dtype=np.uint8)
    _wait(comm.Iallgatherv(data, [out, sizes.tolist(), MPI.BYTE]), what)
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    return [pickle.loads(out[bounds[r] : bounds[r + 1]].tobytes()) for r in range(_state.size)]


def _check_same(what: str, detail: Any, mismatch: Callable[[list[Any]], Exception], fp: Optional[int] = None) -> None:
    """The handshake before a collective: every rank must be in the same call
    (``what``) with the same ``detail`` (shapes, dtypes). One 16-byte allreduce
    of a fingerprint when they are. When they are not, every rank learns so
    from that same allreduce, gathers the descriptions, and raises on every
    rank (so no rank is left waiting in a collective the others abandoned):
    ``mismatch(details)`` when all are in the same call, otherwise an
    ``InvalidArgumentError`` saying where each rank is. ``fp`` is the
    precomputed ``_fingerprint((what, detail))``."""
    h = _fingerprint((what, detail)) if fp is None else fp
    mine = np.array([h, -h], dtype=np.int64)
    out = np.empty(2, dtype=np.int64)
    _wait(_state.comm.Iallreduce(mine, out, op=_state.mpi.MAX), f"{what} (the shape and dtype handshake)")
    if out[0] == h and -out[1] == h:
        return
    metas = _exchange((what, detail, _state.gradient_calls), what)
    if len({m[0] for m in metas}) > 1:
        from ..errors import InvalidArgumentError

        where = "; ".join(f"rank {r} in {m[0]} (gradient calls so far: {m[2]})" for r, m in enumerate(metas))
        raise InvalidArgumentError(
            None,
            None,
            f"tapers.distribute: the ranks reached different collectives: {where}. Every rank must make the same "
            "collective calls in the same order.",
        )
    raise mismatch([m[1] for m in metas])


_END = "the end of the script"


def _goodbye() -> None:
    """At exit, the ranks meet once more: a rank that made fewer collective calls
    than the others (it skipped a ``gradient`` call) is caught here, naming
    both positions, instead of leaving the others waiting."""
    if _state.comm is None or _state.size <= 1:
        return
    try:
        _check_same(_END, None, lambda metas: AssertionError("unreachable"))
    except Exception as e:  # noqa: BLE001 - any failure here must end the job, not hang it
        _abort_for(e, None, "failed at exit with")
