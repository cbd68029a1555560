"""Multitask architectures: multi-BERT, CerBERTus (k), triple-BERT, static BERT.

Layer contract, precision, copies, counts, and the variables each sharing mode creates.
"""

import hashlib

import keras
import numpy as np
import pytest

from kit.models.multitask_bert import (
    MultitaskBert,
    cerbertus,
    multi_bert,
    parameter_counts,
    triple_bert,
)
from kit.testing import run_layer_test, run_precision_test
from tests.helpers import tiny_backbone, tiny_inputs

HEADS = {"sst": 5, "qqp": 1, "sts": 1}
VOCAB, SEQ = 32, 10


def tiny(seed=0, layers=3, **more):
    return tiny_backbone(
        seed, vocabulary_size=VOCAB, num_layers=layers, hidden_dim=8, max_sequence_length=SEQ, dropout=0.0, **more
    )


def np_(t):
    return keras.ops.convert_to_numpy(t)


def test_layer_contract():
    x = tiny_inputs(batch=4, seq=SEQ, vocab=VOCAB)
    run_layer_test(
        MultitaskBert,
        {"backbone": tiny(), "heads": HEADS, "k": 1, "dropout": 0.0},
        x,
        expected_output_shape={"sst": (4, 5), "qqp": (4, 1), "sts": (4, 1)},
    )


def cerbertus_with_dtype(dtype=None, **kwargs):
    return MultitaskBert(tiny(dtype=dtype), **kwargs)


def test_precision_tier():
    x = tiny_inputs(batch=2, seq=SEQ, vocab=VOCAB)
    run_precision_test(cerbertus_with_dtype, {"heads": HEADS, "k": 2, "static": True}, x)


@pytest.mark.parametrize("k,share", [(0, True), (2, True), (3, False)])
def test_mean_pooling_reads_the_masked_mean_and_round_trips(k, share, tmp_path):
    x = tiny_inputs(batch=4, seq=SEQ, vocab=VOCAB)
    if k == 2:  # the whole layer contract once (it trains, saves and reloads); the checks below for every build
        run_layer_test(
            MultitaskBert,
            {"backbone": tiny(), "heads": HEADS, "k": k, "share_embeddings": share, "dropout": 0.0, "pooling": "mean"},
            x,
            expected_output_shape={"sst": (4, 5), "qqp": (4, 1), "sts": (4, 1)},
        )
    bb = tiny()
    model = MultitaskBert(bb, HEADS, k=k, share_embeddings=share, pooling="mean", dropout=0.0)
    # the head of the first task sees the masked mean of the last layer, not [CLS] through the pooler
    seq = bb(x)["sequence_output"]
    mask = np_(x["padding_mask"]).astype("float32")[..., None]
    mean = (np_(seq) * mask).sum(1) / mask.sum(1)
    head = model.get_layer("sst_head")
    np.testing.assert_allclose(np_(model(x)["sst"]), np_(head(mean)), rtol=1e-4, atol=1e-5)
    if share:
        assert model.depth_layers()["pooler"] == []
    cls_model = MultitaskBert(tiny(), HEADS, k=k, share_embeddings=share, dropout=0.0)
    assert not np.allclose(np_(cls_model(x)["sst"]), np_(model(x)["sst"]))
    path = tmp_path / "mean.keras"
    model.save(path)
    back = keras.saving.load_model(path)
    assert back.pooling == "mean"
    np.testing.assert_allclose(np_(back(x)["sts"]), np_(model(x)["sts"]), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="pooling must be one of"):
        MultitaskBert(tiny(), HEADS, pooling="max")


@pytest.mark.parametrize("build", ["multi", "cerbertus1", "cerbertus3", "triple", "static2"])
def test_branches_start_from_the_pretrained_encoder_and_counts_match(build):
    bb = tiny()
    x = tiny_inputs(batch=4, seq=SEQ, vocab=VOCAB)
    model = {
        "multi": lambda: multi_bert(bb, HEADS),
        "cerbertus1": lambda: cerbertus(bb, HEADS, k=1),
        "cerbertus3": lambda: cerbertus(bb, HEADS, k=3),
        "triple": lambda: triple_bert(bb, HEADS),
        "static2": lambda: cerbertus(bb, HEADS, k=2, static=True),
    }[build]()
    pooled = np_(bb(x)["pooled_output"])
    for task in HEADS:  # every task's head reads the pretrained pooled output at the start
        head_in = keras.Model(model.inputs, model.get_layer(f"{task}_head").input)
        np.testing.assert_allclose(np_(head_in(x))[:, :8], pooled, atol=1e-5, err_msg=task)
        if model.static:
            np.testing.assert_allclose(np_(head_in(x))[:, 8:], pooled, atol=1e-5)
    summary = model.parameter_summary()
    rows = {r["architecture"]: r for r in parameter_counts(bb, HEADS, ks=(0, 1, 2, 3), static=model.static)}
    assert rows[summary["architecture"]]["total"] == summary["total"]
    assert rows[summary["architecture"]]["trainable"] == summary["trainable"]
    depth = model.depth_layers()
    copies = {"multi": 1, "cerbertus1": 3, "cerbertus3": 3, "triple": 3, "static2": 3}[build]
    assert len(depth["layers"][-1]) == copies and len(depth["layers"]) == 3
    assert len(model.backbones) == (3 if build == "triple" else 1)


def test_parameter_counts_order():
    bb = tiny(layers=4)
    rows = parameter_counts(bb, HEADS, ks=(0, 1, 2, 4))
    totals = [r["total"] for r in rows]
    assert [r["architecture"] for r in rows] == [
        "multi-BERT",
        "CerBERTus k=1",
        "CerBERTus k=2",
        "CerBERTus k=4",
        "triple-BERT",
    ]
    assert totals == sorted(totals) and rows[0]["vs_multi"] == 1.0
    layer = sum(int(np.prod(w.shape)) for w in bb.transformer_layers[0].weights)
    assert totals[2] - totals[1] == 2 * layer  # one more task-specific layer for each of the two extra tasks


@pytest.mark.parametrize("build", ["cerbertus", "triple"])
def test_trained_copies_diverge_and_round_trip(build, tmp_path):
    bb = tiny()
    model = cerbertus(bb, HEADS, k=1) if build == "cerbertus" else triple_bert(bb, HEADS)
    x = tiny_inputs(batch=4, seq=SEQ, vocab=VOCAB)
    # train only the qqp branch (sample weights): its copy leaves the pretrained weights, the others stay put
    top = lambda task: model.depth_layers()["layers"][-1][list(HEADS).index(task)]  # noqa: E731
    before = {t: [w.copy() for w in top(t).get_weights()] for t in HEADS}
    model.compile(
        keras.optimizers.SGD(0.5),
        loss={
            "sst": keras.losses.SparseCategoricalCrossentropy(True),
            "qqp": keras.losses.BinaryCrossentropy(True),
            "sts": "mse",
        },
    )
    y = {"sst": np.zeros(4, "int32"), "qqp": np.ones((4, 1), "float32"), "sts": np.zeros((4, 1), "float32")}
    w = {"sst": np.zeros(4, "float32"), "qqp": np.ones(4, "float32"), "sts": np.zeros(4, "float32")}
    model.fit(x, y, sample_weight=w, batch_size=4, epochs=2, verbose=0)
    moved = {t: max(np.abs(a - b).max() for a, b in zip(before[t], top(t).get_weights())) for t in HEADS}
    assert moved["qqp"] > 1e-4 and moved["sst"] == 0.0 and moved["sts"] == 0.0, moved
    out = model(x)
    model.save(tmp_path / "m.keras")
    loaded = keras.saving.load_model(tmp_path / "m.keras")
    assert isinstance(loaded, MultitaskBert) and loaded.architecture == model.architecture
    got = loaded(x)
    for t in HEADS:
        np.testing.assert_allclose(np_(got[t]), np_(out[t]), atol=1e-5, err_msg=t)
    # the copies were restored as trained, not copied again from the backbone
    assert (
        max(
            np.abs(a - b).max()
            for a, b in zip(loaded.depth_layers()["layers"][-1][1].get_weights(), top("qqp").get_weights())
        )
        < 1e-6
    )


def test_clear_errors():
    bb = tiny()
    with pytest.raises(ValueError, match=r"k \(task-specific top layers\) must be an integer in \[0, 3\]"):
        cerbertus(bb, HEADS, k=4)
    with pytest.raises(ValueError, match="triple-BERT"):
        MultitaskBert(bb, HEADS, k=1, share_embeddings=False)
    with pytest.raises(ValueError, match="must start with a letter"):
        multi_bert(bb, {"sst-5": 5})
    with pytest.raises(ValueError, match="heads is empty"):
        multi_bert(bb, {})
    with pytest.raises(ValueError, match="at least 1 output"):
        multi_bert(bb, {"sst": 0})


# {mode: (MultitaskBert kwargs, (number of variables, digest))}, recorded on the code before MultitaskBert.__init__ was
# split into a builder per sharing mode (issue 27), identical on torch and jax: the digest covers every variable's
# path, shape and trainable flag in model.weights' order and the layer names in model.layers' order, which is what
# a saved .keras file and an optimizer see. A change here breaks the .keras files saved before it.
VARIABLES_BY_MODE = {
    "multi": ({"k": 0}, (61, "f99e8164317ca5a5")),
    "cerbertus1": ({"k": 1}, (97, "99b20f7368dc5a9c")),
    "cerbertus2_static": ({"k": 2, "static": True}, (184, "abd8f0edfd88cb8f")),
    "cerbertus3": ({"k": 3}, (161, "9367087960e5bded")),
    "triple": ({"k": 3, "share_embeddings": False}, (171, "ec9bc247f397db6a")),
    "triple_static": ({"k": 3, "share_embeddings": False, "static": True}, (226, "24a0bf4a669b98fc")),
    "multi_mean": ({"k": 0, "pooling": "mean"}, (61, "bcd986c1dacc229c")),
    "cerbertus2_mean": ({"k": 2, "pooling": "mean"}, (125, "5ce5f4700af9c89e")),
    "cerbertus2_mean_static": ({"k": 2, "pooling": "mean", "static": True}, (180, "d12ec8ef9344a7ee")),
    "triple_mean": ({"k": 3, "share_embeddings": False, "pooling": "mean"}, (171, "0bf2ab92779656d2")),
}


@pytest.mark.parametrize("mode", list(VARIABLES_BY_MODE))
def test_each_mode_creates_the_same_variables_as_before(mode):
    kwargs, expected = VARIABLES_BY_MODE[mode]
    bb = tiny(name="bert")  # named, so the clones' names do not depend on what the session built before
    model = MultitaskBert(bb, HEADS, **kwargs)
    rows = [(v.path, tuple(int(d) for d in v.shape), bool(v.trainable)) for v in model.weights]
    layers = [layer.name for layer in model.layers]
    digest = hashlib.sha256(repr((rows, layers)).encode()).hexdigest()[:16]
    assert (len(rows), digest) == expected, f"{mode}: layers {layers}; variables {rows}"
