"""RoBERTa: a keras-hub preset folder (written by keras-hub's ``save_to_preset`` from a tiny random model, with a
byte-level BPE vocabulary in the real format) loads into the kit's BertBackbone with RoBERTa's outputs; its tokenizer,
packing, save/load, mixed precision and the offline error."""

import json
import time

import keras
import keras_hub
import numpy as np
import pytest

from kit.models import (
    BertBackbone,
    build_classifier,
    load_backbone,
    load_bundle,
    save_bundle,
)
from kit.text import ByteLevelBPETokenizer
from tests.helpers import ROBERTA_MERGES as MERGES
from tests.helpers import hub_reachable
from tests.helpers import roberta_vocab as _vocab

TEXTS = ["the film", "a fine film in the theatre", "Naïve  café\n\tend 123 it's", "   leading", ""]


def _np(x):
    return keras.ops.convert_to_numpy(x)


@pytest.mark.parametrize("kind", ["single", "pair"])
def test_a_roberta_preset_folder_gives_robertas_outputs(roberta_preset, kind):
    folder, base = roberta_preset
    enc = load_backbone(str(folder), sequence_length=16)
    assert isinstance(enc.backbone, BertBackbone) and isinstance(enc.tokenizer, ByteLevelBPETokenizer)
    assert enc.backbone.layer_norm_epsilon == 1e-5 and enc.backbone.hidden_activation == "gelu"
    x = enc.preprocessor(TEXTS[:2] if kind == "single" else (TEXTS[:2], TEXTS[2:4]))
    if kind == "pair":
        assert x["segment_ids"].max() == 1  # the sides are marked; RoBERTa's zero segment rows ignore them
    ours = _np(enc.backbone(x)["sequence_output"])
    theirs = _np(base({"token_ids": x["token_ids"], "padding_mask": x["padding_mask"]}))
    mask = x["padding_mask"].astype(bool)
    assert np.abs(ours - theirs)[mask].max() < 1e-5


def _huggingface_folder(base, folder):
    """``base``'s weights written as a HuggingFace RoBERTa folder (the names and layouts of ``roberta-base``'s
    ``model.safetensors``, which keras-hub's converter reads back), with ``config.json``, ``vocab.json``,
    ``merges.txt``."""
    from safetensors.numpy import save_file

    h, n = base.hidden_dim, lambda v: np.asarray(_np(v), "float32")
    w = {
        "roberta.embeddings.word_embeddings.weight": n(base.token_embedding.embeddings),
        "roberta.embeddings.position_embeddings.weight": np.concatenate(  # HF keeps 2 reserved rows first
            [np.zeros((2, h), "float32"), n(base.embeddings.position_embedding.position_embeddings)]
        ),
        "roberta.embeddings.token_type_embeddings.weight": np.zeros((1, h), "float32"),
        "roberta.embeddings.LayerNorm.weight": n(base.embeddings_layer_norm.gamma),
        "roberta.embeddings.LayerNorm.bias": n(base.embeddings_layer_norm.beta),
    }
    for i, layer in enumerate(base.transformer_layers):
        p, att = f"roberta.encoder.layer.{i}", layer._self_attention_layer
        for name, dense in (
            ("self.query", att.query_dense),
            ("self.key", att.key_dense),
            ("self.value", att.value_dense),
            ("output.dense", att.output_dense),
        ):
            w[f"{p}.attention.{name}.weight"] = n(dense.kernel).reshape(h, h).T.copy()
            w[f"{p}.attention.{name}.bias"] = n(dense.bias).reshape(h)
        for name, dense in (
            ("intermediate.dense", layer._feedforward_intermediate_dense),
            ("output.dense", layer._feedforward_output_dense),
        ):
            w[f"{p}.{name}.weight"], w[f"{p}.{name}.bias"] = n(dense.kernel).T.copy(), n(dense.bias)
        for name, norm in (
            ("attention.output.LayerNorm", layer._self_attention_layer_norm),
            ("output.LayerNorm", layer._feedforward_layer_norm),
        ):
            w[f"{p}.{name}.weight"], w[f"{p}.{name}.bias"] = n(norm.gamma), n(norm.beta)
    folder.mkdir(parents=True, exist_ok=True)
    save_file(w, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(
        json.dumps(
            {
                "model_type": "roberta",
                "architectures": ["RobertaForMaskedLM"],
                "vocab_size": base.vocabulary_size,
                "num_hidden_layers": base.num_layers,
                "num_attention_heads": base.num_heads,
                "hidden_size": h,
                "intermediate_size": base.intermediate_dim,
                "hidden_dropout_prob": 0.0,
                "attention_probs_dropout_prob": 0.0,
                "max_position_embeddings": base.max_sequence_length + 2,
                "hidden_act": "gelu",
                "layer_norm_eps": 1e-5,
                "pad_token_id": 1,
                "bos_token_id": 0,
                "eos_token_id": 2,
                "type_vocab_size": 1,
            }
        )
    )
    (folder / "vocab.json").write_text(json.dumps(_vocab()))
    (folder / "merges.txt").write_text("#version: 0.2\n" + "\n".join(MERGES) + "\n")
    return folder


def test_a_huggingface_roberta_folder_gives_robertas_outputs(roberta_preset, tmp_path):
    base = roberta_preset[1]
    enc = load_backbone(str(_huggingface_folder(base, tmp_path / "roberta-hf")), sequence_length=16)
    assert isinstance(enc.tokenizer, ByteLevelBPETokenizer) and enc.backbone.layer_norm_epsilon == 1e-5
    x = enc.preprocessor(TEXTS[:2])
    mask = x["padding_mask"].astype(bool)
    theirs = _np(base({"token_ids": x["token_ids"], "padding_mask": x["padding_mask"]}))
    assert np.abs(_np(enc.backbone(x)["sequence_output"]) - theirs)[mask].max() < 1e-5


def test_without_robertas_layer_norm_epsilon_outputs_differ(roberta_preset):
    """Guards the test above: BERT's epsilon (1e-12) on RoBERTa's weights is measurably another function."""
    folder, base = roberta_preset
    enc = load_backbone(str(folder), sequence_length=16)
    bert_eps = BertBackbone.from_config(enc.backbone.get_config() | {"layer_norm_epsilon": 1e-12})
    bert_eps.set_weights(enc.backbone.get_weights())
    x = enc.preprocessor(TEXTS[:2])
    mask = x["padding_mask"].astype(bool)
    diff = np.abs(_np(bert_eps(x)["sequence_output"]) - _np(enc.backbone(x)["sequence_output"]))[mask].max()
    assert diff > 1e-6


def test_roberta_packing_and_truncation(roberta_preset):
    from kit.text import BertPreprocessor

    enc = load_backbone(str(roberta_preset[0]), sequence_length=16)
    tok, pre = enc.tokenizer, enc.preprocessor
    a, b = tok(["the film"])[0], tok(["a fine"])[0]
    x = pre((["the film"], ["a fine"]))
    row = [tok.cls_token_id, *a, tok.sep_token_id, tok.sep_token_id, *b, tok.sep_token_id]
    assert x["token_ids"][0, : len(row)].tolist() == row  # <s> A </s></s> B </s>
    assert x["segment_ids"][0, : len(row)].tolist() == [0] * (len(a) + 2) + [1] * (len(b) + 2)
    assert (x["token_ids"][0, len(row) :] == tok.pad_token_id).all()
    pre = BertPreprocessor(tok, sequence_length=10)
    long = pre((["the film " * 20], ["a fine"]))
    assert long["padding_mask"].sum() == 10 and pre.last_truncated == 1
    assert (long["token_ids"][0] == tok.sep_token_id).sum() == 3


def test_a_roberta_bundle_round_trips(roberta_preset, tmp_path):
    """Notebook 01 at full scale saves its best RoBERTa run as a bundle: it loads back with the BPE tokenizer."""
    enc = load_backbone(str(roberta_preset[0]), sequence_length=12)
    model = build_classifier(enc.backbone, num_classes=2)
    folder = save_bundle(tmp_path / "best_model", model, preprocessor=enc.preprocessor, label_names=["neg", "pos"])
    b = load_bundle(folder)
    assert isinstance(b.preprocessor.tokenizer, ByteLevelBPETokenizer) and b.preprocessor.pair_separators == 2
    np.testing.assert_allclose(
        b.predict(TEXTS[:2]), _np(keras.ops.softmax(model(enc.preprocessor(TEXTS[:2])))), atol=1e-5
    )


def test_a_roberta_pair_needs_room_for_its_separators(roberta_preset):
    from kit.text import BertPreprocessor

    tok = load_backbone(str(roberta_preset[0]), sequence_length=8).tokenizer
    with pytest.raises(ValueError, match="cannot hold a pair's 4 special tokens"):
        BertPreprocessor(tok, sequence_length=3)((["a"], ["b"]))


def test_a_long_text_is_cut_exactly(roberta_preset):
    """The preprocessor tokenizes a long text's first words only; the ids equal the whole text's, cut (byte-level
    BPE encodes whitespace, so the cut keeps the text as written: double spaces, tabs, newlines)."""
    enc = load_backbone(str(roberta_preset[0]), sequence_length=12)
    texts = ["the  film\n\tin the theatre " * 30, "a\u00a0fine\r\nfilm " * 40, "x.\x1c.y " * 40, "short"]
    full = enc.tokenizer(texts)
    assert enc.preprocessor.tokenize(texts, 11) == [row[:11] for row in full]


@pytest.mark.skipif(
    keras.backend.backend() != "tensorflow",
    reason="keras-hub's byte-pair tokenizer runs on TensorFlow, which the kit keeps out of jax and "
    "torch processes: this comparison runs in the tensorflow run of the suite",
)
def test_tokenizer_matches_keras_hubs_roberta_tokenizer():
    vocab = _vocab()
    theirs = keras_hub.models.RobertaTokenizer(vocabulary=vocab, merges=MERGES)(TEXTS)
    theirs = [list(map(int, r)) for r in (theirs.to_list() if hasattr(theirs, "to_list") else theirs)]
    assert ByteLevelBPETokenizer(vocab, MERGES)(TEXTS) == theirs
    # a text that spells a special token stays text here (keras-hub reads it as the token)
    ours = ByteLevelBPETokenizer(vocab, MERGES)(["a <mask>"])[0]
    assert vocab["<mask>"] not in ours and len(ours) > 2


@pytest.mark.one_backend
def test_tokenizer_files_round_trip_and_errors(tmp_path):
    tok = ByteLevelBPETokenizer(_vocab(), MERGES)
    again = ByteLevelBPETokenizer.from_folder(tok.save(tmp_path / "tok"))  # vocab.json + merges.txt (HF)
    assert again(TEXTS) == tok(TEXTS) and again.merges == tok.merges
    assert again.decode(again(["a fine film"])[0]) == "a fine film"
    with pytest.raises(ValueError, match=r"no \['<mask>'\]"):
        ByteLevelBPETokenizer({k: v for k, v in _vocab().items() if k != "<mask>"}, MERGES)
    with pytest.raises(ValueError, match="merges line 2"):
        ByteLevelBPETokenizer(_vocab(), ["Ġ f", "Ġf i l"])
    with pytest.raises(FileNotFoundError, match="vocab.json and merges.txt"):
        ByteLevelBPETokenizer.from_folder(tmp_path)


def test_a_roberta_classifier_round_trips_in_mixed_precision(roberta_preset, tmp_path):
    folder, _ = roberta_preset
    keras.config.set_dtype_policy("mixed_bfloat16")
    try:
        enc = load_backbone(str(folder), sequence_length=12, dtype="mixed_bfloat16")
        assert all(w.dtype == "float32" for w in enc.backbone.weights)
        model = build_classifier(enc.backbone, num_classes=3)
        x = enc.preprocessor(TEXTS[:3])
        ref = _np(keras.ops.cast(model(x), "float32"))
        model.save(tmp_path / "roberta_classifier.keras")
        loaded = keras.saving.load_model(tmp_path / "roberta_classifier.keras")
    finally:
        keras.config.set_dtype_policy("float32")
    inner = next(layer for layer in loaded.layers if isinstance(layer, BertBackbone))
    assert inner.layer_norm_epsilon == 1e-5
    assert all(layer._feedforward_layer_norm.epsilon == 1e-5 for layer in inner.transformer_layers)
    np.testing.assert_allclose(_np(keras.ops.cast(loaded(x), "float32")), ref, atol=1e-6)


def test_roberta_by_name_from_kit_preset_dir(roberta_preset, tmp_path, monkeypatch):
    (tmp_path / "roberta_base_en").symlink_to(roberta_preset[0], target_is_directory=True)
    monkeypatch.setenv("KIT_PRESET_DIR", str(tmp_path))
    enc = load_backbone("roberta_base_en", sequence_length=8)
    assert "KIT_PRESET_DIR" in enc.source and isinstance(enc.tokenizer, ByteLevelBPETokenizer)
    assert enc.backbone.layer_norm_epsilon == 1e-5


@pytest.mark.skipif(hub_reachable(), reason="the model hub answers here: the offline error cannot be seen")
def test_an_offline_roberta_name_fails_at_once_saying_what_to_do(monkeypatch, tmp_path):
    monkeypatch.setenv("KIT_PRESET_DIR", str(tmp_path))  # empty: no local copy
    t = time.perf_counter()
    with pytest.raises(
        ConnectionError,
        match=r"roberta_base_en.*KIT_PRESET_DIR.*RobertaBackbone.*save_to_preset"
        r".*vocab\.json, merges\.txt",
    ):
        load_backbone("roberta_base_en")
    assert time.perf_counter() - t < 30
