"""The kit's WordPiece tokenizer: HuggingFace's ids exactly, no TensorFlow, save/load, clear errors."""

import json
import os
import subprocess
import sys

import keras
import numpy as np
import pytest

from kit.text import BertPreprocessor, WordPieceTokenizer
from tests.helpers import FIXTURES

REFERENCE = json.loads((FIXTURES / "wordpiece_reference.json").read_text())
TOY = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "fine", "film", "##s", "."]


@pytest.fixture(scope="module")
def minilm_tokenizer():
    from kit.models.backbones import minilm_path

    return WordPieceTokenizer.from_folder(minilm_path())


def test_ids_match_huggingface_reference(minilm_tokenizer):
    """16 hard cases (final sigma, ½, ligatures, control and zero-width chars, CJK, long words, corpus passages)."""
    rows = REFERENCE["rows"]
    got = minilm_tokenizer([r["text"] for r in rows])
    bad = [r["text"][:60] for r, ids in zip(rows, got) if ids != r["ids"]]
    assert not bad, f"ids differ from HuggingFace on {bad}"


def test_normalization_is_bert_uncased(minilm_tokenizer):
    assert minilm_tokenizer.normalize("Naïve CAFÉ\u200b\x07!") == "naive cafe!"
    assert minilm_tokenizer(["Naïve café"]) == minilm_tokenizer(["naive cafe"])


def test_save_and_load_round_trip(tmp_path, minilm_tokenizer):
    folder = minilm_tokenizer.save(tmp_path / "tok")
    again = WordPieceTokenizer.from_folder(folder)
    texts = [r["text"] for r in REFERENCE["rows"]]
    assert again(texts) == minilm_tokenizer(texts)
    assert again.vocabulary_size() == 30522 and again.lowercase and again.strip_accents is None


def test_special_ids_and_lookup():
    tok = WordPieceTokenizer(TOY)
    assert (tok.pad_token_id, tok.unk_token_id, tok.cls_token_id, tok.sep_token_id, tok.mask_token_id) == (
        0,
        1,
        2,
        3,
        4,
    )
    assert tok.id_to_token(tok.token_to_id("film")) == "film"
    assert tok(["films", "unknownword"]) == [[7, 8], [1]]
    with pytest.raises(KeyError, match="not in the vocabulary"):
        tok.token_to_id("zebra")


def test_bad_vocabularies(tmp_path):
    with pytest.raises(ValueError, match=r"has no \['\[MASK\]'\]"):
        WordPieceTokenizer([t for t in TOY if t != "[MASK]"])
    with pytest.raises(ValueError, match="repeats the token 'film'"):
        WordPieceTokenizer(TOY + ["film"])
    with pytest.raises(FileNotFoundError, match="No vocab.txt"):
        WordPieceTokenizer.from_folder(tmp_path)
    with pytest.raises(TypeError, match="one string"):
        WordPieceTokenizer(TOY)("a film")


def test_keras_hub_preset_layout(tmp_path):
    """A keras-hub preset keeps its vocabulary in assets/tokenizer/ and its casing in tokenizer.json."""
    from kit.models.backbones import preset_tokenizer

    (tmp_path / "assets" / "tokenizer").mkdir(parents=True)
    (tmp_path / "assets" / "tokenizer" / "vocabulary.txt").write_text("\n".join(TOY) + "\n")
    (tmp_path / "tokenizer.json").write_text(
        json.dumps({"class_name": "BertTokenizer", "config": {"lowercase": True, "strip_accents": False}})
    )
    tok = preset_tokenizer(str(tmp_path))
    assert tok(["A fine Film."]) == [[5, 6, 7, 9]]
    with pytest.raises(ValueError, match="has no BERT vocabulary"):
        preset_tokenizer(str(tmp_path / "assets"))


def test_preprocessor_cut_equals_full_path(minilm_tokenizer):
    """Long texts are tokenized from their first words only; the result must equal the full path."""
    pre = BertPreprocessor(minilm_tokenizer, sequence_length=24)
    rng = np.random.default_rng(0)
    words = ["film", "un-believable", "naïve", "\u200b", "x" * 30, "it's", "...", "Tokyo-based", "a", "北京"]
    texts = [" ".join(rng.choice(words, size=int(n))) for n in rng.integers(1, 120, 40)]
    texts.append("\u0301 " * 200 + "finally words")  # lone accents give no token: the full text is needed
    got = pre(texts)
    want = pre._pack(minilm_tokenizer(texts), None)
    for k in got:
        np.testing.assert_array_equal(got[k], want[k])
    assert got["padding_mask"][-1].sum() == 2 + len(minilm_tokenizer(["finally words"])[0])
    pairs = (texts[:20], texts[20:40])
    got, n_got = pre(pairs), pre.last_truncated
    want = pre._pack(minilm_tokenizer(pairs[0]), minilm_tokenizer(pairs[1]))
    for k in got:
        np.testing.assert_array_equal(got[k], want[k])
    assert n_got == pre.last_truncated > 0


def test_no_tensorflow_under_jax_or_torch():
    """After load_backbone and a preprocessor call under jax or torch, TensorFlow is not imported."""
    backend = keras.backend.backend()
    if backend == "tensorflow":
        pytest.skip("TensorFlow is the backend here")
    code = (
        "import sys, kit; enc = kit.models.load_backbone('minilm-l6', sequence_length=16); "
        "enc.backbone(enc.preprocessor(['a test'])); import keras; kit.set_seed(0); "
        "print(sys.modules.get('tensorflow'), kit.TENSORFLOW)"
    )
    env = {k: v for k, v in os.environ.items() if k != "KIT_ALLOW_TENSORFLOW"} | {"KERAS_BACKEND": backend}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-2:] == ["None", "blocked"], out.stdout
