"""Train a classifier (or regressor) the papers' way: fixed recipe, early stopping on dev, best weights kept.

*To Pretrain or Not to Pretrain*'s recipes: ``schedule="constant"``, Adam (its LSTMs: batch 64, LR in {2.5e-4, 5e-4,
7.5e-4, 1e-3}); ``"linear"``, AdamW decayed linearly to 0 (its transformer: batch 32, dropout 0.1). Integer labels:
cross-entropy on logits, stop on dev accuracy; float targets: MSE on one unit, stop on dev loss.

>>> import keras, numpy as np
>>> m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
>>> x, y = np.eye(3, dtype="float32")[[0, 1, 2, 0]], np.array([0, 1, 1, 0])
>>> r = fit_classifier(m, (x, y), (x, y), FitRecipe(learning_rate=0.1, epochs=3, batch_size=2))
>>> r.monitor, 0.0 <= r.best_dev_accuracy <= 1.0
('val_accuracy', True)
>>> reg = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
>>> scores = np.array([0.5, 1.0, 2.0, 0.5])
>>> fit_classifier(reg, (x, scores), (x, scores), FitRecipe(learning_rate=0.1, epochs=2, batch_size=2)).monitor
'val_loss'
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass

import keras
import numpy as np
from scipy.stats import pearsonr, spearmanr

from ..optimizers import adamw, schedules


@dataclass
class FitResult:
    """What a fit did: the Keras history, the restored (best) epoch and its dev score, steps and time.

    Attributes:
        best_epoch: the restored epoch (0-based), the best on dev.
        best_dev: its dev score, the ``monitor`` value: ``"val_accuracy"``, or ``"val_loss"`` for regression.
        steps: the optimizer steps planned (:func:`planned_steps`).
        epochs: the epochs planned (early stopping may end sooner: :attr:`trained`).
    """

    history: dict
    best_epoch: int
    best_dev: float
    monitor: str
    steps: int
    seconds: float
    epochs: int = 0

    @property
    def trained(self) -> dict:
        """What the fit actually trained: ``{"epochs": epochs run, "steps": optimizer steps run}``."""
        run = len(self.history.get(self.monitor, [])) if self.history else self.epochs
        per_epoch = self.steps // self.epochs if self.epochs else 0
        return {"epochs": run, "steps": run * per_epoch}

    @property
    def best_dev_accuracy(self) -> float:
        """The best dev accuracy of a classifier's fit; AttributeError for a regression (its ``best_dev`` is a loss)."""
        if self.monitor != "val_accuracy":
            raise AttributeError(f"This fit was a regression (monitor {self.monitor}); read best_dev instead.")
        return self.best_dev


SCHEDULES = ("constant", "linear")


@dataclass(frozen=True)
class FitRecipe:
    """How :func:`fit_classifier` trains: the (peak) rate, epochs, batch, schedule, and how a run may stop.

    Attributes:
        schedule: ``"constant"`` (Adam) or ``"linear"`` (AdamW, decayed linearly to 0).
        weight_decay: AdamW's (``schedule="linear"`` only).
        min_steps: the fewest optimizer steps: a tiny set is repeated in shuffled passes (:func:`repeat_index`).
        patience: epochs without dev improvement that stop the run (default: never before ``epochs``).

    Raises:
        ValueError: an unknown schedule, or ``epochs`` or ``batch_size`` below 1.

    Example:
        >>> lstm = FitRecipe(learning_rate=1e-3, epochs=6, batch_size=64, min_steps=60, patience=2)
        >>> lstm.schedule, planned_steps(250, lstm.epochs, lstm.batch_size, lstm.min_steps)
        ('constant', 60)
    """

    learning_rate: float
    epochs: int
    batch_size: int
    schedule: str = "constant"
    weight_decay: float = 0.01
    min_steps: int = 0
    patience: int | None = None

    def __post_init__(self):
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be 'constant' or 'linear', got {self.schedule!r}.")
        if self.epochs < 1 or self.batch_size < 1:
            raise ValueError(f"epochs and batch_size must be >= 1, got {self.epochs}, {self.batch_size}.")


def _take(x, idx):
    if isinstance(x, dict):
        return {k: v[idx] for k, v in x.items()}
    return x[idx]


def _len(x) -> int:
    return len(next(iter(x.values()))) if isinstance(x, dict) else len(x)


def check_distribution(model, distribution) -> None:
    """Check that ``model`` was built inside ``distribution.scope()`` (on jax its variables live on every device).

    Only jax is checked; with ``distribution=None`` or before the model has weights it passes.

    Raises:
        ValueError: the model's weights live on fewer devices than the distribution uses.
    """
    if distribution is None or keras.backend.backend() != "jax" or not model.weights:
        return
    want = len(distribution.device_mesh.devices.reshape(-1))
    got = (
        len(getattr(model.weights[0].value, "sharding", None).device_set)
        if hasattr(model.weights[0].value, "sharding")
        else 1
    )
    if got != want:
        raise ValueError(
            f"{model.name} was built outside the distribution: its weights live on {got} device(s), "
            f"the distribution uses {want}. Build it inside the scope: "
            "`with distribution.scope(): model = ...`, then fit."
        )


def planned_steps(n: int, epochs: int, batch_size: int, min_steps: int = 0) -> int:
    """Optimizer steps :func:`fit_classifier` plans for ``n`` examples (tiny sets repeated up to ``min_steps``).

    ``epochs`` times ``ceil(n / batch_size)``, or ``ceil(min_steps / epochs)`` if more; ``min_steps=0``: no repeat.

    Example:
        >>> planned_steps(300, epochs=2, batch_size=32), planned_steps(16, epochs=1, batch_size=32, min_steps=30)
        (20, 30)
        >>> planned_steps(900, epochs=1, batch_size=32, min_steps=30)   # 29 batches, topped up to 30 (not doubled)
        30
    """
    return epochs * max(math.ceil(n / batch_size), math.ceil(min_steps / epochs))


def repeat_index(n: int, epochs: int, batch_size: int, min_steps: int, seed: int = 0) -> np.ndarray | None:
    """Indices that top a small set up to ``min_steps`` optimizer steps (``None``: one pass is enough).

    ``ceil(min_steps / epochs) * batch_size`` row indices: whole shuffled passes (by ``seed``), the last cut short, so
    every example appears ``r`` or ``r + 1`` times.

    Example:
        >>> idx = repeat_index(10, epochs=1, batch_size=4, min_steps=6, seed=0)
        >>> len(idx), sorted(np.bincount(idx, minlength=10).tolist()) == [2, 2, 2, 2, 2, 2, 3, 3, 3, 3]
        (24, True)
    """
    need = math.ceil(min_steps / epochs) * batch_size
    if need <= n:
        return None
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.permutation(n) for _ in range(math.ceil(need / n))])[:need]


def is_regression(y) -> bool:
    """Whether targets ``y`` mean regression: a floating dtype does; integer (or boolean) labels mean classes."""
    return np.issubdtype(np.asarray(y).dtype, np.floating)


def _check_fit_inputs(model: keras.Model, x_train, y_train, x_dev, y_dev, recipe) -> bool:
    """Check :func:`fit_classifier`'s splits, targets and recipe; return whether it is a regression."""
    if not isinstance(recipe, FitRecipe):
        raise TypeError(
            f"recipe must be a kit.train.FitRecipe, got {type(recipe).__name__}: e.g. "
            "FitRecipe(learning_rate=1e-3, epochs=6, batch_size=64)."
        )
    if _len(x_train) == 0:
        raise ValueError("The training split is empty: nothing to fit. Check the data fraction.")
    if _len(x_dev) == 0:
        raise ValueError("The dev split is empty: early stopping needs dev examples.")
    regression = is_regression(y_train)
    if regression != is_regression(y_dev):
        raise ValueError("y_train and y_dev differ in kind (one float, one integer): use the same target for both.")
    width = model.output_shape[-1] if isinstance(model.output_shape, tuple) else None
    if regression and width not in (None, 1):
        raise ValueError(
            f"Float targets mean regression, but the model has {width} outputs: build it with "
            "num_classes=1 (one output), or pass integer class labels."
        )
    return regression


def _fit_optimizer(recipe: FitRecipe, steps: int):
    """The recipe's optimizer: Adam at a constant rate, or AdamW (every weight) with the rate decayed linearly to 0."""
    if recipe.schedule == "linear":
        return adamw(schedules.linear(recipe.learning_rate, steps), weight_decay=recipe.weight_decay, no_decay=())
    return keras.optimizers.Adam(schedules.constant(recipe.learning_rate))


def _compile_fit(model: keras.Model, optimizer, regression: bool) -> tuple[str, str]:
    """Compile ``model`` with the task's loss; return the dev score early stopping watches and its ``mode``."""
    if regression:
        model.compile(optimizer=optimizer, loss="mse")
        return "val_loss", "min"
    model.compile(
        optimizer=optimizer,
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    return "val_accuracy", "max"


def _top_up(x_train, y_train, recipe: FitRecipe, seed: int):
    """Repeat a tiny training set (shuffled passes) up to ``recipe.min_steps``; return it and the planned steps."""
    n, r = _len(x_train), recipe
    idx = repeat_index(n, r.epochs, r.batch_size, r.min_steps, seed)
    if idx is not None:  # top a tiny set up (shuffled passes) so the run gets enough updates
        x_train, y_train = _take(x_train, idx), np.asarray(y_train)[idx]
    return x_train, y_train, planned_steps(n, r.epochs, r.batch_size, r.min_steps)


def _scope(model: keras.Model, distribution):
    """Check that ``model`` fits ``distribution`` (:func:`check_distribution`); return the scope to fit in."""
    check_distribution(model, distribution)
    return distribution.scope() if distribution is not None else contextlib.nullcontext()


def _as_targets(y, regression: bool) -> np.ndarray:
    return np.asarray(y, "float32") if regression else np.asarray(y)


def fit_classifier(
    model: keras.Model,
    train: tuple,
    dev: tuple,
    recipe: FitRecipe,
    *,
    seed: int = 0,
    verbose: int = 0,
    callbacks=None,
    distribution=None,
) -> FitResult:
    """Compile ``model`` (logits out; one unit for regression) and fit it by ``recipe``; keep the best dev epoch.

    ``train``, ``dev``: ``(x, y)``, ``x`` an array or a dict of arrays. Integer ``y``: cross-entropy, early stopping on
    ``val_accuracy``; float ``y``: MSE, on ``val_loss``. ``seed`` shuffles a tiny set's repeats; ``callbacks`` join
    ``fit``; build the model inside ``distribution.scope()``.

    Raises:
        TypeError: ``recipe`` is not a :class:`FitRecipe`.
        ValueError: an empty split, train and dev targets of different kinds, float targets for a model with more than
            one output, or a model built outside ``distribution``.
    """
    (x_train, y_train), (x_dev, y_dev) = train, dev
    regression = _check_fit_inputs(model, x_train, y_train, x_dev, y_dev, recipe)
    x_train, y_train, steps = _top_up(x_train, y_train, recipe, seed)
    epochs = recipe.epochs
    with _scope(model, distribution):
        monitor, mode = _compile_fit(model, _fit_optimizer(recipe, steps), regression)
        stop = keras.callbacks.EarlyStopping(
            monitor=monitor, mode=mode, patience=recipe.patience or epochs, restore_best_weights=True
        )
        y_fit, y_val = _as_targets(y_train, regression), _as_targets(y_dev, regression)
        t = time.perf_counter()
        hist = model.fit(
            x_train,
            y_fit,
            validation_data=(x_dev, y_val),
            epochs=epochs,
            batch_size=recipe.batch_size,
            callbacks=[stop, *(callbacks or [])],
            verbose=verbose,
            shuffle=True,
        )
        seconds = time.perf_counter() - t
    scores = hist.history[monitor]
    best = int(np.argmax(scores) if mode == "max" else np.argmin(scores))
    return FitResult(hist.history, best, float(scores[best]), monitor, steps, seconds, epochs)


def accuracy(model: keras.Model, x, y, batch_size: int = 128) -> float:
    """Share of ``y`` (class labels) that ``model``'s argmax outputs (logits or probabilities) get right."""
    logits = model.predict(x, batch_size=batch_size, verbose=0)
    return float((np.argmax(logits, axis=-1) == np.asarray(y)).mean())


def regression_scores(model: keras.Model, x, y, batch_size: int = 128) -> dict:
    """Pearson and Spearman correlation and mean squared error of a one-output model's predictions.

    Raises:
        ValueError: the predictions and targets differ in number (the model has more than one output unit).

    Example:
        >>> import keras, numpy as np
        >>> m = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1, kernel_initializer="ones")])
        >>> scores = regression_scores(m, np.array([[1.0], [2.0], [3.0]]), np.array([1.0, 2.0, 4.0]))
        >>> {k: round(v, 3) for k, v in scores.items()}
        {'pearson': 0.982, 'spearman': 1.0, 'mse': 0.333}
    """
    pred = np.asarray(model.predict(x, batch_size=batch_size, verbose=0), "float64").reshape(-1)
    y = np.asarray(y, "float64").reshape(-1)
    if len(pred) != len(y):
        raise ValueError(f"{len(pred)} predictions for {len(y)} targets: is the model's output one unit?")
    return {
        "pearson": float(pearsonr(pred, y)[0]),
        "spearman": float(spearmanr(pred, y)[0]),
        "mse": float(np.mean((pred - y) ** 2)),
    }
