"""SMART: the noise gradient helper, where the noise goes, R_s, lambda_s=0 == plain training, norms, save/load, bf16."""

import keras
import numpy as np
import pytest

from kit.models import build_classifier, split_backbone
from kit.train.smart import SMART, SmartNoise, noise_grad, smoothness_divergence
from tests.helpers import tiny_backbone, tiny_inputs

CE = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
VOCAB, SEQ = 32, 10


def tiny(seed=0, dropout=0.0, classes=3, dtype=None):
    bb = tiny_backbone(
        seed, vocabulary_size=VOCAB, num_layers=1, hidden_dim=8, max_sequence_length=SEQ, dropout=dropout, dtype=dtype
    )
    return bb, build_classifier(bb, classes, dropout=dropout)


def data(n=16, seed=0):
    x = tiny_inputs(batch=n, seq=SEQ, vocab=VOCAB, seed=seed)
    return x, x["token_ids"][:, 0] % 3


def np_(t):
    return keras.ops.convert_to_numpy(t)


def test_noise_grad_helper_is_the_gradient():
    """The per-backend helper returns d fn / d noise for every noise tensor (here 2·c·n and 3·m²)."""
    rng = np.random.default_rng(0)
    c, n, m = (rng.normal(size=(2, 3, 4)).astype("float32") for _ in range(3))
    c_t = keras.ops.convert_to_tensor(c)

    def fn(noises):
        return keras.ops.sum(c_t * noises[0] ** 2) + keras.ops.sum(noises[1] ** 3)

    g = noise_grad(fn, [keras.ops.convert_to_tensor(n), keras.ops.convert_to_tensor(m)])
    np.testing.assert_allclose(np_(g[0]), 2 * c * n, rtol=1e-5)
    np.testing.assert_allclose(np_(g[1]), 3 * m**2, rtol=1e-5)
    g = noise_grad(fn, [n, m])  # NumPy noises (a custom noise may be one): the same gradients on every backend
    np.testing.assert_allclose(np_(g[0]), 2 * c * n, rtol=1e-5)


def test_noise_goes_on_the_embedding_output_once():
    """model(x) with noise == encoder(embeddings(x) + noise) → head: positions and segments are not added twice."""
    bb, model = tiny()
    smart = SMART(model, bb)
    x, _ = data(8)
    clean = np_(model(x, training=False))
    zero = [keras.ops.zeros((8, SEQ, 8))]
    np.testing.assert_allclose(np_(smart.perturbed_outputs(x, zero, training=False)), clean, atol=1e-6)
    noise = np.random.default_rng(1).normal(size=(8, SEQ, 8)).astype("float32")
    parts = split_backbone(bb)
    e = np_(parts.embeddings({"token_ids": x["token_ids"], "segment_ids": x["segment_ids"]}))
    pooled = parts.encoder({"embeddings": e + noise, "padding_mask": x["padding_mask"]})["pooled_output"]
    by_hand = np_(model.get_layer("head")(pooled))
    got = np_(smart.perturbed_outputs(x, [noise], training=False))
    np.testing.assert_allclose(got, by_hand, atol=1e-5)
    assert not np.allclose(got, clean, atol=1e-3)
    # the hook is removed afterwards
    np.testing.assert_allclose(np_(model(x, training=False)), clean, atol=1e-6)
    assert "call" not in bb.embeddings_dropout.__dict__


def test_divergences_by_hand():
    a = np.array([[2.0, 0.0, -1.0], [0.5, 0.5, 0.0]], "float32")
    b = np.array([[1.0, 0.5, -1.0], [0.5, 0.5, 0.0]], "float32")
    pa, pb = (np.exp(v) / np.exp(v).sum(-1, keepdims=True) for v in (a, b))
    sym = (pa * np.log(pa / pb)).sum(-1) + (pb * np.log(pb / pa)).sum(-1)
    np.testing.assert_allclose(np_(smoothness_divergence("kl", a, b)), sym, rtol=1e-5)
    assert np_(smoothness_divergence("kl", b, b)).max() < 1e-7
    # Bernoulli form on one logit z == the 2-class softmax on logits (0, z)
    z1, z2 = np.array([[1.5], [-0.3]], "float32"), np.array([[0.2], [0.4]], "float32")
    two = lambda z: np.concatenate([np.zeros_like(z), z], -1)  # noqa: E731
    np.testing.assert_allclose(
        np_(smoothness_divergence("bernoulli", z1, z2)), np_(smoothness_divergence("kl", two(z1), two(z2))), rtol=1e-5
    )
    # squared error element by element ([B, 1] against [B, 1], no [B, B] broadcast)
    np.testing.assert_allclose(np_(smoothness_divergence("mse", z1, z2)), ((z1 - z2) ** 2)[:, 0], rtol=1e-6)


class FixedNoiseSMART(SMART):
    """Same noise for every example: a batch of copies must give the same R_s (batch mean, not sum)."""

    def initial_noise(self, x):
        b = keras.ops.shape(x["token_ids"])[0]
        base = keras.ops.reshape(keras.ops.arange(SEQ * 8, dtype="float32") % 7 - 3.0, (1, SEQ, 8)) * 1e-2
        return [keras.ops.repeat(base, b, axis=0)]


def test_smart_loss_is_a_batch_mean_and_respects_sample_weights():
    """R([a..a, b..b]) is the mean of R([a..a]) and R([b..b]) (a batch sum would be their sum); weight 0 gives 0."""
    bb, model = tiny()
    smart = FixedNoiseSMART(model, bb, noise=SmartNoise(sigma=1e-2, eta=1e-1))
    smart.compile("adam", CE)
    x, _ = data(8)

    def r(rows, weights=None):
        xb = {k: v[rows] for k, v in x.items()}
        return float(np_(smart.smoothness_loss(xb, model(xb, training=True), sample_weight=weights)))

    ra, rb, rab = r([0] * 8), r([1] * 8), r([0] * 4 + [1] * 4)
    assert ra > 0 and rb > 0 and abs(ra - rb) > 1e-3 * ra
    assert rab == pytest.approx((ra + rb) / 2, rel=1e-3)
    assert r([0] * 4 + [1] * 4, np.array([1.0] * 4 + [0.0] * 4, "float32")) == pytest.approx(ra / 2, rel=1e-3)
    assert r(list(range(8)), np.zeros(8, "float32")) == 0.0


@pytest.mark.parametrize("norm", ["inf", "l2"])
def test_perturbation_has_unit_norm_per_token(norm):
    bb, model = tiny()
    x, _ = data(8)
    # epsilon tiny: the reference's normalisation gives exactly a unit vector per token
    smart = SMART(model, bb, noise=SmartNoise(epsilon=1e-12, norm=norm), loss="kl")
    noise = np_(smart.perturbation(x, model(x, training=True))[0])
    size = np.abs(noise).max(-1) if norm == "inf" else np.sqrt((noise**2).sum(-1))
    np.testing.assert_allclose(size, 1.0, rtol=1e-5)
    # the defaults (sigma=1e-5, epsilon=1e-6): max|s| / (max|s| + epsilon), a little under 1
    default = np_(SMART(model, bb, noise={"norm": norm}, loss="kl").perturbation(x, model(x, training=True))[0])
    size = np.abs(default).max(-1) if norm == "inf" else np.sqrt((default**2).sum(-1))
    assert (size < 1.0).all() and (size > 0.5).all()


def fit(model, x, y):
    model.compile(keras.optimizers.Adam(1e-2), CE)
    return model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0).history


@pytest.fixture(scope="module")
def plain_run():
    """The plain model trained from a known start (shared by the lambda tests)."""
    x, y = data(16)
    _, plain = tiny(seed=3)
    start = plain.get_weights()
    fit(plain, x, y)
    return x, y, start, plain.get_weights()


def test_lambda_zero_equals_plain_training(plain_run):
    x, y, start, trained = plain_run
    bb0, m0 = tiny(seed=3)
    m0.set_weights(start)
    h0 = fit(SMART(m0, bb0, lambda_s=0.0), x, y)
    for a, b in zip(trained, m0.get_weights()):
        np.testing.assert_allclose(a, b, atol=2e-6)
    assert min(h0["smart_loss"]) > 0  # still computed and logged at lambda_s = 0


def test_lambda_positive_trains_differently_and_round_trips(plain_run, tmp_path):
    """lambda_s > 0: positive smart_loss, weights leave the plain path; .keras save/load of wrapper and inner model."""
    x, y, start, trained = plain_run
    bb, model = tiny(seed=3)
    model.set_weights(start)
    smart = SMART(model, bb, lambda_s=5.0, noise=SmartNoise(sigma=1e-2, steps=2, norm="l2"), seed=5)
    h = fit(smart, x, y)
    assert min(h["smart_loss"]) > 0
    diff = max(np.abs(a - b).max() for a, b in zip(trained, model.get_weights()))
    assert diff > 1e-4, "lambda_s > 0 did not change training"

    before = np_(smart(x, training=False))
    smart.save(tmp_path / "smart.keras")
    loaded = keras.saving.load_model(tmp_path / "smart.keras")
    assert isinstance(loaded, SMART) and loaded.compiled
    np.testing.assert_allclose(np_(loaded(x, training=False)), before, atol=1e-5)
    for key in ("lambda_s", "noise", "seed"):
        assert getattr(loaded, key) == getattr(smart, key)
    assert smart.get_config()["noise"] == {"epsilon": 1e-6, "sigma": 1e-2, "eta": 1e-3, "steps": 2, "norm": "l2"}
    config = smart.get_config()
    flat = {k: v for k, v in config.items() if k != "noise"} | config["noise"]  # a file saved before the grouping
    assert SMART.from_config(flat).noise == smart.noise
    assert loaded.backbones[0] is not bb and loaded.embedding_layers[0] is loaded.backbones[0].embeddings_dropout
    assert any(layer is loaded.backbones[0] for layer in loaded.model._flatten_layers())
    # the loaded model's loss is the task loss plus lambda_s * R_s again
    xb, yb = {k: v[:8] for k, v in x.items()}, y[:8]
    y_pred = loaded(xb, training=True)
    total = float(np_(loaded.compute_loss(xb, yb, y_pred, training=True)))
    task = float(np_(loaded.compute_loss(xb, yb, y_pred, training=False)))
    assert np.isfinite(total) and total > task
    smart.model.save(tmp_path / "inner.keras")
    inner = keras.saving.load_model(tmp_path / "inner.keras")
    np.testing.assert_allclose(np_(inner(x, training=False)), before, atol=1e-5)


def test_mixed_bfloat16_training():
    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy("mixed_bfloat16")
    try:
        bb, model = tiny()
        smart = SMART(model, bb, lambda_s=1.0, noise=SmartNoise(sigma=1e-2))
        smart.compile(keras.optimizers.Adam(1e-3), CE)
        x, y = data(8)
        assert keras.backend.standardize_dtype(model(x).dtype) == "bfloat16"
        h = smart.fit(x, y, batch_size=8, epochs=1, verbose=0).history
        assert np.isfinite(h["loss"][0]) and h["smart_loss"][0] > 0
        assert all(keras.backend.standardize_dtype(w.dtype) == "float32" for w in model.trainable_weights)
    finally:
        keras.config.set_dtype_policy(previous)


def test_clear_errors():
    bb, model = tiny()
    other, _ = tiny(seed=1)
    with pytest.raises(ValueError, match="not part of the model"):
        SMART(model, other)
    with pytest.raises(ValueError, match="is not a BERT backbone"):
        SMART(model, model.get_layer("head"))
    with pytest.raises(ValueError, match="Unknown SMART loss kind 'kld'"):
        SMART(model, bb, loss="kld")
    with pytest.raises(ValueError, match="norm must be one of"):
        SMART(model, bb, noise={"norm": "l1"})
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        SmartNoise(epsilon=0)
    with pytest.raises(ValueError, match="steps must be an integer >= 0"):
        SmartNoise(steps=1.5)
    with pytest.raises(TypeError, match="noise must be a SmartNoise"):
        SMART(model, bb, noise=(1e-6, 1e-5))
    with pytest.raises(ValueError, match="lambda_s must be >= 0"):
        SMART(model, bb, lambda_s=-1)
    with pytest.raises(ValueError, match="expects probabilities"):
        SMART(model, bb).compile("adam", "sparse_categorical_crossentropy")
    with pytest.raises(ValueError, match="cannot tell which divergence"):
        SMART(model, bb).compile("adam", keras.losses.Hinge())
    smart = SMART(model, bb, loss="kl")
    with pytest.raises(ValueError, match="preprocessor's dict"):
        smart.initial_noise(np.zeros((2, SEQ), "int32"))
