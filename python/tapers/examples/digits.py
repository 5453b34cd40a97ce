"""Train a small classifier on scikit-learn's 8x8 handwritten digits with a
custom GradientTape training loop (the README's main job).

Run with ``python -m tapers.examples.digits``; ``--help`` lists the options.
Each training step is compiled with ``tapers.function`` (traced once per batch
shape, then replayed in Rust), its learning rate cosine-decayed by a schedule the
graph computes from the optimizer's step counter; ``--eager`` runs it eagerly. The demo
ends by timing the compiled step against the eager one on a fresh model.
The data ships inside scikit-learn (nothing is downloaded). Prints a progress
bar with loss and accuracy, the held-out accuracy, and saves a PNG of the
curves (needs matplotlib, installed by the ``demo`` extra).

``mpiexec -n 2 python -m tapers.examples.digits --distributed`` trains the same
model data-parallel over MPI (``tapers.distribute``): each rank takes half of
every batch, the gradients are averaged, rank 0 prints and plots.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import tapers as tf


@dataclass
class History:
    train_loss: list[float] = field(default_factory=list)
    train_acc: list[float] = field(default_factory=list)
    test_acc: list[float] = field(default_factory=list)


def load_digits(seed: int, test_fraction: float = 0.2) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The 1,797 digits as float32 features in [0, 1], split into train and test."""
    from sklearn.datasets import load_digits as sk_load  # type: ignore[import-untyped]

    data = sk_load()
    x = (data.data / 16.0).astype(np.float32)
    y = data.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(x))
    n_test = int(len(x) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    return x[train], y[train], x[test], y[test]


class MLP:
    """A two-layer perceptron with ReLU, as plain Variables."""

    def __init__(self, n_in: int, hidden: int, n_out: int, seed: int) -> None:
        g = tf.random.Generator.from_seed(seed)
        he = np.sqrt(2.0 / n_in)
        self.w1 = tf.Variable(g.normal([n_in, hidden], stddev=he), name="w1")
        self.b1 = tf.Variable(tf.zeros([hidden]), name="b1")
        self.w2 = tf.Variable(g.normal([hidden, n_out], stddev=np.sqrt(1.0 / hidden)), name="w2")
        self.b2 = tf.Variable(tf.zeros([n_out]), name="b2")

    @property
    def variables(self) -> list[tf.Variable]:
        return [self.w1, self.b1, self.w2, self.b2]

    def __call__(self, x: tf.Tensor) -> tf.Tensor:
        h = tf.nn.relu(x @ self.w1 + self.b1)
        return h @ self.w2 + self.b2


def accuracy(model: MLP, x: np.ndarray, y: np.ndarray) -> float:
    pred = tf.argmax(model(tf.constant(x)), axis=1).numpy()
    return float((pred == y).mean())


def make_step(model: MLP, opt: tf.optimizers.Optimizer) -> Any:
    """One training step on a batch: the loss and logits, after the optimizer's update."""

    def step(xb: tf.Tensor, yb: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        with tf.GradientTape() as tape:
            logits = model(xb)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=logits))
        grads = tape.gradient(loss, model.variables)
        opt.apply_gradients(zip(grads, model.variables))
        return loss, logits

    return step


def step_speedup(args: argparse.Namespace, x: np.ndarray, y: np.ndarray, steps: int = 60) -> tuple[float, float]:
    """Median seconds per step, eager and compiled, each on its own fresh model and one batch."""
    xb, yb = tf.constant(x[: args.batch_size]), tf.constant(y[: args.batch_size])
    times = []
    for compiled in (False, True):
        model = MLP(x.shape[1], args.hidden, 10, args.seed)
        step = make_step(model, tf.optimizers.Adam(args.learning_rate))
        if compiled:
            step = tf.function(step)
        step(xb, yb)  # warm up (traces the compiled step)
        per = []
        for _ in range(steps):
            t0 = time.perf_counter()
            step(xb, yb)
            per.append(time.perf_counter() - t0)
        times.append(float(np.median(per)))
    return times[0], times[1]


def train(args: argparse.Namespace) -> tuple[MLP, History, float]:
    from tqdm import tqdm  # type: ignore[import-untyped]

    x_train, y_train, x_test, y_test = load_digits(args.seed)
    model = MLP(x_train.shape[1], args.hidden, 10, args.seed)
    steps_per_epoch = int(np.ceil(len(x_train) / args.batch_size))
    # The schedule is computed with tensor ops from `iterations`, so the compiled
    # step replays it: each call reads the counter and takes that step's rate.
    lr = tf.optimizers.schedules.CosineDecay(args.learning_rate, steps_per_epoch * args.epochs, alpha=0.05)
    opt = tf.optimizers.Adam(lr)
    step = make_step(model, opt)
    if not args.eager:
        step = tf.function(step)
    rng = np.random.default_rng(args.seed)
    hist = History()
    t0 = time.perf_counter()
    bar = tqdm(range(1, args.epochs + 1), desc="training", unit="epoch", disable=args.quiet, file=sys.stdout)
    for _epoch in bar:
        order = rng.permutation(len(x_train))
        losses, correct = [], 0
        for start in range(0, len(order), args.batch_size):
            idx = order[start : start + args.batch_size]
            xb, yb = tf.constant(x_train[idx]), tf.constant(y_train[idx])
            loss, logits = step(xb, yb)
            losses.append(float(loss) * len(idx))
            correct += int((tf.argmax(logits, axis=1).numpy() == y_train[idx]).sum())
        hist.train_loss.append(sum(losses) / len(order))
        hist.train_acc.append(correct / len(order))
        hist.test_acc.append(accuracy(model, x_test, y_test))
        bar.set_postfix(
            loss=f"{hist.train_loss[-1]:.4f}", acc=f"{hist.train_acc[-1]:.3f}", test_acc=f"{hist.test_acc[-1]:.3f}"
        )
    return model, hist, time.perf_counter() - t0


def train_distributed(args: argparse.Namespace) -> tuple[MLP, History, float]:
    """The same training, data-parallel: ``--batch-size`` is the global batch,
    split between the ranks; the gradients are averaged over them."""
    from tqdm import tqdm  # type: ignore[import-untyped]

    import tapers.distribute as dist

    dist.init()
    x_train, y_train, x_test, y_test = load_digits(args.seed)
    model = MLP(x_train.shape[1], args.hidden, 10, args.seed)
    dist.broadcast_variables(model.variables, root_rank=0)
    global_batch = args.batch_size - args.batch_size % dist.size()
    steps_per_epoch = len(x_train) // global_batch
    schedule = tf.optimizers.schedules.CosineDecay(args.learning_rate, steps_per_epoch * args.epochs, alpha=0.05)
    opt = tf.optimizers.Adam(schedule)
    hist = History()
    t0 = time.perf_counter()
    quiet = args.quiet or dist.rank() != 0
    bar = tqdm(range(1, args.epochs + 1), desc="training", unit="epoch", disable=quiet, file=sys.stdout)
    for epoch in bar:
        loss_sum, correct, seen = 0.0, 0, 0
        for xb_np, yb_np in dist.batches((x_train, y_train), global_batch, seed=args.seed, epoch=epoch):
            xb, yb = tf.constant(xb_np), tf.constant(yb_np)
            with tf.GradientTape() as tape:
                logits = model(xb)
                loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yb, logits=logits))
            grads = dist.DistributedGradientTape(tape).gradient(loss, model.variables)
            opt.apply_gradients(zip(grads, model.variables))
            loss_sum += float(loss) * len(yb_np)
            correct += int((tf.argmax(logits, axis=1).numpy() == yb_np).sum())
            seen += len(yb_np)
        totals = dist.allreduce(tf.constant([loss_sum, correct, seen], dtype=tf.float64), op=dist.Sum).numpy()
        hist.train_loss.append(float(totals[0] / totals[2]))
        hist.train_acc.append(float(totals[1] / totals[2]))
        hist.test_acc.append(accuracy(model, x_test, y_test))  # the same weights on every rank
        bar.set_postfix(
            loss=f"{hist.train_loss[-1]:.4f}", acc=f"{hist.train_acc[-1]:.3f}", test_acc=f"{hist.test_acc[-1]:.3f}"
        )
    return model, hist, time.perf_counter() - t0


def plot(hist: History, path: str) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: skipping the plot (pip install 'tapers[demo]')")
        return False
    epochs = np.arange(1, len(hist.train_loss) + 1)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.plot(epochs, hist.train_loss, marker="o", ms=3)
    ax1.set(title="training loss (cross-entropy)", xlabel="epoch", ylabel="loss")
    ax1.set_yscale("log")
    ax2.plot(epochs, hist.train_acc, marker="o", ms=3, label="train")
    ax2.plot(epochs, hist.test_acc, marker="s", ms=3, label="held-out")
    ax2.set(
        title="accuracy", xlabel="epoch", ylabel="accuracy", ylim=(min(hist.test_acc + hist.train_acc) - 0.02, 1.005)
    )
    ax2.legend()
    fig.suptitle("tapers: MLP on the 8x8 digits (GradientTape training loop)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv: list[str] | None = None) -> float:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--epochs", type=int, default=30, help="passes over the training set (default 30)")
    p.add_argument("--batch-size", type=int, default=32, help="examples per step (default 32)")
    p.add_argument(
        "--learning-rate",
        type=float,
        default=0.01,
        help="Adam's initial learning rate, cosine-decayed over the run (default 0.01)",
    )
    p.add_argument("--hidden", type=int, default=128, help="hidden units (default 128)")
    p.add_argument("--seed", type=int, default=0, help="seed for the split, initialization and shuffling (default 0)")
    p.add_argument(
        "--output", default="digits_training.png", help="where to save the PNG plot (default digits_training.png)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--eager", action="store_true", help="run the training step eagerly (default: compiled with tapers.function)"
    )
    p.add_argument(
        "--distributed",
        action="store_true",
        help="data-parallel over MPI: run under mpiexec -n N; --batch-size is then the global batch "
        "(needs the distributed extra)",
    )
    args = p.parse_args(argv)
    model, hist, seconds = (train_distributed if args.distributed else train)(args)
    if args.distributed:
        import tapers.distribute as dist

        if dist.rank() != 0:
            return hist.test_acc[-1]
        global_batch = args.batch_size - args.batch_size % dist.size()
        print(f"data-parallel over {dist.size()} rank(s), global batch {global_batch}")
    n_steps = len(hist.train_loss)
    print(f"trained {n_steps} epochs in {seconds:.2f} s")
    print(f"final training loss {hist.train_loss[-1]:.4f}, training accuracy {hist.train_acc[-1]:.4f}")
    print(f"held-out accuracy: {hist.test_acc[-1]:.4f}")
    x_train, y_train, _, _ = load_digits(args.seed)
    eager_s, compiled_s = step_speedup(args, x_train, y_train)
    print(
        f"one training step (batch {args.batch_size}): eager {eager_s * 1e3:.3f} ms, compiled with tapers.function "
        f"{compiled_s * 1e3:.3f} ms ({eager_s / compiled_s:.2f}x faster compiled)"
    )
    if plot(hist, args.output):
        print(f"saved the loss and accuracy curves to {args.output}")
    return hist.test_acc[-1]


if __name__ == "__main__":
    main()
