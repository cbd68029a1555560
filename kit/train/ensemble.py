"""Ensembles: plain averaging of models' predictions, and SerBERTus' dev-gated ensemble.

Averaging (stack-and-finetune's Experiment B, DenseNet + highway heads): :func:`average_predictions`.

>>> import numpy as np
>>> a = np.array([[2.0, 0.0]]); b = np.array([[0.0, 1.0]])
>>> average_predictions([a, b]).round(3).tolist()
[[0.575, 0.425]]
>>> average_predictions([a, b], weights=[0, 1]).argmax(-1).tolist()
[1]

Dev-gated (SerBERTus), per task: candidates ranked by their own dev score, the best starts, each next one kept only if
the unweighted mean of the members' unrounded predictions does not lower the dev score (ties kept: the paper's "improve
or do not change"). Accuracy for classification and binary tasks, Pearson for regression; the gate sees dev, so report
the test score beside the optimistic dev score.

>>> y = np.array([1.0, 2.0, 3.0, 4.0])
>>> preds = {"a": {"sts": np.array([1.0, 2.6, 2.5, 4.0])},      # Pearson 0.937 alone
...          "b": {"sts": np.array([1.3, 1.9, 3.3, 3.4])},      # 0.955: the best, so it starts
...          "c": {"sts": np.array([4.0, 1.0, 2.0, 1.0])}}    # anti-correlated: would lower the score
>>> ens = dev_gated_ensemble(preds, {"sts": y}, {"sts": "regression"})
>>> ens["sts"].members, round(ens["sts"].dev_score, 4)
(['b', 'a'], 0.9942)
>>> [(row["model"], row["accepted"]) for row in ens["sts"].trace]
[('b', True), ('a', True), ('c', False)]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..metrics.task_scores import check_kind, task_score

SPACES = ("probs", "logits")


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def average_predictions(outputs, weights=None, space: str = "probs") -> np.ndarray:
    """Weighted mean (float64) of several models' outputs of one shape: softmax probabilities by default.

    ``space="logits"`` averages the raw logits; one-output models (regression) are averaged as is. ``weights``: one
    non-negative weight per model, positive sum (None: equal).

    Raises:
        ValueError: an unknown ``space``, no outputs, outputs of different shapes, or bad weights.
    """
    if space not in SPACES:
        raise ValueError(f"space must be one of {SPACES}, got {space!r}.")
    arrays = [np.asarray(o, dtype="float64") for o in outputs]
    if not arrays:
        raise ValueError("Nothing to average: pass at least one model's outputs.")
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError(f"All outputs must have the same shape to be averaged; got {sorted(shapes)}.")
    w = np.ones(len(arrays)) if weights is None else np.asarray(weights, dtype="float64")
    if w.shape != (len(arrays),) or (w < 0).any() or w.sum() <= 0:
        raise ValueError(f"weights must be {len(arrays)} non-negative numbers with a positive sum; got {weights}.")
    if space == "probs" and arrays[0].shape[-1] > 1:
        arrays = [_softmax(a) for a in arrays]
    return np.tensordot(w / w.sum(), np.stack(arrays), axes=1)


@dataclass
class TaskEnsemble:
    """One task's ensemble: ``members`` (in joining order), ``dev_score`` (optimistic), each decision's ``trace``.

    ``kind`` is ``"classification"``, ``"binary"`` or ``"regression"``; a ``trace`` row holds ``task``, ``model``,
    ``alone``, ``with``, ``accepted``.
    """

    task: str
    kind: str
    members: list = field(default_factory=list)
    dev_score: float = float("nan")
    trace: list = field(default_factory=list)

    def average(self, predictions: dict) -> np.ndarray:
        """Unweighted mean (float64) of the members' ``predictions`` (``{model: predictions}``), e.g. on test.

        Raises:
            ValueError: a member's predictions are missing.
        """
        missing = [m for m in self.members if m not in predictions]
        if missing:
            raise ValueError(f"Predictions of ensemble members {missing} are missing for task {self.task!r}.")
        return np.mean([np.asarray(predictions[m], dtype="float64") for m in self.members], axis=0)


def dev_gated_ensemble(
    dev_predictions: dict, dev_labels: dict, kinds: dict, order: str = "best_first", score=None
) -> dict:
    """``{task: TaskEnsemble}``, dev-gated (SerBERTus: keep a model only if the dev score does not drop).

    ``dev_predictions`` is ``{model: {task: unrounded dev predictions}}`` (a model may lack tasks), ``dev_labels``
    ``{task: labels}``, ``kinds`` ``{task: "classification" | "binary" | "regression"}``. ``order="best_first"`` ranks
    by each model's own dev score (the paper's greedy order); ``"given"`` keeps ``dev_predictions``' order.
    ``score(kind, labels, predictions)``, higher better, defaults to :func:`kit.metrics.task_score`.

    Raises:
        ValueError: an unknown ``order`` or kind, a task no model has predictions for, or predictions of different
            shapes for one task.
    """
    if order not in ("best_first", "given"):
        raise ValueError(f"order must be 'best_first' or 'given', got {order!r}.")
    score = score or task_score
    result = {}
    for task, labels in dev_labels.items():
        kind = check_kind(kinds.get(task), task)
        candidates = [(name, np.asarray(p[task], dtype="float64")) for name, p in dev_predictions.items() if task in p]
        if not candidates:
            raise ValueError(f"No model has predictions for task {task!r}.")
        shapes = {p.shape for _, p in candidates}
        if len(shapes) > 1:
            raise ValueError(
                f"Task {task!r}: models' predictions differ in shape {sorted(shapes)}; give every model "
                "the same dev examples and the same kind of prediction (probabilities or scores)."
            )
        alone = [(name, p, score(kind, labels, p)) for name, p in candidates]
        if order == "best_first":
            alone = sorted(alone, key=lambda item: -item[2])  # stable: ties keep the given order
        members, total, current, trace = [], None, -np.inf, []  # total: sum of the members' predictions
        for name, p, own in alone:
            trial = p if total is None else (total + p) / (len(members) + 1)
            s = score(kind, labels, trial)
            accepted = total is None or s >= current
            if accepted:
                members.append(name)
                total = p.copy() if total is None else total + p
                current = s
            trace.append({"task": task, "model": name, "alone": own, "with": s, "accepted": accepted})
        result[task] = TaskEnsemble(task, kind, members, float(current), trace)
    return result


def ensemble_table(ensembles: dict) -> list[dict]:
    """Every decision of every task's ensemble as rows (task, model, alone, with, accepted), for a DataFrame."""
    return [row for ens in ensembles.values() for row in ens.trace]
