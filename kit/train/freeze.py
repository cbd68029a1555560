"""The freeze scheduler: finetune-only, stack-only and stack-and-finetune (arXiv 1907.05338).

Keras 3 fixes the trainable set at compile time and each backend fails differently if it changes afterwards (TF stays
frozen silently, torch raises, jax corrupts the model), so every phase sets ``trainable``, recompiles with a fresh
optimizer and checks the trainable set.

>>> import keras, numpy as np
>>> keras.utils.set_random_seed(0)
>>> inp = keras.Input((4,))
>>> enc = keras.layers.Dense(8, activation="relu", name="encoder")
>>> model = keras.Model(inp, keras.layers.Dense(2, name="head")(enc(inp)))
>>> x = np.random.default_rng(0).normal(size=(32, 4)).astype("float32"); y = (x[:, 0] > 0).astype("int32")
>>> recipe = FreezeRecipe(phase1_epochs=2, phase2_epochs=2, batch_size=8)
>>> r = stack_and_finetune(model, enc, (x, y), (x, y), recipe, strategy="stack_and_finetune")
>>> [(p.name, p.trainable_weights) for p in r.phases]
[('phase1', 2), ('phase2', 4)]
>>> enc.trainable
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import keras
import numpy as np

from ..optimizers import adamw
from .freeze_plan import STRATEGIES as STRATEGIES  # re-exported: kit.train and the paper's runs import it here
from .freeze_plan import UNFREEZE as UNFREEZE
from .freeze_plan import Phase, check_plan, phase_plan

#: :class:`FreezeRecipe`'s default ``divergence``: the paper's phase-1 rule, ``DivergenceStopping(threshold=0.05,
#: patience=2)`` watching ``monitor`` in ``mode``.
DEFAULT_DIVERGENCE = "default"
_MAX_WORDS = ("acc", "f1", "auc", "precision", "recall", "pearson", "spearman", "r2")


# --- callbacks --------------------------------------------------------------------------------


class DivergenceStopping(keras.callbacks.Callback):
    """Stop when train and dev ``monitor`` diverge: the paper's phase-1 rule, as a Keras callback.

    The paper trains "only up to a point where the prediction accuracy of the training and validation data sets do not
    differ much". Training stops once ``gap = train − dev`` (``mode="min"``: ``dev − train``; ``"auto"``: ``"max"`` for
    names like acc, f1, auc, pearson) exceeds ``threshold`` (>= 0; the paper's 0.05) for ``patience`` epochs in a row,
    after ``min_epochs``. ``monitor=None`` takes the first compiled metric; train accuracy is Keras' running mean over
    the epoch (dropout on). ``restore`` puts back the trainable weights of the last epoch within the threshold (if none,
    of the smallest gap). ``gaps``, ``stopped_epoch`` (0-based, or None), ``restored_epoch`` and ``reason`` say what
    happened.

    Raises:
        ValueError: ``threshold`` < 0, ``patience`` or ``min_epochs`` < 1, or an unknown ``mode``.
        KeyError: at an epoch's end, the logs lack ``monitor`` or ``val_<monitor>``.

    Example:
        >>> cb = DivergenceStopping(threshold=0.05, patience=2)
        >>> cb.set_model(keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)]))
        >>> for epoch, (tr, dv) in enumerate([(0.6, 0.62), (0.8, 0.78), (0.9, 0.8), (0.95, 0.8)]):
        ...     cb.on_epoch_end(epoch, {"accuracy": tr, "val_accuracy": dv})
        >>> cb.stopped_epoch, cb.model.stop_training, [round(g, 2) for g in cb.gaps]
        (3, True, [-0.02, 0.02, 0.1, 0.15])
    """

    def __init__(
        self,
        monitor: str | None = None,
        threshold: float = 0.05,
        patience: int = 2,
        min_epochs: int = 1,
        mode: str = "auto",
        restore: bool = True,
    ):
        super().__init__()
        if threshold < 0:
            raise ValueError(f"threshold is a gap (train minus dev), so it must be >= 0; got {threshold}.")
        if patience < 1 or min_epochs < 1:
            raise ValueError(f"patience and min_epochs must be >= 1; got patience={patience}, min_epochs={min_epochs}.")
        if mode not in ("auto", "max", "min"):
            raise ValueError(f"mode must be 'auto', 'max' or 'min'; got {mode!r}.")
        self.monitor, self.threshold, self.patience = monitor, threshold, patience
        self.min_epochs, self.mode, self.restore = min_epochs, mode, restore
        self.reset()

    def reset(self):
        """Forget the gaps, the stop and the saved weights (called at the start of training)."""
        self.gaps: list[float] = []
        self.wait = 0
        self.stopped_epoch: int | None = None
        self.restored_epoch: int | None = None
        self.reason = ""
        self._snapshot = None
        self._snapshot_epoch: int | None = None
        self._fallback = None  # the smallest-gap epoch, for runs where no epoch stayed within the gap
        self._fallback_epoch: int | None = None

    def on_train_begin(self, logs=None):
        self.reset()

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        monitor = self.monitor or _auto_monitor(logs)
        if monitor not in logs or "val_" + monitor not in logs:
            raise KeyError(
                f"DivergenceStopping watches {monitor!r} and 'val_{monitor}', but the epoch logs have "
                f"{sorted(logs)}. Compile with that metric (e.g. metrics=['accuracy']) and pass "
                "validation data to fit, or set monitor= to a metric you compiled."
            )
        train, dev = float(logs[monitor]), float(logs["val_" + monitor])
        gap = (train - dev) if _mode(monitor, self.mode) == "max" else (dev - train)
        self.gaps.append(gap)
        if gap > self.threshold:
            self.wait += 1
            if self.restore and self._snapshot is None and gap <= min(self.gaps):
                self._fallback, self._fallback_epoch = self._weights(), epoch
        else:
            self.wait = 0
            if self.restore:
                self._snapshot, self._snapshot_epoch = self._weights(), epoch
        if self.wait >= self.patience and epoch + 1 >= self.min_epochs:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            span = (
                f"epoch {epoch + 1}: gap"
                if self.patience == 1
                else f"epochs {epoch + 2 - self.patience}-{epoch + 1}: gaps"
            )
            self.reason = (
                f"train - dev {monitor} > {self.threshold} for {self.patience} epoch(s) ({span} "
                + ", ".join(f"{g:+.3f}" for g in self.gaps[-self.patience :])
                + ")"
            )

    def _weights(self):
        return [np.array(keras.ops.convert_to_numpy(v)) for v in self.model.trainable_variables]

    def on_train_end(self, logs=None):
        if self.stopped_epoch is None or not self.restore:
            return
        if self._snapshot is not None:
            weights, epoch, why = self._snapshot, self._snapshot_epoch, "the last within the gap"
        elif self._fallback is not None:
            weights, epoch, why = self._fallback, self._fallback_epoch, "no epoch was within the gap: the smallest gap"
        else:
            return
        for v, value in zip(self.model.trainable_variables, weights):
            v.assign(value)
        self.restored_epoch = epoch
        self.reason += f"; kept epoch {epoch + 1}'s weights ({why})"


class _BestWeights(keras.callbacks.Callback):
    """Track the best ``val_<monitor>`` over one or more ``fit`` calls; stop after ``patience`` bad epochs."""

    def __init__(self, monitor: str | None, mode: str, patience: int | None):
        super().__init__()
        self.monitor, self.mode, self.patience = monitor, mode, patience
        self.best, self.best_weights, self.best_at, self.wait, self.stopped = None, None, None, 0, False
        self.phase = ""

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        monitor = self.monitor or _auto_monitor(logs)
        key = "val_" + monitor
        if key not in logs:
            raise KeyError(
                f"Keeping the best dev epoch needs {key!r} in the logs; they have {sorted(logs)}. "
                "Pass monitor= one of the compiled metrics."
            )
        value = float(logs[key])
        better = self.best is None or (value > self.best if _mode(monitor, self.mode) == "max" else value < self.best)
        if better:
            self.best, self.best_at, self.wait = value, (self.phase, epoch), 0
            self.best_weights = self.model.get_weights()
        else:
            self.wait += 1
            if self.patience is not None and self.wait >= self.patience:
                self.model.stop_training, self.stopped = True, True

    def restore(self):
        if self.best_weights is not None:
            self.model.set_weights(self.best_weights)


def _auto_monitor(logs) -> str:
    names = [k for k in logs if not k.startswith("val_") and "val_" + k in logs and k != "loss"]
    return names[0] if names else "loss"


def _mode(monitor: str, mode: str) -> str:
    if mode != "auto":
        return mode
    return "max" if any(w in monitor.lower() for w in _MAX_WORDS) else "min"


# --- freezing ---------------------------------------------------------------------------------


def _flatten(layer) -> list:
    return list(layer._flatten_layers(include_self=True, recursive=True))


class FreezeState:
    """Freeze / unfreeze groups of layers, remembering each sublayer's and variable's own flag.

    ``layers``: the groups (e.g. the encoder's, bottom to top); their flags are recorded at construction.

    Example:
        >>> d = keras.layers.Dense(2); d.build((None, 3))
        >>> fs = FreezeState([d]); fs.freeze(); len(d.trainable_weights)
        0
        >>> fs.unfreeze(); len(d.trainable_weights)
        2
    """

    def __init__(self, layers: Sequence[keras.layers.Layer]):
        self.layers = list(layers)
        self._layer_flags = [[(sub, sub.trainable) for sub in _flatten(layer)] for layer in self.layers]
        self._var_flags = [[(v, v.trainable) for v in layer.weights] for layer in self.layers]
        self._dropout: list = []

    def freeze(self, group: int | None = None, deterministic: bool = False):
        """Set ``trainable=False`` on all groups, or on group index ``group``.

        ``deterministic=True`` also sets their dropout rates to 0 (``trainable=False`` does not turn dropout off);
        :meth:`restore_dropout` puts them back.
        """
        for i in self._groups(group):
            self.layers[i].trainable = False
            if deterministic:
                for sub in _flatten(self.layers[i]):
                    if isinstance(sub, keras.layers.Dropout) and sub.rate > 0:
                        self._dropout.append((sub, sub.rate))
                        sub.rate = 0.0

    def unfreeze(self, group: int | None = None):
        """Restore the recorded flags (all groups, or group index ``group``) and the dropout rates.

        Parts that were frozen on purpose (a fixed embedding table) stay frozen.
        """
        for i in self._groups(group):
            for sub, flag in self._layer_flags[i]:  # parents first: a child's own flag wins
                sub.trainable = flag
            for v, flag in self._var_flags[i]:
                v.trainable = flag
        self.restore_dropout()

    def restore_dropout(self):
        """Put back the dropout rates :meth:`freeze` set to 0."""
        for sub, rate in self._dropout:
            sub.rate = rate
        self._dropout = []

    def _groups(self, group):
        return range(len(self.layers)) if group is None else [group]


# --- the scheduler ----------------------------------------------------------------------------


@dataclass
class PhaseResult:
    """One phase: what was frozen, at what rate, how long it ran and what it learned.

    Attributes:
        name: ``"phase1"``, ``"phase2"``, or ``"phase2.k"`` for gradual unfreezing's steps.
        trainable_weights: ``len(model.trainable_weights)`` in this phase.
        epochs: the epochs actually run, at most ``max_epochs``; ``stopped`` says why fewer (``""``: not).
        history: Keras' ``History.history`` of the phase's ``fit`` (it took ``seconds``).
    """

    name: str
    frozen_groups: int  # how many encoder groups were frozen (0: all trainable)
    learning_rate: float
    trainable_weights: int  # len(model.trainable_weights) in this phase
    trainable_params: int
    epochs: int  # epochs actually run
    max_epochs: int
    history: dict
    stopped: str = ""  # why it stopped before max_epochs ("" if it did not)
    seconds: float = 0.0

    @property
    def encoder_frozen(self) -> bool:
        """Whether any encoder group was frozen in this phase."""
        return self.frozen_groups > 0


@dataclass
class StackResult:
    """What :func:`stack_and_finetune` did; ``phases`` in order, the best dev value restored at the end.

    Attributes:
        monitor: the metric watched (``val_<monitor>`` on dev).
        best_dev: the last stage's best dev value, whose weights the model holds (None if none), from ``best_phase``.
        best_epoch: its epoch (0-based, within ``best_phase``).
        info: ``groups`` (names), ``unfreeze``, and ``divergence`` (its threshold and patience, or None).
        stack_only: with ``keep_stack_only``, the stack-only run that this run's phase 1 was (None if phase 1 stopped
            before its last epoch); ``stack_only_weights``: the weights that run ends with (its best dev epoch's).
    """

    strategy: str
    phases: list[PhaseResult]
    monitor: str
    best_dev: float | None
    best_phase: str | None
    best_epoch: int | None  # 0-based, within best_phase
    info: dict = field(default_factory=dict)
    stack_only: StackResult | None = None
    stack_only_weights: list | None = field(default=None, repr=False)

    def curve(self) -> list[dict]:
        """One row per epoch over all phases: ``phase, epoch, global_epoch, train, dev, loss, val_loss``.

        ``train`` and ``dev`` are ``monitor`` and ``val_<monitor>``; None where not logged.
        """
        rows, g = [], 0
        for p in self.phases:
            h = p.history
            for e in range(p.epochs):
                rows.append(
                    {
                        "phase": p.name,
                        "epoch": e,
                        "global_epoch": g,
                        "train": _at(h, self.monitor, e),
                        "dev": _at(h, "val_" + self.monitor, e),
                        "loss": _at(h, "loss", e),
                        "val_loss": _at(h, "val_loss", e),
                    }
                )
                g += 1
        return rows


@dataclass(frozen=True)
class FreezeRecipe:
    """How :func:`stack_and_finetune` trains: each phase's rate and epochs, the batch, phase 1's stop, the compile.

    One recipe serves the three strategies (each reads the phases it runs).

    Attributes:
        phase1_lr: the rate (and ``phase1_epochs`` the epochs) with the encoder frozen (``stack_only``, phase 1).
        phase2_lr: the rate (and ``phase2_epochs`` the epochs) with all trainable (``finetune_only``, phase 2).
        divergence: phase 1's stop: a :class:`DivergenceStopping`, a dict of its arguments, or None (no early stop);
            :data:`DEFAULT_DIVERGENCE`: threshold 0.05, patience 2.
        patience: epochs without dev improvement that stop the last stage early (None: never).
        monitor: the best dev epoch has the best ``val_<monitor>`` (default: the first compiled metric; ``mode`` as
            :class:`DivergenceStopping`'s).
        optimizer: ``"adamw"`` (BERT-Adam), ``"adam"``, ``"sgd"`` or a factory ``lr -> optimizer``, called afresh per
            phase.
        frozen_dropout: keep dropout on in a frozen encoder (default: rates 0, deterministic features).
        unfreeze: ``"all"`` or ``"gradual"`` (ULMFiT, ``encoder`` a list: :func:`kit.train.freeze_plan.phase_plan`).
        loss: default sparse categorical cross-entropy on logits; e.g. ``"mse"`` for regression.
        metrics: default ``["accuracy"]``; e.g. ``["mae"]`` (each phase compiles fresh copies; a factory ``() -> list``
            works too).

    Example:
        >>> r = FreezeRecipe(phase1_lr=1e-3, phase2_lr=2e-5, phase1_epochs=5, phase2_epochs=3, divergence=None)
        >>> r.batch_size, r.optimizer, r.unfreeze
        (32, 'adamw', 'all')
    """

    phase1_lr: float = 1e-3
    phase2_lr: float = 2e-5
    phase1_epochs: int = 0
    phase2_epochs: int = 0
    batch_size: int = 32
    divergence: DivergenceStopping | dict | str | None = DEFAULT_DIVERGENCE
    patience: int | None = None
    monitor: str | None = None
    mode: str = "auto"
    optimizer: object = "adamw"
    weight_decay: float = 0.01
    frozen_dropout: bool = False
    unfreeze: str = "all"
    loss: object = None
    metrics: object = None


@dataclass
class _Fit:
    """One :func:`stack_and_finetune` call's settings: recipe, resolved loss, callbacks, phase 1's own best keeper."""

    recipe: FreezeRecipe
    loss: object
    callbacks: list | None
    verbose: int
    phase1_best: _BestWeights | None = None


@dataclass
class _Freezer:
    """The encoder groups of one run, their recorded flags, and per group its weights trainable before phase 1."""

    model: keras.Model
    groups: list
    state: FreezeState
    encoder_vars: list


def _at(history, key, i):
    values = history.get(key)
    return float(values[i]) if values is not None and i < len(values) else None


def _len(x) -> int:
    if isinstance(x, dict):
        return len(next(iter(x.values())))
    if isinstance(x, (list, tuple)) and x and hasattr(x[0], "shape"):
        return len(x[0])
    return len(x)


def _resolve_encoder(model, encoder) -> list:
    groups = list(encoder) if isinstance(encoder, (list, tuple)) else [encoder]
    if not groups:
        raise ValueError("encoder is empty: pass the layer (or list of layers) to freeze in phase 1.")
    inside = {id(layer) for layer in model._flatten_layers(include_self=False, recursive=True)}
    out = []
    for g in groups:
        if isinstance(g, str):
            try:
                g = model.get_layer(g)
            except ValueError:
                raise ValueError(
                    f"encoder {g!r} is not a layer name of model {model.name!r}; its layers are "
                    f"{[layer.name for layer in model.layers]}."
                ) from None
        if not isinstance(g, keras.layers.Layer):
            raise TypeError(
                f"encoder must be a Keras layer (or a list of them, or layer names); got {type(g).__name__}."
            )
        if id(g) not in inside:
            raise ValueError(
                f"encoder layer {g.name!r} is not part of model {model.name!r}: freezing it would "
                "change nothing. Pass the very layer object the model was built with (e.g. the "
                "backbone you called on the inputs, or model.get_layer(name))."
            )
        if not g.trainable_weights:
            raise ValueError(
                f"encoder layer {g.name!r} has no trainable weights, so there is nothing to freeze: "
                "build the model first (call it once) and make sure the encoder is trainable."
            )
        out.append(g)
    return out


def _check_labels(model, x, y, what: str, default_loss: bool):
    if _len(x) != len(y):
        raise ValueError(f"{what}: {_len(x)} inputs but {len(y)} labels; they must match one to one.")
    y = np.asarray(y)
    if not default_loss:
        return y
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1 or not (np.issubdtype(y.dtype, np.integer) or np.all(np.mod(y, 1) == 0)):
        raise ValueError(
            f"{what}: the default loss is sparse categorical cross-entropy on logits, which needs class ids "
            f"of shape (N,), but got shape {y.shape} dtype {y.dtype}. For regression pass loss='mse', "
            "metrics=['mae']; for token tagging pass loss=kit.metrics.MaskedSparseCategoricalCrossentropy() "
            "and metrics=[kit.metrics.MaskedAccuracy()]."
        )
    y = y.astype("int32")
    out_dim = None
    try:
        out_dim = model.outputs[0].shape[-1] if getattr(model, "outputs", None) else None
    except (AttributeError, ValueError):
        pass
    if out_dim is not None and len(y) and (y.min() < 0 or y.max() >= out_dim):
        raise ValueError(
            f"{what}: labels range over [{y.min()}, {y.max()}] but the model has {out_dim} "
            f"output logits: ids must be in [0, {out_dim - 1}]."
        )
    return y


def _make_optimizer(optimizer, lr: float, weight_decay: float):
    if isinstance(optimizer, keras.optimizers.Optimizer):
        raise TypeError(
            "optimizer must be a name ('adamw', 'adam', 'sgd') or a factory lr -> optimizer, not an "
            "optimizer instance: every phase needs a fresh optimizer (Keras 3 cannot recompile a "
            "model with an optimizer already built for another trainable set)."
        )
    if callable(optimizer):
        return optimizer(lr)
    if optimizer == "adamw":
        return adamw(lr, weight_decay, no_decay=())
    if optimizer == "adam":
        return keras.optimizers.Adam(lr)
    if optimizer == "sgd":
        return keras.optimizers.SGD(lr)
    raise ValueError(f"optimizer must be 'adamw', 'adam', 'sgd' or a callable lr -> optimizer; got {optimizer!r}.")


def _fresh_metrics(metrics):
    if metrics is None:
        return ["accuracy"]
    if callable(metrics) and not isinstance(metrics, (list, tuple, keras.metrics.Metric)):
        return metrics()
    out = []
    for m in metrics if isinstance(metrics, (list, tuple)) else [metrics]:
        out.append(m.__class__.from_config(m.get_config()) if isinstance(m, keras.metrics.Metric) else m)
    return out


def _compile(model, fit: _Fit, lr: float) -> None:
    """Compile ``model`` for its current trainable set: a fresh optimizer at ``lr`` and fresh metrics."""
    model.compile(
        optimizer=_make_optimizer(fit.recipe.optimizer, lr, fit.recipe.weight_decay),
        loss=fit.loss,
        metrics=_fresh_metrics(fit.recipe.metrics),
    )


def _check_inputs(model, encoder, x_train, y_train, x_dev, y_dev, loss):
    """Check the model is built, the encoder groups are in it, the labels fit and dev is non-empty; resolve the loss."""
    if not model.built:
        raise ValueError(f"model {model.name!r} is not built: call it on a batch (or build it) first.")
    groups = _resolve_encoder(model, encoder)
    default_loss = loss is None
    y_train = _check_labels(model, x_train, y_train, "y_train", default_loss)
    y_dev = _check_labels(model, x_dev, y_dev, "y_dev", default_loss)
    if _len(x_dev) == 0:
        raise ValueError("The dev split is empty: the scheduler needs dev data (phase-1 stopping, best epoch).")
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True) if default_loss else loss
    return groups, y_train, y_dev, loss


def _resolve_divergence(divergence, monitor: str | None, mode: str) -> DivergenceStopping | None:
    """The phase-1 stopping callback ``divergence`` asks for (``None``: no early stop)."""
    if isinstance(divergence, str) and divergence == DEFAULT_DIVERGENCE:
        return DivergenceStopping(monitor=monitor, mode=mode)
    if isinstance(divergence, dict):
        return DivergenceStopping(**{"monitor": monitor, "mode": mode, **divergence})
    if divergence is not None and not isinstance(divergence, DivergenceStopping):
        raise TypeError(
            f"divergence must be a DivergenceStopping, a dict of its arguments or None; got "
            f"{type(divergence).__name__}."
        )
    return divergence


def _freeze_lowest(freezer: _Freezer, frozen_groups: int, deterministic: bool) -> None:
    """Restore every group's own flags, then freeze the lowest ``frozen_groups`` groups."""
    freezer.state.unfreeze()
    for gi in range(frozen_groups):
        freezer.state.freeze(gi, deterministic=deterministic)


def _check_trainable(freezer: _Freezer, phase: Phase, previous: PhaseResult | None) -> int:
    """Check that the frozen groups' weights left the trainable set and the others' are in it."""
    name, frozen, groups = phase.name, phase.frozen_groups, freezer.groups
    trainable = {id(v) for v in freezer.model.trainable_weights}
    for gi, vars_ in enumerate(freezer.encoder_vars):
        inside = sum(id(v) in trainable for v in vars_)
        if gi < frozen and inside:
            raise RuntimeError(
                f"{name}: encoder group {gi} ({groups[gi].name}) was set trainable=False "
                f"but {inside} of its weights are still trainable in the model."
            )
        if gi >= frozen and inside != len(vars_):
            raise RuntimeError(
                f"{name}: encoder group {gi} ({groups[gi].name}) should be trainable but "
                f"only {inside} of its {len(vars_)} weights are."
            )
    count = len(freezer.model.trainable_weights)
    if previous is not None and previous.frozen_groups != frozen and count == previous.trainable_weights:
        raise RuntimeError(
            f"{name}: the trainable-weight count did not change ({count}) although the "
            "frozen set did; the recompile would train the wrong weights."
        )
    if count == 0:
        raise RuntimeError(
            f"{name}: nothing is trainable with the encoder frozen: the model has no head outside the encoder."
        )
    return count


def _phase_callbacks(fit: _Fit, phase: Phase, stop, best: _BestWeights) -> list:
    """The user's callbacks, phase 1's stop and own best-epoch keeper (if any), the final stage's best-epoch keeper."""
    cbs = list(fit.callbacks or [])
    if stop is not None:
        cbs.append(stop)
    if fit.phase1_best is not None and phase.name == "phase1":
        fit.phase1_best.phase = phase.name
        cbs.append(fit.phase1_best)
    if phase.final:
        best.phase = phase.name
        cbs.append(best)
    return cbs


def _stop_reason(stop, best: _BestWeights) -> str:
    """Why the phase stopped before its last epoch ("" if it did not)."""
    if stop is not None and stop.stopped_epoch is not None:
        return stop.reason
    return f"no dev improvement for {best.patience} epoch(s)" if best.stopped else ""


def _run_phase(
    phase: Phase, freezer: _Freezer, data: tuple, fit: _Fit, stop, best: _BestWeights, previous
) -> PhaseResult:
    """Run one phase: freeze its groups, check the trainable set, recompile with a fresh optimizer, fit."""
    model = freezer.model
    _freeze_lowest(freezer, phase.frozen_groups, deterministic=not fit.recipe.frozen_dropout)
    count = _check_trainable(freezer, phase, previous)
    _compile(model, fit, phase.learning_rate)
    cbs = _phase_callbacks(fit, phase, stop, best)
    best.stopped = False
    x_train, y_train, x_dev, y_dev = data
    t = time.perf_counter()
    hist = model.fit(
        x_train,
        y_train,
        validation_data=(x_dev, y_dev),
        epochs=phase.epochs,
        batch_size=fit.recipe.batch_size,
        callbacks=cbs,
        verbose=fit.verbose,
        shuffle=True,
    )
    seconds = time.perf_counter() - t
    result = PhaseResult(
        phase.name,
        phase.frozen_groups,
        float(phase.learning_rate),
        count,
        int(sum(math.prod(v.shape) for v in model.trainable_weights)),
        len(hist.history.get("loss", [])),
        phase.epochs,
        dict(hist.history),
        _stop_reason(stop, best),
        seconds,
    )
    freezer.state.restore_dropout()
    return result


def _run_plan(model, groups: list, plan: list[Phase], data: tuple, fit: _Fit, divergence, best) -> list:
    """Run ``plan``'s phases in order (the final stage stops early on ``patience``), then restore the best epoch."""
    state = FreezeState(groups)
    before = {id(v) for v in model.trainable_weights}
    freezer = _Freezer(model, groups, state, [[v for v in g.trainable_weights if id(v) in before] for g in groups])
    phases = []
    try:
        for phase in plan:
            stop = divergence if phase.stops_on_divergence else None
            phases.append(_run_phase(phase, freezer, data, fit, stop, best, phases[-1] if phases else None))
            if best.stopped and phase.final:
                break
    finally:
        state.unfreeze()
    best.restore()
    return phases


def _stack_result(strategy, phases, monitor, best: _BestWeights, groups, unfreeze, divergence) -> StackResult:
    """The :class:`StackResult` of a finished run."""
    return StackResult(
        strategy,
        phases,
        monitor or _auto_monitor(phases[-1].history),
        best.best,
        best.best_at[0] if best.best_at else None,
        best.best_at[1] if best.best_at else None,
        info={
            "groups": [g.name for g in groups],
            "unfreeze": unfreeze,
            "divergence": None
            if divergence is None
            else {"threshold": divergence.threshold, "patience": divergence.patience},
        },
    )


def stack_and_finetune(
    model: keras.Model,
    encoder,
    train: tuple,
    dev: tuple,
    recipe: FreezeRecipe,
    *,
    strategy: str,
    callbacks: list | None = None,
    verbose: int = 0,
    keep_stack_only: bool = False,
) -> StackResult:
    """Train ``model`` by ``strategy``, freezing ``encoder`` as it says; the last phase keeps its best dev epoch.

    ``strategy``: ``"finetune_only"`` (one phase, all trainable: the light-head baseline), ``"stack_only"`` (one phase,
    encoder frozen: Peters et al.'s feature extraction) or ``"stack_and_finetune"`` (phase 1 as stack-only, stopped by
    :class:`DivergenceStopping`, then phase 2 as finetune-only). ``encoder`` is a layer, a layer name, or a list of them
    (groups, bottom to top); ``train`` and ``dev`` are ``(x, y)``; ``callbacks`` join every phase's ``fit``. The model
    ends compiled for its restored flags, holding the best dev epoch's weights.

    ``keep_stack_only`` (stack-and-finetune, no ``patience``): phase 1 trains exactly as a stack-only run of the same
    recipe, phase-1 optimizer and seed would, until the divergence rule stops it. When it runs all its epochs, the
    result's ``stack_only`` is that stack-only run (its weights: ``stack_only_weights``), so one run gives both
    strategies (notebook 03).

    Raises:
        ValueError: a bad plan (:func:`kit.train.freeze_plan.check_plan`), an unbuilt model, an encoder outside it,
            labels that do not fit, an empty dev split, or ``keep_stack_only`` with another strategy or a patience.
        TypeError: ``recipe`` is not a :class:`FreezeRecipe`, an encoder that is not a layer, a bad ``divergence``, or
            an optimizer instance (not a name).
        RuntimeError: the trainable set is not what a phase asks for.
    """
    if not isinstance(recipe, FreezeRecipe):
        raise TypeError(
            f"recipe must be a kit.train.FreezeRecipe, got {type(recipe).__name__}: e.g. "
            "FreezeRecipe(phase1_epochs=5, phase2_epochs=3)."
        )
    r, (x_train, y_train), (x_dev, y_dev) = recipe, train, dev
    check_plan(strategy, r.unfreeze, r.phase1_epochs, r.phase2_epochs)
    groups, y_train, y_dev, loss = _check_inputs(model, encoder, x_train, y_train, x_dev, y_dev, r.loss)
    divergence = _resolve_divergence(r.divergence, r.monitor, r.mode)
    plan = phase_plan(strategy, len(groups), r.unfreeze, r.phase1_lr, r.phase2_lr, r.phase1_epochs, r.phase2_epochs)
    if keep_stack_only and (strategy != "stack_and_finetune" or r.patience is not None):
        raise ValueError(
            "keep_stack_only keeps the stack-only run inside stack-and-finetune's phase 1: use it with "
            f"strategy='stack_and_finetune' and patience=None (got {strategy!r}, patience {r.patience})."
        )
    phase1_best = _BestWeights(r.monitor, r.mode, None) if keep_stack_only else None  # stack-only's best epoch
    fit = _Fit(r, loss, callbacks, verbose, phase1_best)
    best = _BestWeights(r.monitor, r.mode, r.patience)
    phases = _run_plan(model, groups, plan, (x_train, y_train, x_dev, y_dev), fit, divergence, best)
    _compile(model, fit, r.phase2_lr)  # leave the model compiled for its restored flags (evaluate/predict/fit work)
    result = _stack_result(strategy, phases, r.monitor, best, groups, r.unfreeze, divergence)
    first = phases[0]
    if phase1_best is not None and first.epochs == first.max_epochs:  # all its epochs: a whole stack-only run
        alone = replace(first, stopped="")  # a stack-only run has no divergence rule: it stops at its last epoch
        result.stack_only = _stack_result("stack_only", [alone], r.monitor, phase1_best, groups, r.unfreeze, divergence)
        result.stack_only_weights = phase1_best.best_weights
    return result
