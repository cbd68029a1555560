"""Saved work: a model and its text pipeline in one folder, loaded back here and on another backend."""

import json
import os
import subprocess
import sys

import keras
import numpy as np
import pytest

from kit.models import BertBackbone, build_classifier, build_lstm_classifier
from kit.models.bundle import load_bundle, save_bundle
from kit.text import BertPreprocessor, CompactVocabulary, WordPieceTokenizer, WordVocab
from tests.helpers import tiny_backbone

TEXTS = ["a fine film", "a bad film", "films are fine", "bad"]
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "fine", "film", "##s", "bad", "are", "."]


def _wordpiece_bundle(tmp_path, trained=False):
    keras.utils.set_random_seed(0)
    pre = BertPreprocessor(WordPieceTokenizer(VOCAB), sequence_length=8, max_sequence_length=16)
    compact = CompactVocabulary.fit([pre(TEXTS)["token_ids"]], max_size=9, special_ids=[0, 1, 2, 3, 4], unk_id=1)
    backbone = tiny_backbone(vocabulary_size=compact.size, num_layers=1, hidden_dim=8)
    model = build_classifier(backbone, num_classes=3)
    if trained:  # compiled with the kit's AdamW: the saved file names kit>AdamW, which a fresh process must find
        from kit.train import FitRecipe, fit_classifier

        x, y = compact(pre(TEXTS)), np.array([0, 1, 2, 1])
        fit_classifier(model, (x, y), (x, y), FitRecipe(1e-3, epochs=1, batch_size=4, schedule="linear"))
    folder = save_bundle(
        tmp_path / "clf",
        model,
        preprocessor=pre,
        vocabulary=compact,
        label_names=["neg", "pos", "meh"],
        info={"trained_on": "toy"},
    )
    return model, pre, compact, folder


def test_wordpiece_classifier_with_compact_vocabulary(tmp_path):
    model, pre, compact, folder = _wordpiece_bundle(tmp_path)
    want = keras.ops.convert_to_numpy(keras.ops.softmax(model(compact(pre(TEXTS)))))
    b = load_bundle(folder)
    np.testing.assert_allclose(b.predict(TEXTS), want, atol=1e-5)
    assert b.label_names == ["neg", "pos", "meh"] and b.info == {"trained_on": "toy"}
    assert b.preprocessor.sequence_length == 8 and b.vocabulary.size == compact.size
    assert sorted(p.name for p in folder.iterdir()) == ["bundle.json", "compact_vocab.npy", "model.keras", "tokenizer"]


def test_lstm_with_word_vocabulary_and_regression(tmp_path):
    vocab = WordVocab.fit(TEXTS)
    keras.utils.set_random_seed(0)
    model = build_lstm_classifier(len(vocab), num_classes=1, n_layers=1, cells=4, embedding_dim=8)
    folder = save_bundle(tmp_path / "lstm", model, word_vocab=vocab, sequence_length=6)
    b = load_bundle(folder)
    got = b.predict(TEXTS)
    assert got.shape == (4,)  # regression: one number per text
    np.testing.assert_allclose(got, keras.ops.convert_to_numpy(model(vocab.encode(TEXTS, 6)))[:, 0], atol=1e-5)
    assert b.word_vocab.words == vocab.words


def test_bundle_errors(tmp_path):
    with pytest.raises(ValueError, match="preprocessor .* or word_vocab"):
        save_bundle(tmp_path / "x", build_lstm_classifier(10, 2, n_layers=1, cells=2, embedding_dim=4))
    with pytest.raises(FileNotFoundError, match="not a saved bundle"):
        load_bundle(tmp_path)


def test_loads_on_another_backend(tmp_path):
    """Saved here after training with the kit's AdamW, loaded in a fresh process (kit.models alone imported) on
    another backend: the same predictions, compiled as that backend's "auto" (a jax-saved model says jit_compile=True,
    which torch would run through torch.compile: 150 s for four sentences on a CPU)."""
    _, _, _, folder = _wordpiece_bundle(tmp_path, trained=True)
    want = load_bundle(folder).predict(TEXTS)
    other = "torch" if keras.backend.backend() != "torch" else "jax"
    code = (
        f"import json; from kit.models.bundle import load_bundle; "
        f"b = load_bundle({str(folder)!r}); "
        f"print(json.dumps([b.model.jit_compile, b.predict({TEXTS!r}).tolist()]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, KERAS_BACKEND=other),
    )
    assert out.returncode == 0, out.stderr[-2000:]
    jit, got = json.loads(out.stdout.strip().splitlines()[-1])
    assert jit is (other == "jax"), f"loaded on {other} with jit_compile={jit}"
    np.testing.assert_allclose(np.array(got), want, atol=1e-5)


def test_a_model_saved_inside_a_training_wrapper_says_what_to_import(tmp_path):
    """kit.models registers what a saved model names at or below it (layers, the kit's optimizers and metrics); a model
    saved inside kit.train's SMART wrapper names a class above it, and a fresh process says what to import."""
    from kit.train import SMART

    model, pre, compact, _ = _wordpiece_bundle(tmp_path)
    backbone = next(layer for layer in model.layers if isinstance(layer, BertBackbone))
    smart = SMART(model, backbone)
    smart.build()  # as fit would: Keras warns on saving a model that is not built
    folder = save_bundle(tmp_path / "smart", smart, preprocessor=pre, vocabulary=compact)
    code = f"from kit.models.bundle import load_bundle; load_bundle({str(folder)!r})"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode != 0 and "needs `import kit.train` before loading" in out.stderr, out.stderr[-2000:]
    code = f"import kit.train; from kit.models.bundle import load_bundle; load_bundle({str(folder)!r})"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]


def test_a_model_compiled_with_the_kits_metrics_and_schedule_loads_in_a_fresh_process(tmp_path):
    """Pearson (kit.metrics), the masked accuracy, LayerwiseAdamW and a warm-up schedule (kit.optimizers) are what a
    compiled model's file may name: kit.models registers them all, so the bundle loads with kit.models alone."""
    from kit.metrics import MaskedAccuracy, Pearson
    from kit.optimizers import LayerwiseAdamW, schedules

    vocab = WordVocab.fit(TEXTS)
    keras.utils.set_random_seed(0)
    model = build_lstm_classifier(len(vocab), num_classes=1, n_layers=1, cells=4, embedding_dim=8)
    optimizer = LayerwiseAdamW(learning_rate=schedules.WarmupLinearDecay(1e-3, total_steps=4, warmup_steps=1))
    model.compile(optimizer=optimizer, loss="mse", metrics=[Pearson(), MaskedAccuracy()])
    model.fit(vocab.encode(TEXTS, 6), np.array([0.1, 0.9, 0.5, 0.2], "float32"), epochs=1, verbose=0)
    folder = save_bundle(tmp_path / "compiled", model, word_vocab=vocab, sequence_length=6)
    code = f"from kit.models.bundle import load_bundle; print(load_bundle({str(folder)!r}).predict(['a film']).shape)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip().splitlines()[-1] == "(1,)", out.stderr[-2000:]
