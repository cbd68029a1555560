"""The offline encoder matches HuggingFace on this backend; preprocessing; splitting; errors."""

import keras
import numpy as np
import pytest

from kit.models import BertBackbone, build_classifier, load_backbone, split_backbone
from tests.helpers import hub_reachable, tiny_inputs


def _pairs(meta):
    return ([a for a, _ in meta["pairs"]], [b for _, b in meta["pairs"]])


def test_token_ids_match_huggingface(minilm, reference):
    ref, meta = reference
    for kind, x in (("single", meta["singles"]), ("pair", _pairs(meta))):
        inp = minilm.preprocessor(x)
        for key in ("token_ids", "segment_ids", "padding_mask"):
            np.testing.assert_array_equal(inp[key], ref[f"{kind}_{key}"], err_msg=f"{kind} {key}")


@pytest.mark.parametrize("kind", ["single", "pair"])
def test_outputs_match_huggingface(minilm, reference, kind):
    ref, meta = reference
    x = meta["singles"] if kind == "single" else _pairs(meta)
    out = minilm.backbone(minilm.preprocessor(x))
    mask = ref[f"{kind}_padding_mask"].astype(bool)
    seq = keras.ops.convert_to_numpy(out["sequence_output"])
    assert np.abs(seq - ref[f"{kind}_sequence_output"])[mask].max() <= 1e-4
    pooled = keras.ops.convert_to_numpy(out["pooled_output"])
    assert np.abs(pooled - ref[f"{kind}_pooled_output"]).max() <= 1e-4


def test_a_dtype_policy_at_load(minilm, reference):
    """load_backbone(dtype=...) builds the checkpoint once under that policy: bfloat16 compute, float32 weights, the
    exact-GELU fix kept, outputs near the float32 model's."""
    ref, meta = reference
    mixed = load_backbone("minilm-l6", sequence_length=minilm.preprocessor.sequence_length, dtype="mixed_bfloat16")
    assert isinstance(mixed.backbone, BertBackbone) and mixed.backbone.hidden_activation == "gelu"
    assert all(w.dtype == "float32" for w in mixed.backbone.weights)
    out = mixed.backbone(minilm.preprocessor(meta["singles"]))["sequence_output"]
    assert keras.backend.standardize_dtype(out.dtype) == "bfloat16"
    mask = ref["single_padding_mask"].astype(bool)
    seq = keras.ops.convert_to_numpy(keras.ops.cast(out, "float32"))
    assert np.abs(seq - ref["single_sequence_output"])[mask].mean() < 0.05


def test_without_the_gelu_fix_outputs_differ(minilm, reference):
    """Guards the test above: keras-hub's approximate GELU misses the reference by ~3e-3."""
    ref, meta = reference
    cfg = minilm.backbone.get_config() | {"hidden_activation": "gelu_approximate"}
    approx = BertBackbone.from_config(cfg)
    approx.set_weights(minilm.backbone.get_weights())
    seq = keras.ops.convert_to_numpy(approx(minilm.preprocessor(meta["singles"]))["sequence_output"])
    mask = ref["single_padding_mask"].astype(bool)
    assert np.abs(seq - ref["single_sequence_output"])[mask].max() > 1e-3


def test_accents_and_control_characters(minilm):
    ids = minilm.preprocessor.tokenize(["naïve café", "bell\x07 zero\u200bwidth"])
    unk = minilm.tokenizer.token_to_id("[UNK]")
    assert unk not in ids[0] and unk not in ids[1]
    assert ids[0] == minilm.preprocessor.tokenize(["naive cafe"])[0]


def test_pair_is_never_read_as_labels(minilm):
    a, b = ["How do I learn Keras?"], ["What is the best way to learn Keras?"]
    inp = minilm.preprocessor((a, b))
    assert set(inp) == {"token_ids", "segment_ids", "padding_mask"}
    n_b = len(minilm.preprocessor.tokenize(b)[0])
    assert inp["segment_ids"][0].sum() == n_b + 1  # the second sentence and its [SEP] are segment 1
    sep = minilm.tokenizer.token_to_id("[SEP]")
    assert (inp["token_ids"][0] == sep).sum() == 2


def test_pair_truncation_longest_first(minilm):
    pre = minilm.preprocessor
    long_a, short_b = ["word " * 100], ["short one"]
    inp = pre((long_a, short_b))
    assert inp["padding_mask"].sum() == pre.sequence_length and pre.last_truncated == 1
    assert inp["segment_ids"][0].sum() == len(pre.tokenize(short_b)[0]) + 1  # b kept whole


def test_preprocessor_errors(minilm):
    pre = minilm.preprocessor
    with pytest.raises(TypeError, match="one string"):
        pre("just a string")
    with pytest.raises(TypeError, match="Ambiguous"):
        pre(("first", "second"))
    with pytest.raises(ValueError, match="differ in length"):
        pre((["a", "b"], ["c"]))
    with pytest.raises(TypeError, match="item 1 is int"):
        pre(["ok", 3])


def test_sequence_too_long_is_refused(minilm):
    from kit.text import BertPreprocessor

    with pytest.raises(ValueError, match="longer than the model's 512 position"):
        BertPreprocessor(minilm.tokenizer, sequence_length=1024, max_sequence_length=512)


def test_unknown_backbone_name():
    with pytest.raises(ValueError, match="Unknown backbone 'minilm-l12'.*minilm-l6"):
        load_backbone("minilm-l12")


def test_a_preset_name_loads_from_kit_preset_dir(minilm, tmp_path, monkeypatch):
    from kit.models.backbones import minilm_path

    (tmp_path / "bert_tiny_en_uncased").symlink_to(minilm_path(), target_is_directory=True)
    monkeypatch.setenv("KIT_PRESET_DIR", str(tmp_path))
    local = load_backbone("bert_tiny_en_uncased", sequence_length=16)
    assert "KIT_PRESET_DIR" in local.source
    x = local.preprocessor(["a local copy of a preset"])
    # 16 vs 40 positions: float sums differ by ~1e-5
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(local.backbone(x)["sequence_output"]),
        keras.ops.convert_to_numpy(
            minilm.backbone(minilm.preprocessor(["a local copy of a preset"]))["sequence_output"]
        )[:, :16],
        atol=1e-4,
    )


@pytest.mark.skipif(hub_reachable(), reason="the model hub answers here: the offline error cannot be seen")
def test_an_offline_preset_name_fails_at_once_saying_what_to_do(monkeypatch, tmp_path):
    import time

    monkeypatch.setenv("KIT_PRESET_DIR", str(tmp_path))  # empty: no local copy
    t = time.perf_counter()
    with pytest.raises(ConnectionError, match=r"bert_tiny_en_uncased.*KIT_PRESET_DIR.*save_to_preset"):
        load_backbone("bert_tiny_en_uncased")
    assert time.perf_counter() - t < 60


def test_split_parts_equal_whole(minilm):
    parts = minilm.parts()
    x = minilm.preprocessor(["The parts must compose to the whole.", "Twice."])
    whole = minilm.backbone(x)
    emb = parts.embeddings({"token_ids": x["token_ids"], "segment_ids": x["segment_ids"]})
    enc = parts.encoder({"embeddings": emb, "padding_mask": keras.ops.convert_to_tensor(x["padding_mask"])})
    for key in ("sequence_output", "pooled_output"):
        np.testing.assert_allclose(
            keras.ops.convert_to_numpy(enc[key]), keras.ops.convert_to_numpy(whole[key]), atol=1e-5
        )
    assert parts.token_embedding.embeddings.shape == (30522, 384)


def test_split_shares_weights(tiny_bert):
    parts = split_backbone(tiny_bert)
    table = parts.token_embedding.embeddings
    assert table is tiny_bert.token_embedding.embeddings
    n_shared = {id(w) for w in parts.embeddings.weights + parts.encoder.weights}
    assert n_shared == {id(w) for w in tiny_bert.weights}


def test_hidden_activation_survives_save_load(tiny_bert, tmp_path):
    x = tiny_inputs()
    ref = keras.ops.convert_to_numpy(tiny_bert(x)["sequence_output"])
    path = tmp_path / "bert.keras"
    tiny_bert.save(path)
    loaded = keras.saving.load_model(path)
    assert isinstance(loaded, BertBackbone) and loaded.hidden_activation == "gelu"
    np.testing.assert_allclose(keras.ops.convert_to_numpy(loaded(x)["sequence_output"]), ref, atol=1e-5)


def test_classifier_fits_and_round_trips(tiny_bert, tmp_path):
    model = build_classifier(tiny_bert, num_classes=3)
    x = tiny_inputs(batch=8)
    y = np.arange(8) % 3
    model.compile(
        optimizer=keras.optimizers.Adam(1e-3), loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    )
    before = model.evaluate(x, y, verbose=0)
    model.fit(x, y, epochs=5, batch_size=8, verbose=0)
    assert model.evaluate(x, y, verbose=0) < before
    path = tmp_path / "clf.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(loaded(x)), keras.ops.convert_to_numpy(model(x)), atol=1e-5)


def test_bad_hidden_activation():
    with pytest.raises(ValueError, match="hidden_activation"):
        BertBackbone(
            vocabulary_size=10, num_layers=1, num_heads=1, hidden_dim=4, intermediate_dim=8, hidden_activation="relu"
        )
