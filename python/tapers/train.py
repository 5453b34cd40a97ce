"""Checkpoints: save and restore Variables and optimizer state (``tf.train``).

Files are `safetensors <https://huggingface.co/docs/safetensors>`_, which
PyTorch (``safetensors.torch.load_file``) and the Hugging Face tools read.
"""

from __future__ import annotations

import glob
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from . import _core
from ._core import Variable
from .dtypes import int64

__all__ = [
    "Checkpoint", "CheckpointLoadStatus", "CheckpointManager", "CheckpointState", "ExponentialMovingAverage",
    "checkpoints_iterator", "get_checkpoint_state", "latest_checkpoint", "list_variables", "load_variable",
]  # fmt: skip

_FORMAT = "tapers.train.Checkpoint/1"


def _is_optimizer(obj: Any) -> bool:
    from .optimizers import Optimizer

    return isinstance(obj, Optimizer)


class _Graph:
    """The checkpoint's names: every Variable reachable from the root objects,
    with a path name (``key``, ``key/0``, ``key/sub/1``), and the optimizers."""

    def __init__(self, roots: Mapping[str, Any]) -> None:
        self.variables: dict[str, Variable] = {}
        self.optimizers: dict[str, Any] = {}
        self._seen: set[int] = set()
        for key, obj in roots.items():
            self._walk(key, obj)

    def _walk(self, name: str, obj: Any) -> None:
        from ._module import Module

        if isinstance(obj, Variable):
            if id(obj) not in self._seen:  # a Variable reachable twice is saved once, under its first path
                self._seen.add(id(obj))
                self.variables[name] = obj
        elif isinstance(obj, Module):
            self._walk_module(name, obj)
        elif _is_optimizer(obj):
            self.optimizers[name] = obj
            self.variables[f"{name}/iterations"] = obj.iterations
        elif isinstance(obj, Mapping):
            for k, v in obj.items():
                self._walk(f"{name}/{k}", v)
        elif isinstance(obj, (list, tuple)):
            for i, v in enumerate(obj):
                self._walk(f"{name}/{i}", v)
        elif hasattr(obj, "variables"):
            vs = obj.variables() if callable(obj.variables) else obj.variables
            self._walk(name, list(vs))
        else:
            raise ValueError(
                f"Checkpoint: `{name}` is a {type(obj).__name__}; expected a Variable, an optimizer, "
                "an object with `variables`, or a list/tuple/dict of those"
            )

    def _walk_module(self, name: str, module: Any) -> None:
        """A Module's object graph: its attributes (public ones first, each group sorted) that hold
        Variables, Modules, optimizers, or lists/tuples/dicts of them; paths are attribute names."""
        if id(module) in self._seen:
            return
        self._seen.add(id(module))
        ignored: frozenset[str] = getattr(module, "_TF_MODULE_IGNORED_PROPERTIES", frozenset())
        attrs = [k for k in vars(module) if k not in ignored]
        for key in sorted(attrs, key=lambda k: (k.startswith("_"), k)):
            value = vars(module)[key]
            if _holds_trackable(value):
                self._walk(f"{name}/{key}", value)

    def slot_names(self) -> dict[str, Variable]:
        """Optimizer slots, named by their optimizer and the variable they serve."""
        by_id = {id(v): n for n, v in self.variables.items()}
        out: dict[str, Variable] = {}
        for oname, opt in self.optimizers.items():
            for var, slots in list(opt._slots.values()):
                vname = by_id.get(id(var))
                if vname is None:
                    continue  # serves a variable this checkpoint does not hold
                for i, s in enumerate(slots):
                    out[f"{oname}/slots/{vname}/{i}"] = s
        return out


class CheckpointLoadStatus:
    """What ``Checkpoint.restore`` matched, as TensorFlow's load status.

    Attributes
    ----------
    restored : list of str
        The names restored from the file.
    unused : list of str
        Names in the file that nothing of the checkpoint took.
    """

    def __init__(self, restored: list[str], unused: list[str]) -> None:
        self.restored = restored
        self.unused = unused

    def assert_consumed(self) -> CheckpointLoadStatus:
        """Raises ``AssertionError`` if the file held values nothing was restored from."""
        if self.unused:
            raise AssertionError(f"Unresolved values in the checkpoint: {self.unused}")
        return self

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        """Every object of the checkpoint was restored (``restore`` already ensures it)."""
        return self

    def expect_partial(self) -> CheckpointLoadStatus:
        """Silences nothing: tapers never warns about unused values."""
        return self


class Checkpoint:
    """Groups Variables, optimizers, and lists/dicts/objects holding them, for
    saving and restoring (``tf.train.Checkpoint``).

    Parameters
    ----------
    **objects
        Named roots: a ``Variable``; an optimizer (its ``iterations`` and its
        slots, such as Adam's moments); a ``tapers.Module`` (or Keras layer or
        model: its object graph of attributes, so a model's kernel is
        ``model/dense/kernel``); another object with a ``variables``
        attribute or method; or a list, tuple or dict of these.

    Notes
    -----
    Differences from TensorFlow: the file is one safetensors file written to
    exactly the path given (TensorFlow writes ``prefix-N.index`` and data
    shards); names are paths of keys (``model/0``, ``opt/iterations``,
    ``opt/slots/model/0/1``) rather than TensorFlow's object-graph keys; and
    ``restore`` is strict: every Variable must be in the file with its shape
    and dtype, or nothing is restored.

    Examples
    --------
    >>> w = tf.Variable([1.0, 2.0])
    >>> opt = tf.optimizers.Adam(0.1)
    >>> ckpt = tf.train.Checkpoint(weights=[w], optimizer=opt)
    >>> path = ckpt.save("/tmp/model.safetensors")
    >>> w.assign([0.0, 0.0])
    >>> ckpt.restore(path).assert_consumed()
    """

    def __init__(self, **objects: Any) -> None:
        self._roots = objects
        _Graph(objects)  # reject unsupported objects now, not at save time
        self.save_counter = Variable(0, dtype=int64, trainable=False, name="save_counter")

    def write(self, path: str | os.PathLike[str]) -> str:
        """Writes every Variable (and optimizer slot) to ``path``; returns the path.

        The file is replaced atomically: a failed save leaves any previous file intact.
        """
        graph = _Graph(self._roots)
        items = [(n, v.value()) for n, v in graph.variables.items()]
        items += [(n, v.value()) for n, v in graph.slot_names().items()]
        items.append(("save_counter", self.save_counter.value()))
        _core._save_safetensors(os.fspath(path), items, {"format": _FORMAT})
        return os.fspath(path)

    def save(self, path: str | os.PathLike[str]) -> str:
        """Increments ``save_counter`` and writes to ``path`` (exactly that path,
        unlike TensorFlow's numbered prefixes); returns the path."""
        self.save_counter.assign_add(1)
        return self.write(path)

    def read(self, path: str | os.PathLike[str]) -> CheckpointLoadStatus:
        """Same as :meth:`restore`."""
        return self.restore(path)

    def restore(self, path: str | os.PathLike[str]) -> CheckpointLoadStatus:
        """Loads values from ``path`` into the Variables and optimizer slots.

        Everything is checked before anything is assigned: a missing file
        raises ``NotFoundError``; a truncated or corrupt one ``DataLossError``;
        a Variable missing from the file ``NotFoundError`` naming it; a shape
        or dtype that differs ``InvalidArgumentError`` naming the tensor and
        both shapes/dtypes. On any error, no Variable changes.

        Optimizer slots in the file are created (zeros) for the variables they
        serve, then filled, so training resumes exactly where it stopped.
        """
        path = os.fspath(path)
        items, _meta = _core._load_safetensors(path)
        values = dict(items)
        graph = _Graph(self._roots)
        targets: dict[str, Variable] = dict(graph.variables)
        # Slots recorded in the file for variables of this checkpoint.
        by_name = graph.variables
        for oname, opt in graph.optimizers.items():
            prefix = f"{oname}/slots/"
            for key in values:
                if key.startswith(prefix):
                    vname, _, index = key[len(prefix) :].rpartition("/")
                    if vname in by_name and index.isdigit():
                        slots = opt._slots_for(by_name[vname])
                        if int(index) < len(slots):
                            targets[key] = slots[int(index)]
        if "save_counter" in values:
            targets["save_counter"] = self.save_counter
        for name, var in targets.items():
            if name not in values:
                raise _not_found(
                    f"Checkpoint {path} has no value for '{name}' (a Variable of shape "
                    f"{list(var.shape)} and dtype {var.dtype.name})"
                )
            value = values[name]
            if value.dtype != var.dtype or list(value.shape) != list(var.shape):
                raise _invalid(
                    f"Checkpoint {path}: '{name}' has shape {list(value.shape)} and dtype {value.dtype.name}, "
                    f"but the Variable has shape {list(var.shape)} and dtype {var.dtype.name}"
                )
        for name, var in targets.items():
            var.assign(values[name])
        unused = sorted(set(values) - set(targets))
        return CheckpointLoadStatus(sorted(targets), unused)


# ---------------------------------------------------------------------------------------------
# The `checkpoint` state file, CheckpointManager and the directory helpers.

_STATE_FILE = "checkpoint"
_log = logging.getLogger("tapers.train")


class CheckpointState:
    """The contents of a directory's ``checkpoint`` state file (TensorFlow's ``CheckpointState`` proto).

    Parameters
    ----------
    model_checkpoint_path : str
        The newest checkpoint prefix.
    all_model_checkpoint_paths : list of str, optional
        The managed checkpoints, oldest first.
    all_model_checkpoint_timestamps : list of float, optional
        When each was written (seconds since the Epoch).
    last_preserved_timestamp : float, optional
        When the last checkpoint kept by ``keep_checkpoint_every_n_hours`` was written.

    Attributes
    ----------
    model_checkpoint_path : str
    all_model_checkpoint_paths : list of str
    all_model_checkpoint_timestamps : list of float
    last_preserved_timestamp : float
    """

    def __init__(
        self,
        model_checkpoint_path: str = "",
        all_model_checkpoint_paths: Iterable[str] | None = None,
        all_model_checkpoint_timestamps: Iterable[float] | None = None,
        last_preserved_timestamp: float = 0.0,
    ) -> None:
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths or [])
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps or [])
        self.last_preserved_timestamp = last_preserved_timestamp

    def __repr__(self) -> str:
        return _state_text(self)


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _unquote(s: str) -> str:
    if len(s) < 2 or s[0] != s[-1] or s[0] not in "\"'":
        raise ValueError(f"expected a quoted string, got {s}")
    out, i, body = [], 0, s[1:-1]
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            i += 1
            c = {"n": "\n", "t": "\t", "r": "\r"}.get(body[i], body[i])
        out.append(c)
        i += 1
    return "".join(out)


def _state_text(st: CheckpointState) -> str:
    """The text-format proto TensorFlow writes (``model_checkpoint_path: "ckpt-2"`` ...)."""
    lines = [f"model_checkpoint_path: {_quote(st.model_checkpoint_path)}"]
    lines += [f"all_model_checkpoint_paths: {_quote(p)}" for p in st.all_model_checkpoint_paths]
    lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in st.all_model_checkpoint_timestamps]
    if st.last_preserved_timestamp:
        lines.append(f"last_preserved_timestamp: {st.last_preserved_timestamp!r}")
    return "".join(line + "\n" for line in lines)


def _parse_state(text: str) -> CheckpointState:
    st = CheckpointState()
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        key, sep, value = line.partition(":")
        value = value.strip()
        if not sep:
            raise ValueError(f"not a `key: value` line: {raw!r}")
        if key == "model_checkpoint_path":
            st.model_checkpoint_path = _unquote(value)
        elif key == "all_model_checkpoint_paths":
            st.all_model_checkpoint_paths.append(_unquote(value))
        elif key == "all_model_checkpoint_timestamps":
            st.all_model_checkpoint_timestamps.append(float(value))
        elif key == "last_preserved_timestamp":
            st.last_preserved_timestamp = float(value)
        else:
            raise ValueError(f"unknown field {key!r}")
    return st


def get_checkpoint_state(
    checkpoint_dir: str | os.PathLike[str], latest_filename: str | None = None
) -> CheckpointState | None:
    """The directory's checkpoint state file, read (``tf.train.get_checkpoint_state``).

    Parameters
    ----------
    checkpoint_dir : str or path
        The directory a ``CheckpointManager`` saves in.
    latest_filename : str, optional
        The state file's name; default ``"checkpoint"``.

    Returns
    -------
    CheckpointState or None
        With ``model_checkpoint_path`` and ``all_model_checkpoint_paths`` joined to
        ``checkpoint_dir`` when relative; ``None`` if there is no state file, or it
        cannot be parsed (logged as a warning, as TensorFlow does). Raises
        ``ValueError`` if the file has no ``model_checkpoint_path``.
    """
    directory = os.fspath(checkpoint_dir)
    path = os.path.join(directory, latest_filename or _STATE_FILE)
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            st = _parse_state(f.read())
    except (ValueError, UnicodeDecodeError) as e:
        _log.warning("%s: %s: Checkpoint ignored", path, e)
        return None
    if not st.model_checkpoint_path:
        raise ValueError("Invalid checkpoint state loaded from " + directory)
    if not os.path.isabs(st.model_checkpoint_path):
        st.model_checkpoint_path = os.path.join(directory, st.model_checkpoint_path)
    st.all_model_checkpoint_paths = [
        p if os.path.isabs(p) else os.path.join(directory, p) for p in st.all_model_checkpoint_paths
    ]
    return st


def _checkpoint_exists(prefix: str) -> bool:
    # A tapers checkpoint is the file at the prefix; TensorFlow's is prefix.index.
    return os.path.isfile(prefix) or os.path.isfile(prefix + ".index")


def latest_checkpoint(checkpoint_dir: str | os.PathLike[str], latest_filename: str | None = None) -> str | None:
    """The newest checkpoint recorded in the directory's state file (``tf.train.latest_checkpoint``).

    Parameters
    ----------
    checkpoint_dir : str or path
        The directory a ``CheckpointManager`` saves in.
    latest_filename : str, optional
        The state file's name; default ``"checkpoint"``.

    Returns
    -------
    str or None
        The checkpoint's path (for ``Checkpoint.restore``), or ``None`` if there is no
        state file or the file it names is gone.
    """
    st = get_checkpoint_state(checkpoint_dir, latest_filename)
    if st is not None and st.model_checkpoint_path:
        if _checkpoint_exists(st.model_checkpoint_path):
            return st.model_checkpoint_path
        _log.error("Couldn't match files for checkpoint %s", st.model_checkpoint_path)
    return None


def checkpoints_iterator(
    checkpoint_dir: str | os.PathLike[str],
    min_interval_secs: float = 0,
    timeout: float | None = None,
    timeout_fn: Callable[[], bool] | None = None,
) -> Iterator[str]:
    """Yields each new latest checkpoint of a directory as it appears (``tf.train.checkpoints_iterator``).

    Parameters
    ----------
    checkpoint_dir : str or path
        The directory to watch (its state file, polled every second).
    min_interval_secs : float, default 0
        The least time between two yields.
    timeout : float, optional
        Seconds to wait for a new checkpoint; ``None`` waits forever.
    timeout_fn : callable, optional
        Called when ``timeout`` passes without a new checkpoint: iteration ends if it
        returns True, else waiting resumes. Without it, a timeout ends iteration.

    Returns
    -------
    iterator of str
        The checkpoint paths, each yielded once.
    """
    last: str | None = None
    while True:
        new = _wait_for_new_checkpoint(os.fspath(checkpoint_dir), last, timeout)
        if new is not None:
            start = time.time()
            last = new
            yield new
            left = start + min_interval_secs - time.time()
            if left > 0:
                time.sleep(left)
        elif timeout_fn is None:
            _log.info("Timed-out waiting for a checkpoint (without timeout_fn).")
            return
        if timeout_fn is not None and timeout_fn():
            _log.info("Done. No new checkpoints will be generated.")
            return


def _wait_for_new_checkpoint(directory: str, last: str | None, timeout: float | None, sleep: float = 1.0) -> str | None:
    stop = None if timeout is None else time.time() + timeout
    while True:
        path = latest_checkpoint(directory)
        if path is None or path == last:
            if stop is not None and time.time() + sleep > stop:
                return None
            time.sleep(sleep)
        else:
            return path


def _scalar_int(value: Any) -> int:
    return int(value.numpy()) if hasattr(value, "numpy") else int(value)


class CheckpointManager:
    """Saves numbered checkpoints in a directory, keeps the newest few, and records them in its
    ``checkpoint`` state file (``tf.train.CheckpointManager``).

    Parameters
    ----------
    checkpoint : Checkpoint
        What to save; its ``save_counter`` numbers the checkpoints.
    directory : str or path
        Where to save (created by the first save). A state file already there
        (from an earlier manager) is taken over, with its list of checkpoints.
    max_to_keep : int or None
        How many checkpoints to keep; older ones are deleted. ``None`` keeps all.
    keep_checkpoint_every_n_hours : float, optional
        Besides the newest ``max_to_keep``, keep (unlisted) one checkpoint per this many hours.
    checkpoint_name : str, default "ckpt"
        The files' prefix: ``directory/ckpt-1``, ``directory/ckpt-2``, ...
    step_counter : Variable, optional
        The training step; required with ``checkpoint_interval``.
    checkpoint_interval : int, optional
        The least number of steps between two saves.
    init_fn : callable, optional
        Called by :meth:`restore_or_initialize` when there is no checkpoint.
    last_checkpoint_step : int, optional
        The step of the last checkpoint, to count ``checkpoint_interval`` from.

    Attributes
    ----------
    directory : str
    checkpoint : Checkpoint
    checkpoint_interval : int or None
    latest_checkpoint : str or None
        The newest checkpoint's path.
    checkpoints : list of str
        The managed checkpoints, oldest first.

    Notes
    -----
    Differences from TensorFlow: each checkpoint is one safetensors file at exactly its
    prefix (``directory/ckpt-3``) where TensorFlow writes ``ckpt-3.index`` and
    ``ckpt-3.data-00000-of-00001``; the state file is TensorFlow's, in TensorFlow's text
    format, so either library's ``latest_checkpoint`` reads the other's.
    """

    def __init__(
        self,
        checkpoint: Checkpoint,
        directory: str | os.PathLike[str],
        max_to_keep: int | None,
        keep_checkpoint_every_n_hours: float | None = None,
        checkpoint_name: str = "ckpt",
        step_counter: Any = None,
        checkpoint_interval: int | None = None,
        init_fn: Callable[[], Any] | None = None,
        last_checkpoint_step: int | None = None,
    ) -> None:
        if not hasattr(checkpoint, "save_counter") or not hasattr(checkpoint, "write"):
            raise TypeError(f"CheckpointManager expects a tapers.train.Checkpoint; got a {type(checkpoint).__name__}")
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        self._checkpoint = checkpoint
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._directory = os.fspath(directory)
        self._checkpoint_prefix = os.path.join(self._directory, checkpoint_name)
        self._init_fn = init_fn
        self._step_counter = step_counter
        self._last_checkpoint_step = last_checkpoint_step
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint_interval = checkpoint_interval
        recovered = get_checkpoint_state(self._directory)
        now = time.time()
        self._maybe_delete: OrderedDict[str, float] = OrderedDict()
        if recovered is None:
            self._latest_checkpoint: str | None = None
            self._last_preserved_timestamp = now - 1.0
        else:
            self._latest_checkpoint = recovered.model_checkpoint_path
            self._last_preserved_timestamp = min(recovered.last_preserved_timestamp, now)
            stamps = recovered.all_model_checkpoint_timestamps or [self._last_preserved_timestamp] * len(
                recovered.all_model_checkpoint_paths
            )
            for filename, stamp in zip(recovered.all_model_checkpoint_paths, stamps):
                stamp = min(stamp, now)
                if stamp > self._last_preserved_timestamp:
                    self._maybe_delete[filename] = stamp

    @property
    def directory(self) -> str:
        """The directory checkpoints are saved in."""
        return self._directory

    @property
    def checkpoint(self) -> Checkpoint:
        """The managed ``Checkpoint``."""
        return self._checkpoint

    @property
    def checkpoint_interval(self) -> int | None:
        """The least number of steps between two saves."""
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self) -> str | None:
        """The newest checkpoint's path, or ``None``."""
        return self._latest_checkpoint

    @property
    def checkpoints(self) -> list[str]:
        """The managed checkpoints, oldest first (those kept by ``keep_checkpoint_every_n_hours`` are not listed)."""
        return list(self._maybe_delete)

    def save(self, checkpoint_number: Any = None, check_interval: bool = True, options: Any = None) -> str | None:
        """Saves a new checkpoint, records it in the state file and deletes the ones past ``max_to_keep``.

        Parameters
        ----------
        checkpoint_number : int or integer Variable/Tensor, optional
            The number in the file name; default the checkpoint's ``save_counter``
            (which is incremented either way).
        check_interval : bool, default True
            With ``checkpoint_interval``: skip the save unless that many steps have passed
            (a step already saved is never saved twice).
        options : None
            ``tf.train.CheckpointOptions`` are not supported; anything but ``None`` raises.

        Returns
        -------
        str or None
            The new checkpoint's path, or ``None`` when the interval skipped it.
        """
        if options is not None:
            raise NotImplementedError("tapers.train.CheckpointManager.save does not take CheckpointOptions")
        if self._checkpoint_interval is not None:
            step = _scalar_int(self._step_counter)
            if self._last_checkpoint_step is not None:
                if step == self._last_checkpoint_step:
                    return None
                if check_interval and step < self._last_checkpoint_step + self._checkpoint_interval:
                    return None
            self._last_checkpoint_step = step
        self._checkpoint.save_counter.assign_add(1)
        number = _scalar_int(self._checkpoint.save_counter if checkpoint_number is None else checkpoint_number)
        prefix = f"{self._checkpoint_prefix}-{number}"
        os.makedirs(self._directory, exist_ok=True)
        self._checkpoint.write(prefix)
        self._maybe_delete.pop(prefix, None)
        self._maybe_delete[prefix] = time.time()
        self._latest_checkpoint = prefix
        self._record_state()
        self._sweep()
        self._record_state()
        return prefix

    def restore_or_initialize(self) -> str | None:
        """Restores the newest checkpoint, or calls ``init_fn`` when there is none.

        Returns
        -------
        str or None
            The restored checkpoint's path, or ``None``.
        """
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = _scalar_int(self._step_counter)
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None

    def sync(self) -> None:
        """Waits for outstanding saves: tapers saves synchronously, so returns at once."""

    def _sweep(self) -> None:
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            filename, stamp = self._maybe_delete.popitem(last=False)
            hours = self._keep_checkpoint_every_n_hours
            if hours and stamp - hours * 3600.0 >= self._last_preserved_timestamp:
                self._last_preserved_timestamp = stamp
                continue
            for f in [filename, filename + ".index", *glob.glob(glob.escape(filename) + ".data-?????-of-?????")]:
                if os.path.isfile(f):
                    os.remove(f)

    def _record_state(self) -> None:
        def rel(p: str) -> str:
            return os.path.relpath(p, self._directory) if os.path.isabs(p) == os.path.isabs(self._directory) else p

        paths = [rel(p) for p in self._maybe_delete]
        latest = rel(self._latest_checkpoint or "")
        if not paths or paths[-1] != latest:
            paths.append(latest)
        st = CheckpointState(latest, paths, list(self._maybe_delete.values()), self._last_preserved_timestamp)
        if len(st.all_model_checkpoint_timestamps) != len(paths):
            st.all_model_checkpoint_timestamps = []
        target = os.path.join(self._directory, _STATE_FILE)
        tmp = f"{target}.tmp{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(_state_text(st))
        os.replace(tmp, target)


# ---------------------------------------------------------------------------------------------
# ExponentialMovingAverage

_FLOAT_NAMES = ("bfloat16", "float16", "float32", "float64")
_SHADOW_NAMES: set[str] = set()


def _unique_shadow_name(base: str) -> str:
    name, i = base, 0
    while name in _SHADOW_NAMES:
        i += 1
        name = f"{base}_{i}"
    _SHADOW_NAMES.add(name)
    return name


class ExponentialMovingAverage:
    """Keeps moving averages of Variables in shadow Variables (``tf.train.ExponentialMovingAverage``).

    Each :meth:`apply` updates ``shadow -= (1 - decay) * (shadow - variable)``.

    Parameters
    ----------
    decay : float or scalar Tensor
        The decay, typically close to 1 (0.999).
    num_updates : int or integer Variable, optional
        The number of updates so far (such as the training step): the decay used is then
        ``min(decay, (1 + num_updates) / (10 + num_updates))``, so early averages move faster.
    zero_debias : bool, default False
        As in TensorFlow, debiasing applies only to averages of non-Variable tensors, which
        eager TensorFlow and tapers refuse: for Variables it changes nothing.
    name : str, default "ExponentialMovingAverage"
        Suffix of the shadow Variables' names.

    Attributes
    ----------
    name : str
    """

    def __init__(
        self,
        decay: Any,
        num_updates: Any = None,
        zero_debias: bool = False,
        name: str = "ExponentialMovingAverage",
    ) -> None:
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages: dict[int, tuple[Variable, Variable]] = {}

    @property
    def name(self) -> str:
        """The shadow Variables' name suffix."""
        return self._name

    def apply(self, var_list: Iterable[Variable] | None = None) -> None:
        """Creates shadows (starting at the variables' values) for new variables and updates every shadow.

        Works inside ``tapers.function``; there, call it once eagerly first (or let the
        first trace create the shadows, which it does from the variables' current values).

        Parameters
        ----------
        var_list : list of Variable
            Floating-point Variables (``bfloat16``/``float16``/``float32``/``float64``).
            TensorFlow 2's default (the graph's trainable variables) does not exist in eager
            code: pass the list.

        Returns
        -------
        None
            Raises ``TypeError`` for a tensor that is not a Variable or an integer Variable.
        """
        import tapers as tf

        if var_list is None:
            raise ValueError(
                "ExponentialMovingAverage.apply needs `var_list`: eager code has no collection of "
                "trainable variables to default to"
            )
        var_list = list(var_list)
        for var in var_list:
            if not isinstance(var, Variable):
                raise TypeError(
                    "tf.train.ExponentialMovingAverage does not support non-Variable tensors when eager "
                    f"execution is enabled (got a {type(var).__name__})."
                )
            if var.dtype.name not in _FLOAT_NAMES:
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
        for var in var_list:
            if id(var) not in self._averages:
                with tf.init_scope():
                    base = var.name[: -len(":0")] if var.name.endswith(":0") else var.name
                    avg = Variable(var.value(), trainable=False, name=_unique_shadow_name(f"{base}/{self._name}"))
                self._averages[id(var)] = (var, avg)
        decay = tf.cast(tf.convert_to_tensor(self._decay), tf.float32)
        if self._num_updates is not None:
            n = tf.cast(self._num_updates, tf.float32)
            decay = tf.minimum(decay, (1.0 + n) / (10.0 + n))
        one_minus = 1.0 - decay
        for var in var_list:
            avg = self._averages[id(var)][1]
            avg.assign_sub((avg - var) * tf.cast(one_minus, var.dtype))

    def average(self, var: Variable) -> Variable | None:
        """The shadow Variable of ``var``, or ``None`` if :meth:`apply` never saw it.

        Parameters
        ----------
        var : Variable

        Returns
        -------
        Variable or None
        """
        entry = self._averages.get(id(var))
        return None if entry is None or entry[0] is not var else entry[1]

    def average_name(self, var: Variable) -> str:
        """The shadow Variable's name (without ``:0``): ``"w/ExponentialMovingAverage"`` for ``w``.

        Parameters
        ----------
        var : Variable

        Returns
        -------
        str
            The existing shadow's name; for a variable not yet applied, the name its
            shadow would get.
        """
        avg = self.average(var)
        if avg is not None:
            return avg.name[: -len(":0")] if avg.name.endswith(":0") else avg.name
        base = f"{var.name[: -len(':0')] if var.name.endswith(':0') else var.name}/{self._name}"
        name, i = base, 0
        while name in _SHADOW_NAMES:
            i += 1
            name = f"{base}_{i}"
        return name

    def variables_to_restore(self, moving_avg_variables: Any = None) -> dict[str, Variable]:
        """Maps each shadow's name to the variable it averages (as TensorFlow's, for
        restoring averages into the variables with a name-based saver).

        Parameters
        ----------
        moving_avg_variables : list of Variable, optional
            Restrict to these; default every averaged variable.

        Returns
        -------
        dict of str to Variable
        """
        wanted = None if moving_avg_variables is None else {id(v) for v in moving_avg_variables}
        return {
            self.average_name(var): var
            for key, (var, _avg) in self._averages.items()
            if wanted is None or key in wanted
        }


CheckpointManager.__module__ = "tapers.train"
ExponentialMovingAverage.__module__ = "tapers.train"


def _holds_trackable(value: Any, depth: int = 0) -> bool:
    from ._module import Module

    if isinstance(value, (Variable, Module)) or _is_optimizer(value):
        return True
    if depth > 8:
        return False
    if isinstance(value, Mapping):
        return any(_holds_trackable(v, depth + 1) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_trackable(v, depth + 1) for v in value)
    return False


def _checkpoint_file(path: str | os.PathLike[str]) -> str:
    path = os.fspath(path)
    if os.path.isdir(path):
        raise _invalid(f"{path} is a directory; tapers checkpoints are single safetensors files")
    return path


def list_variables(ckpt_path: str | os.PathLike[str]) -> list[tuple[str, list[int]]]:
    """The ``(name, shape)`` of every value in a checkpoint file (``tf.train.list_variables``).

    Parameters
    ----------
    ckpt_path : str or path
        A file written by ``Checkpoint.save``/``write``.

    Returns
    -------
    list of (str, list of int)
        Sorted by name. Names are tapers' paths (``model/dense/kernel``),
        not TensorFlow's ``.../.ATTRIBUTES/VARIABLE_VALUE`` keys.
    """
    items, _meta = _core._load_safetensors(_checkpoint_file(ckpt_path))
    return sorted((name, list(value.shape)) for name, value in items)


def load_variable(ckpt_path: str | os.PathLike[str], name: str) -> Any:
    """One value of a checkpoint file (``tf.train.load_variable``).

    Parameters
    ----------
    ckpt_path : str or path
        A file written by ``Checkpoint.save``/``write``.
    name : str
        A name from :func:`list_variables`.

    Returns
    -------
    numpy.ndarray
        Raises ``NotFoundError`` if the file has no value of that name.
    """
    items, _meta = _core._load_safetensors(_checkpoint_file(ckpt_path))
    values = dict(items)
    if name not in values:
        raise _not_found(f"Key {name} not found in checkpoint {os.fspath(ckpt_path)}")
    return values[name].numpy()


def _not_found(msg: str) -> Exception:
    from .errors import NotFoundError

    return NotFoundError(None, None, msg)


def _invalid(msg: str) -> Exception:
    from .errors import InvalidArgumentError

    return InvalidArgumentError(None, None, msg)


Checkpoint.__module__ = "tapers.train"
