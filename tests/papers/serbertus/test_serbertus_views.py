"""Notebook 04's "how it works" cells (issue 29): each runs on its own, and each view's check catches a kit change.

The views compute SMART's R_s, the layer-wise learning rates and the multitask models' weight counts by hand and
check them against the kit; every test below perturbs the kit where the view's kit side looks it up and shows that the
notebook's check then fails.
"""

import dataclasses
from pathlib import Path

import keras
import pytest

import kit.models.multitask_bert as multitask_bert
import kit.train.layerwise_decay as layerwise_decay
import kit.train.smart as smart
from kit.optimizers.layerwise_adamw import LayerwiseAdamW
from tests import views

NOTEBOOK = Path(__file__).resolve().parents[3] / "notebooks" / "04_serbertus.ipynb"
VIEWS = ("R_s", "learning rates", "what the tasks share")


@pytest.mark.parametrize("cell", views.tagged_cells(NOTEBOOK), ids=views.title)
def test_every_tagged_cell_runs_and_its_check_passes(cell):
    views.run("".join(cell["source"]))


def test_views_pass_under_mixed_precision_and_leave_it_set():
    """A notebook run with KIT_PRECISION=mixed_bfloat16 runs these cells after kit.session.start set that policy."""
    before = keras.config.dtype_policy()
    keras.config.set_dtype_policy("mixed_bfloat16")
    try:
        for word in VIEWS:
            views.run(views.view(NOTEBOOK, word))
            assert keras.config.dtype_policy().name == "mixed_bfloat16"
    finally:
        keras.config.set_dtype_policy(before)


# --- SMART: R_s by hand after one ascent step from a fixed first noise ---------------------------------------------


def one_sided_kl(kind, adv, clean):
    """R_s with only KL(stop(clean) || adv): half of the symmetric divergence."""
    return smart.inner_divergence(kind, adv, clean)


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_smart_view_catches_a_one_sided_kl(monkeypatch):
    monkeypatch.setattr(smart, "smoothness_divergence", one_sided_kl)
    with pytest.raises(AssertionError):
        views.run(views.view(NOTEBOOK, "R_s"))


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_smart_view_catches_a_sum_over_the_batch(monkeypatch):
    original = smart.smoothness_divergence
    monkeypatch.setattr(smart, "smoothness_divergence", lambda kind, adv, clean: 2 * original(kind, adv, clean))
    with pytest.raises(AssertionError):  # the batch of 2 summed instead of averaged
        views.run(views.view(NOTEBOOK, "R_s"))


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_smart_view_catches_noise_in_the_wrong_size(monkeypatch):
    original = smart.SMART.perturbed_outputs
    monkeypatch.setattr(
        smart.SMART,
        "perturbed_outputs",
        lambda self, x, noises, training=True: original(self, x, [2 * n for n in noises], training),
    )
    with pytest.raises(AssertionError):
        views.run(views.view(NOTEBOOK, "R_s"))


def _smart_fails():
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        views.run(views.view(NOTEBOOK, "R_s"))


def test_smart_view_takes_one_ascent_step_with_the_kit():
    source = views.view(NOTEBOOK, "R_s")
    assert "steps=1" in source and "steps=0" not in source
    names = views.run(source)
    assert names["r_s"](names["delta"]) > 1.5 * names["r_s"](names["unit"](names["delta0"]))  # the step matters


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_smart_view_catches_no_ascent_step(monkeypatch):
    init = smart.SMART.__init__

    def no_step(self, *a, noise=None, **k):
        init(
            self,
            *a,
            noise=dataclasses.replace(smart.SmartNoise(**noise) if isinstance(noise, dict) else noise, steps=0),
            **k,
        )

    monkeypatch.setattr(smart.SMART, "__init__", no_step)
    _smart_fails()


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_smart_view_catches_an_l2_normalisation(monkeypatch):
    monkeypatch.setattr(
        smart.SMART, "_normalize", lambda self, s: s / (keras.ops.norm(s, axis=-1, keepdims=True) + self.noise.epsilon)
    )
    _smart_fails()


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_smart_view_catches_the_stop_gradient_on_the_perturbed_side(monkeypatch):
    """The ascent climbs KL(stop(p) || q): with the stop on q's side instead, the noise gets no gradient."""
    inner = smart.inner_divergence
    monkeypatch.setattr(smart, "inner_divergence", lambda kind, adv, clean: inner(kind, clean, adv))
    _smart_fails()


# --- layer-wise decay: the rate of every group -------------------------------------------------------------------


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_llrd_view_catches_embeddings_at_the_bottom_layers_rate(monkeypatch):
    monkeypatch.setattr(
        layerwise_decay, "_embedding_multiplier", lambda embeddings, decay, n_layers: decay ** (n_layers - 1)
    )
    with pytest.raises(AssertionError):
        views.run(views.view(NOTEBOOK, "learning rates"))


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_llrd_view_catches_electras_convention(monkeypatch):
    original = layerwise_decay.rate_groups

    def one_layer_off(*args, **kwargs):  # the top layer at base · decay, everything below one step further
        rows = original(*args, **kwargs)
        decay = kwargs.get("decay", 0.95)
        return [dict(r, multiplier=r["multiplier"] * decay) for r in rows[:-1]] + rows[-1:]

    monkeypatch.setattr(layerwise_decay, "rate_groups", one_layer_off)
    with pytest.raises(AssertionError):
        views.run(views.view(NOTEBOOK, "learning rates"))


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_llrd_view_catches_an_optimizer_that_ignores_its_multipliers(monkeypatch):
    monkeypatch.setattr(LayerwiseAdamW, "rate_multiplier", lambda self, variable: self.default_multiplier)
    with pytest.raises(AssertionError):
        views.run(views.view(NOTEBOOK, "learning rates"))


# --- multitask sharing: the weights of each architecture ---------------------------------------------------------


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_sharing_view_catches_cerbertus_sharing_its_top(monkeypatch):
    original = multitask_bert._task_top
    monkeypatch.setattr(multitask_bert, "_task_top", lambda backbone, task, first, k: original(backbone, task, True, k))
    with pytest.raises(AssertionError):
        views.run(views.view(NOTEBOOK, "what the tasks share"))


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_sharing_view_catches_the_bottom_layers_copied_instead_of_the_top(monkeypatch):
    """CerBERTus with each task's copies at the bottom and the top shared: the same weight counts, other variables."""

    def bottom_per_task(backbone, tasks, k, pooling, inputs):
        h = multitask_bert._embed(backbone, inputs)
        branches = multitask_bert._Branches([backbone], {}, {}, {})
        layers = backbone.transformer_layers
        for i, task in enumerate(tasks):
            copy = multitask_bert._copy_layer
            own = list(layers[:k]) if i == 0 else [copy(x, f"{task}_{x.name}") for x in layers[:k]]
            h_t = h
            for layer in own + list(layers[k:]):
                h_t = layer(h_t, padding_mask=inputs["padding_mask"])
            pooler = backbone.pooled_dense if i == 0 else multitask_bert._copy_layer(backbone.pooled_dense, f"{task}_p")
            branches.pooled[task] = pooler(h_t[:, 0, :])
            branches.tops[task], branches.poolers[task] = own, pooler
        return branches

    monkeypatch.setattr(multitask_bert, "_build_shared", bottom_per_task)
    source = views.view(NOTEBOOK, "what the tasks share")
    with pytest.raises(AssertionError, match="other variables are shared"):
        views.run(source)


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_sharing_view_catches_triple_bert_sharing_its_encoder(monkeypatch):
    monkeypatch.setattr(multitask_bert, "_clone_backbone", lambda backbone, name, **overrides: backbone)
    with pytest.raises(AssertionError):
        views.run(views.view(NOTEBOOK, "what the tasks share"))
