"""Notebook 03's "how it works" cells: they run, their checks pass, and they catch a change of the kit (issue 29).

Each view computes a method by hand and asserts that the kit computes the same; here the kit's implementation is
perturbed where it looks its names up (a swapped rate, a schedule that never unfreezes, an inverted gate, a perspective
forgotten on one side) and the view's own check must fail.
"""

from pathlib import Path

import keras
import pytest

from kit.models.heads import highway, matching
from kit.models.heads.highway import HighwayBiLSTMHead
from kit.train import freeze
from tests import views

NOTEBOOK = Path(__file__).resolve().parents[3] / "notebooks" / "03_stack_and_finetune.ipynb"
TITLES = [views.title(c) for c in views.tagged_cells(NOTEBOOK)]
VIEWS = ["freeze schedule by hand", "without a recompile", "highway BiLSTM head by hand", "full matching by hand"]


@pytest.mark.parametrize("title", TITLES)
def test_every_tagged_cell_runs_and_its_check_passes(title):
    views.run(views.view(NOTEBOOK, title))


def test_the_sections_are_there():
    assert len(TITLES) == 8
    assert sum(t.startswith("Picture:") for t in TITLES) == 4
    assert views.view(NOTEBOOK, "why Keras recompiles").count("report.draw_recompile()") == 1
    for word in VIEWS:
        assert views.view(NOTEBOOK, word).startswith("# View:")


def _perturbed_plan(monkeypatch, change):
    """Replace the freeze scheduler's phase plan by ``change(phases)``, where the scheduler looks it up."""
    plan = freeze.phase_plan
    monkeypatch.setattr(freeze, "phase_plan", lambda *a, **k: change(plan(*a, **k)))


def _swap_rates(phases):
    rates = [p.learning_rate for p in phases][::-1]
    return [p._replace(learning_rate=r) for p, r in zip(phases, rates)]


def _never_unfreeze(phases):
    return [p._replace(frozen_groups=phases[0].frozen_groups) for p in phases]


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_freeze_view_catches_swapped_rates(monkeypatch):
    _perturbed_plan(monkeypatch, _swap_rates)
    with pytest.raises(AssertionError):
        views.run(views.view(NOTEBOOK, "freeze schedule by hand"))


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
@pytest.mark.parametrize("word", ["freeze schedule by hand", "without a recompile"])
def test_freeze_views_catch_a_schedule_that_never_unfreezes(monkeypatch, word):
    _perturbed_plan(monkeypatch, _never_unfreeze)
    with pytest.raises(AssertionError):
        views.run(views.view(NOTEBOOK, word))


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
@pytest.mark.parametrize("word", ["freeze schedule by hand", "without a recompile"])
def test_freeze_views_catch_a_missing_recompile(monkeypatch, word):
    """Compile once only: TensorFlow silently keeps the encoder frozen (the view's check), torch and jax raise."""
    compile_once, compiled = freeze._compile, set()

    def once(model, recipe, lr):
        if id(model) not in compiled:
            compiled.add(id(model))
            compile_once(model, recipe, lr)

    monkeypatch.setattr(freeze, "_compile", once)
    expected = AssertionError if keras.backend.backend() == "tensorflow" else ValueError
    with pytest.raises(expected):
        views.run(views.view(NOTEBOOK, word))


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_highway_view_catches_an_inverted_gate(monkeypatch):
    init = HighwayBiLSTMHead.__init__

    def inverted(self, *args, **kwargs):
        init(self, *args, **kwargs)
        for gate in self.gates:
            gate.activation = lambda z: 1.0 - keras.activations.sigmoid(z)

    monkeypatch.setattr(HighwayBiLSTMHead, "__init__", inverted)
    with pytest.raises(AssertionError):
        views.run(views.view(NOTEBOOK, "highway BiLSTM head by hand"))


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_highway_view_catches_mean_pooling_for_max(monkeypatch):
    monkeypatch.setattr(highway, "masked_max", highway.masked_mean)
    with pytest.raises(AssertionError):
        views.run(views.view(NOTEBOOK, "highway BiLSTM head by hand"))


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_matching_view_catches_a_perspective_forgotten_on_one_side(monkeypatch):
    unit = matching._unit
    monkeypatch.setattr(
        matching, "_mp_cos", lambda v1, v2, w: keras.ops.sum(unit(v1[:, :, None, :] * w) * unit(v2[:, :, None, :]), -1)
    )
    with pytest.raises(AssertionError):
        views.run(views.view(NOTEBOOK, "full matching by hand"))


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_matching_view_catches_a_wrong_epsilon(monkeypatch):
    monkeypatch.setattr(matching, "_EPS", 1.0)
    with pytest.raises(AssertionError):
        views.run(views.view(NOTEBOOK, "full matching by hand"))
