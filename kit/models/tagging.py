"""Token tagging on BERT: the BiLSTM tagger head, word → WordPiece label alignment, a masked loss and accuracy.

The paper's tagger (Experiment A) is BERT → BiLSTM → per-token logits; its
finetune-only baseline passes each token state through two dense layers
(``TokenTaggerHead(n_layers=0, hidden_dim=...)``). Labels live on words, the
model sees WordPiece tokens: :func:`align_labels` gives each word's label to
its **first** sub-token and ``IGNORE`` (-100) to the other sub-tokens,
``[CLS]``, ``[SEP]`` and padding, which :class:`MaskedSparseCategoricalCrossentropy`
and :class:`MaskedAccuracy` skip. :func:`word_predictions` maps token
predictions back to one tag per word for entity-level scoring.

>>> import numpy as np
>>> head = TokenTaggerHead(num_tags=5, n_layers=1, cells=4)
>>> states = {"sequence_output": np.zeros((2, 6, 8), "float32"), "padding_mask": np.ones((2, 6), "int32")}
>>> tuple(head(states).shape)
(2, 6, 5)
>>> loss = MaskedSparseCategoricalCrossentropy()
>>> y = np.array([[IGNORE, 1, IGNORE]]); logits = np.zeros((1, 3, 2), "float32")
>>> round(float(loss(y, logits)), 4)   # log(2): only the one labelled token counts
0.6931
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import keras
import numpy as np
from keras import ops

from .bilstm import BiLSTMEncoder
from .rich_head import RichHead, build_stacked_model, full_mask, unpack_states

#: Label of tokens that carry no word label (non-first sub-tokens, specials, padding).
IGNORE = -100


@keras.saving.register_keras_serializable(package="kit")
class TokenTaggerHead(RichHead):
    """Token states → (BiLSTM, ``n_layers`` × ``cells`` each way) → (Dense ``hidden_dim``, ReLU) → tag logits.

    Input: ``{"sequence_output": (B, T, H), "padding_mask": (B, T)}`` or a
    ``(B, T, H)`` tensor (with a Keras mask). Output ``(B, T, num_tags)``
    logits; the BiLSTM skips padding and its states there are zero. The
    logits carry no Keras mask: score them with the masked loss below, whose
    labels mark what to skip. Dense kernels are Kaiming (``he_normal``)
    initialised, as in the paper; the LSTM keeps Keras' default initialisers.
    ``n_layers=0`` drops the BiLSTM (the finetune-only head).
    """

    CONFIG = ('num_tags', 'n_layers', 'cells', 'hidden_dim', 'dropout')

    def __init__(self, num_tags: int, n_layers: int = 1, cells: int = 128, hidden_dim: int | None = None,
                 dropout: float = 0.1, **kwargs):
        super().__init__(**kwargs)
        if num_tags < 2:
            raise ValueError(f"num_tags must be >= 2 (tag logits), got {num_tags}.")
        if n_layers < 0 or (n_layers > 0 and cells < 1):
            raise ValueError(f"n_layers must be >= 0 and cells >= 1, got n_layers={n_layers}, cells={cells}.")
        self.num_tags, self.n_layers, self.cells = num_tags, n_layers, cells
        self.hidden_dim, self.dropout = hidden_dim, dropout
        self.supports_masking = True
        policy = self.dtype_policy
        self.bilstm = (BiLSTMEncoder(n_layers=n_layers, cells=cells, dropout=dropout, pooling=None,
                                     dtype=policy, name="bilstm") if n_layers else None)
        self.dropout_layer = keras.layers.Dropout(dropout, dtype=policy)
        self.hidden = (keras.layers.Dense(hidden_dim, activation="relu", kernel_initializer="he_normal",
                                          dtype=policy, name="hidden") if hidden_dim else None)
        self.logits = keras.layers.Dense(num_tags, kernel_initializer="he_normal", dtype=policy, name="logits")

    def build(self, input_shape):
        shape = tuple(input_shape["sequence_output"] if isinstance(input_shape, dict) else input_shape)
        if self.bilstm is not None:
            self.bilstm.build(shape)
            shape = shape[:-1] + (2 * self.cells,)
        if self.hidden is not None:
            self.hidden.build(shape)
            shape = shape[:-1] + (self.hidden_dim,)
        self.logits.build(shape)

    def call(self, inputs, mask=None, training=None):
        x, m, _ = unpack_states(inputs, mask)
        if self.bilstm is not None:
            x = self.bilstm(x, mask=full_mask(x, m), training=training)
        x = self.dropout_layer(x, training=training)
        if self.hidden is not None:
            x = self.dropout_layer(self.hidden(x), training=training)
        return self.logits(x)

    def compute_output_shape(self, input_shape):
        shape = input_shape["sequence_output"] if isinstance(input_shape, dict) else input_shape
        return tuple(shape[:-1]) + (self.num_tags,)



def build_tagger(backbone, num_tags: int, n_layers: int = 1, cells: int = 128, hidden_dim: int | None = None,
                 dropout: float = 0.1, name: str = "tagger") -> keras.Model:
    """Preprocessor dict → ``backbone`` → :class:`TokenTaggerHead` → ``(B, T, num_tags)`` logits."""
    head = TokenTaggerHead(num_tags, n_layers=n_layers, cells=cells, hidden_dim=hidden_dim, dropout=dropout,
                           name="head")
    return build_stacked_model(backbone, head, name=name)


# --- the masked loss and accuracy -------------------------------------------------------------

@keras.saving.register_keras_serializable(package="kit")
class MaskedSparseCategoricalCrossentropy(keras.losses.Loss):
    """Token cross-entropy on logits averaged over labelled tokens only (label ``ignore_index`` skipped).

    With the default reduction the result is the mean over the batch's
    labelled tokens (each token counts once, whatever its sentence's length).
    """

    def __init__(self, ignore_index: int = IGNORE, from_logits: bool = True,
                 name: str = "masked_sparse_categorical_crossentropy", **kwargs):
        super().__init__(name=name, **kwargs)
        self.ignore_index, self.from_logits = int(ignore_index), from_logits

    def call(self, y_true, y_pred):
        y_true = ops.cast(y_true, "int32")
        keep = ops.not_equal(y_true, self.ignore_index)
        safe = ops.where(keep, y_true, ops.zeros_like(y_true))
        ce = ops.sparse_categorical_crossentropy(safe, y_pred, from_logits=self.from_logits)
        m = ops.cast(keep, ce.dtype)
        size = ops.cast(ops.size(m), ce.dtype)
        return ce * m * (size / ops.maximum(ops.sum(m), ops.cast(1.0, ce.dtype)))

    def get_config(self):
        config = super().get_config()
        config.update({"ignore_index": self.ignore_index, "from_logits": self.from_logits})
        return config


@keras.saving.register_keras_serializable(package="kit")
class MaskedAccuracy(keras.metrics.Metric):
    """Share of labelled tokens (label != ``ignore_index``) whose argmax logit is right.

    >>> m = MaskedAccuracy()
    >>> m.update_state(np.array([[1, IGNORE, 0]]), np.array([[[0., 1.], [1., 0.], [0., 1.]]]))
    >>> float(m.result())
    0.5
    """

    def __init__(self, ignore_index: int = IGNORE, name: str = "masked_accuracy", **kwargs):
        super().__init__(name=name, **kwargs)
        self.ignore_index = int(ignore_index)
        self.correct = self.add_variable(shape=(), initializer="zeros", name="correct", dtype="float32")
        self.count = self.add_variable(shape=(), initializer="zeros", name="count", dtype="float32")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = ops.cast(y_true, "int32")
        keep = ops.cast(ops.not_equal(y_true, self.ignore_index), "float32")
        if sample_weight is not None:
            sw = ops.cast(sample_weight, "float32")
            keep = keep * (ops.reshape(sw, ops.shape(sw) + (1,) * (len(keep.shape) - len(sw.shape))))
        hit = ops.cast(ops.equal(ops.cast(ops.argmax(y_pred, axis=-1), "int32"), y_true), "float32")
        self.correct.assign_add(ops.sum(hit * keep))
        self.count.assign_add(ops.sum(keep))

    def result(self):
        return ops.divide_no_nan(self.correct, self.count)

    def reset_state(self):
        self.correct.assign(0.0)
        self.count.assign(0.0)

    def get_config(self):
        return {**super().get_config(), "ignore_index": self.ignore_index}


# --- words ↔ WordPiece --------------------------------------------------------------------------

_WORD_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


@dataclass
class AlignedTags:
    """Model inputs for tagged sentences and the labels on their first sub-tokens.

    ``x``: ``token_ids``, ``segment_ids``, ``padding_mask`` (N, T);
    ``y``: (N, T) int32, the word's label at its first sub-token, ``IGNORE`` elsewhere;
    ``word_ids``: (N, T) the word each token belongs to (-1 for specials and padding);
    ``first``: (N, T) bool, true at each word's first sub-token;
    ``n_words``: words per sentence; ``truncated``: sentences that lost words to ``sequence_length``.
    """

    x: dict
    y: np.ndarray
    word_ids: np.ndarray
    first: np.ndarray
    n_words: list
    truncated: int


def word_pieces(words, preprocessor) -> list[list[int]]:
    """WordPiece ids of each word, each distinct word tokenized once (cached per preprocessor).

    A lone word's pieces equal its pieces in context: BERT's tokenizer splits
    on whitespace (and punctuation) before WordPiece.
    """
    try:
        cache = _WORD_CACHE.setdefault(preprocessor, {})
    except TypeError:  # not weak-referenceable: a call-local cache
        cache = {}
    new = [w for w in dict.fromkeys(words) if w not in cache]
    if new:
        for w, ids in zip(new, preprocessor.tokenize(new)):
            cache[w] = ids
    return [cache[w] for w in words]


def align_labels(sentences, labels, preprocessor, *, label_all_subtokens: bool = False) -> AlignedTags:
    """Word-tokenized ``sentences`` (lists of words) and their per-word label ids → :class:`AlignedTags`.

    ``labels`` may be None (inference: ``y`` is all ``IGNORE``). With
    ``label_all_subtokens`` every sub-token gets its word's label (``first``
    still marks the first). A word that tokenizes to nothing (only control
    characters) gets no token; :func:`word_predictions` fills it. Sequences are
    cut at the preprocessor's ``sequence_length`` (``truncated`` counts them).

    >>> import keras_hub
    >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "##s", "sat"]
    >>> pre = __import__("kit.text.wordpiece", fromlist=["x"]).BertPreprocessor(
    ...     keras_hub.models.BertTokenizer(vocabulary=vocab), sequence_length=8)
    >>> a = align_labels([["the", "cats", "sat"]], [[0, 1, 2]], pre)
    >>> a.x["token_ids"][0].tolist(), a.y[0].tolist()
    ([2, 5, 6, 7, 8, 3, 0, 0], [-100, 0, 1, -100, 2, -100, -100, -100])
    """
    sentences = list(sentences)
    if labels is not None:
        labels = list(labels)
        if len(labels) != len(sentences):
            raise ValueError(f"{len(labels)} label sequences for {len(sentences)} sentences: they must match.")
    for i, words in enumerate(sentences):
        if isinstance(words, str):
            raise TypeError(f"sentence {i} is a string; pass each sentence as a list of words "
                            f"(e.g. {words.split()[:4]!r}).")
        if labels is not None and len(labels[i]) != len(words):
            raise ValueError(f"sentence {i}: {len(words)} words but {len(labels[i])} labels; one label per word.")
    flat = [w for words in sentences for w in words]
    pieces = word_pieces(flat, preprocessor) if flat else []
    n, L = len(sentences), preprocessor.sequence_length
    token_ids = np.full((n, L), preprocessor.pad_id, "int32")
    mask = np.zeros((n, L), "int32")
    y = np.full((n, L), IGNORE, "int32")
    word_ids = np.full((n, L), -1, "int32")
    first = np.zeros((n, L), bool)
    truncated, k = 0, 0
    for i, words in enumerate(sentences):
        row, pos, cut = [preprocessor.cls_id], 1, False
        for j in range(len(words)):
            ids = pieces[k + j]
            if pos + len(ids) > L - 1:  # keep room for [SEP]; drop this and later words
                cut = cut or bool(ids)
                break
            for t, tid in enumerate(ids):
                row.append(tid)
                word_ids[i, pos] = j
                if t == 0:
                    first[i, pos] = True
                if labels is not None and (t == 0 or label_all_subtokens):
                    y[i, pos] = int(labels[i][j])
                pos += 1
        k += len(words)
        row.append(preprocessor.sep_id)
        token_ids[i, : len(row)] = row
        mask[i, : len(row)] = 1
        truncated += cut
    x = {"token_ids": token_ids, "segment_ids": np.zeros_like(token_ids), "padding_mask": mask}
    return AlignedTags(x, y, word_ids, first, [len(s) for s in sentences], truncated)


def word_predictions(token_scores, aligned: AlignedTags, fill: int = -1) -> list[list[int]]:
    """One predicted id per word: the argmax at its first sub-token (``fill`` for words with no token).

    ``token_scores`` is ``(N, T, num_tags)`` logits/probabilities or ``(N, T)`` ids.
    """
    scores = np.asarray(token_scores)
    ids = scores.argmax(-1) if scores.ndim == 3 else scores
    if ids.shape != aligned.first.shape:
        raise ValueError(f"predictions have shape {ids.shape[:2]} but the aligned batch is {aligned.first.shape}.")
    out = []
    for i, n_words in enumerate(aligned.n_words):
        row = [fill] * n_words
        for t in np.flatnonzero(aligned.first[i]):
            row[aligned.word_ids[i, t]] = int(ids[i, t])
        out.append(row)
    return out
