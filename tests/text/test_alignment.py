"""Word → WordPiece label alignment: first sub-tokens, truncation, the cache, errors."""

import keras_hub
import numpy as np
import pytest

from kit.text.alignment import IGNORE, align_labels, word_predictions
from kit.text.wordpiece import BertPreprocessor
from tests.helpers import TAGGING_VOCAB, tagging_preprocessor


def _pre(length=12):
    return tagging_preprocessor(length)


def test_align_labels_first_subtoken():
    a = align_labels([["the", "cats", "sat", "on", "mattress"], ["new", "york"]], [[0, 1, 2, 0, 3], [4, 5]], _pre())
    # [CLS] the cat ##s sat on mat ##ress [SEP]
    assert a.x["token_ids"][0].tolist() == [2, 5, 6, 7, 8, 9, 10, 11, 3, 0, 0, 0]
    assert a.y[0].tolist() == [IGNORE, 0, 1, IGNORE, 2, 0, 3, IGNORE, IGNORE, IGNORE, IGNORE, IGNORE]
    assert a.word_ids[0].tolist() == [-1, 0, 1, 1, 2, 3, 4, 4, -1, -1, -1, -1]
    assert a.x["padding_mask"][1].tolist() == [1, 1, 1, 1] + [0] * 8
    assert a.truncated == 0 and a.n_words == [5, 2]
    # predictions map back to one tag per word
    onehot = np.eye(6)[np.where(a.y == IGNORE, 0, a.y)]
    assert word_predictions(onehot, a) == [[0, 1, 2, 0, 3], [4, 5]]
    every = align_labels([["cats"]], [[3]], _pre(), label_all_subtokens=True)
    assert every.y[0, :4].tolist() == [IGNORE, 3, 3, IGNORE] and every.first[0, :4].tolist() == [0, 1, 0, 0]


def test_align_labels_truncation_cache_and_errors():
    pre = _pre(length=6)
    a = align_labels([["the", "cats", "sat", "on"]], [[1, 2, 3, 4]], pre)
    # room for 4 pieces: the cat ##s sat; "on" is cut
    assert a.x["token_ids"][0].tolist() == [2, 5, 6, 7, 8, 3]
    assert a.truncated == 1 and word_predictions(a.y, a, fill=-7) == [[1, 2, 3, -7]]

    calls = []

    class Spy(BertPreprocessor):
        def tokenize(self, texts, max_tokens=None):
            calls.append(list(texts))
            return super().tokenize(texts, max_tokens)

    spy = Spy(keras_hub.models.BertTokenizer(vocabulary=TAGGING_VOCAB), sequence_length=12)
    align_labels([["the", "cat", "the"], ["cat", "sat"]], None, spy)
    align_labels([["sat", "the", "mat"]], None, spy)
    assert calls == [["the", "cat", "sat"], ["mat"]]  # each distinct word tokenized once, then cached
    with pytest.raises(ValueError, match="sentence 0: 2 words but 1 labels"):
        align_labels([["the", "cat"]], [[1]], pre)
    with pytest.raises(TypeError, match="list of words"):
        align_labels(["the cat"], None, pre)
    with pytest.raises(ValueError, match="1 label sequences for 2 sentences"):
        align_labels([["the"], ["cat"]], [[0]], pre)
