"""Notebook 04's exercise checks: a right answer passes, the starter's ``...`` and a plausible wrong one say not yet."""

import keras
import numpy as np
import pytest

from kit.checks import Verdict
from kit.papers.serbertus import serbertus_exercises as ex

pytestmark = pytest.mark.one_backend


def said(capsys, number, *answers, **kw):
    """``(verdict as a bool, printed line)`` of ``ex.check(number, ...)``."""
    value = ex.check(number, *answers, **kw)
    assert isinstance(value, Verdict), f"check returned {value!r}, not a Verdict"
    return bool(value), capsys.readouterr().out


def noise_norms(noise):
    return np.abs(noise).max(-1).mean(), np.sqrt((noise**2).sum(-1)).mean()


def test_check_1_noise_norms(capsys):
    assert said(capsys, 1, noise_norms, prediction="one")[0] is True
    value, out = said(capsys, 1, lambda noise: ..., prediction="one")
    assert value is False and "starter" in out
    value, out = said(capsys, 1, lambda n: (np.abs(n).max(), np.sqrt((n**2).sum(-1)).mean()), prediction="one")
    assert value is False and "each token" in out  # the largest entry of the whole batch, not per token
    value, out = said(capsys, 1, noise_norms)
    assert value is False and "record your prediction" in out
    assert said(capsys, 1, noise_norms, prediction="epsilon")[0] is False  # the run shows otherwise


def test_check_2_reads_the_run(capsys):
    results = {0.0: (0.9, 0.6, 0.0), 100.0: (0.55, 0.58, 0.02)}
    assert said(capsys, 2, results, prediction="lower")[0] is True
    assert said(capsys, 2, {}, prediction="lower")[0] is False
    value, out = said(capsys, 2, {0.0: (0.9, 0.6, 0.0), 100.0: (0.9, 0.6, 0.0)}, prediction="same")
    assert value is False and "SMART was not on" in out  # lambda_s not passed on
    value, out = said(capsys, 2, results)
    assert value is False and "record your prediction" in out
    assert said(capsys, 2, results, prediction="same")[0] is False


def adam_moves(gradients, scale, learning_rate=1e-3):
    w = keras.Variable(np.zeros(len(gradients[0]), "float32"))
    adam = keras.optimizers.Adam(learning_rate=learning_rate)
    for g in gradients:
        adam.apply_gradients([(keras.ops.convert_to_tensor(scale * np.array(g, "float32")), w)])
    return keras.ops.convert_to_numpy(w)


def sgd_moves(gradients, scale, learning_rate=1e-3):
    return -learning_rate * scale * np.sum(gradients, axis=0)


def test_check_3_adam_moves(capsys):
    assert said(capsys, 3, adam_moves, prediction="same")[0] is True
    value, out = said(capsys, 3, lambda gradients, scale: np.zeros(len(gradients[0])), prediction="same")
    assert value is False and "zero" in out  # the starter: nothing applied
    value, out = said(capsys, 3, sgd_moves, prediction="same")
    assert value is False and "Adam" in out  # plain gradient steps
    assert said(capsys, 3, adam_moves, prediction="smaller")[0] is False
    assert "record your prediction" in said(capsys, 3, adam_moves)[1]


def step_length(before, after):
    return np.sqrt(sum(np.sum((a - b) ** 2) for a, b in zip(after, before)))


def test_check_4_step_length(capsys):
    assert said(capsys, 4, step_length, prediction="moves")[0] is True
    assert "starter" in said(capsys, 4, lambda before, after: ..., prediction="moves")[1]
    per_array = lambda before, after: sum(np.linalg.norm(a - b) for a, b in zip(after, before))  # noqa: E731
    value, out = said(capsys, 4, per_array, prediction="moves")
    assert value is False and "L2 norm" in out
    assert said(capsys, 4, step_length, prediction="stays")[0] is False
    assert "record your prediction" in said(capsys, 4, step_length)[1]


def gate(strict):
    def gated(dev, y_dev, order):
        members, best = [], -1.0
        for name in order:
            accuracy = float(np.mean(np.mean([dev[m] for m in members + [name]], axis=0).argmax(-1) == y_dev))
            if accuracy > best or (not strict and accuracy == best):
                members, best = members + [name], accuracy
        return members

    return gated


def test_check_5_the_dev_gate(capsys):
    assert said(capsys, 5, gate(strict=False), prediction=2)[0] is True
    value, out = said(capsys, 5, lambda dev, y_dev, order: [], prediction=2)
    assert value is False and "kept no model" in out  # the starter
    value, out = said(capsys, 5, gate(strict=True), prediction=2)
    assert value is False and "ties" in out  # a tie must not shut a model out
    assert said(capsys, 5, gate(strict=False), prediction=3)[0] is False
    assert "record your prediction" in said(capsys, 5, gate(strict=False))[1]


def test_check_names_the_exercises():
    with pytest.raises(ValueError, match="exercises"):
        ex.check(6, None)
