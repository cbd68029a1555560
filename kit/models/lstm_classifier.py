"""LSTM-n-k classifiers: word embeddings from scratch, or a pretrained encoder's token table + projection.

The paper's "LSTM-n-k + Base/Large" feeds a pretrained transformer's frozen token table, through a trainable linear
projection, into the BiLSTM, with the transformer's WordPiece tokenizer. :func:`count_params_without_embeddings` counts
parameters as the paper's Table 2 does (embedding table left out).

>>> m = build_lstm_classifier(vocabulary_size=100, num_classes=2, n_layers=1, cells=8, embedding_dim=16)
>>> m.output_shape
(None, 2)
"""

from __future__ import annotations

from dataclasses import dataclass

import keras
import numpy as np

from .bilstm import BiLSTMEncoder
from .heads.classifier import ClassifierHead


@keras.saving.register_keras_serializable(package="kit")
class PretrainedTokenEmbedding(keras.layers.Layer):
    """A frozen pretrained token table, then a trainable linear projection; masks the tokenizer's padding id.

    The ``(vocabulary_size, table_dim)`` table is projected to ``output_dim`` (the LSTM's input); ``trainable_table``
    trains it too. ``padding_id``: 0 for BERT's WordPiece, 1 for RoBERTa's ``<pad>`` (whose id 0 is ``<s>``).

    Example:
        >>> import numpy as np
        >>> emb = PretrainedTokenEmbedding(vocabulary_size=10, table_dim=4, output_dim=3)
        >>> emb.set_table(np.ones((10, 4), "float32"))
        >>> tuple(emb(np.array([[5, 2, 0]])).shape)
        (1, 3, 3)
    """

    def __init__(
        self,
        vocabulary_size: int,
        table_dim: int,
        output_dim: int,
        trainable_table: bool = False,
        padding_id: int = 0,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.vocabulary_size, self.table_dim, self.output_dim = vocabulary_size, table_dim, output_dim
        self.trainable_table, self.padding_id = trainable_table, int(padding_id)
        self.table = keras.layers.Embedding(
            vocabulary_size,
            table_dim,
            name="table",  # the mask: compute_mask
            trainable=trainable_table,
            dtype=self.dtype_policy,
        )
        self.projection = keras.layers.Dense(output_dim, name="projection", dtype=self.dtype_policy)
        self.supports_masking = True

    def build(self, input_shape):
        self.table.build(input_shape)
        self.projection.build(tuple(input_shape) + (self.table_dim,))

    def set_table(self, table) -> None:
        """Copy a ``(vocabulary_size, table_dim)`` array of pretrained vectors into the table (built if needed).

        E.g. :func:`~kit.models.backbone_token_table`'s; another shape is a ValueError.
        """
        table = np.asarray(table)
        if table.shape != (self.vocabulary_size, self.table_dim):
            raise ValueError(f"table shape {table.shape} != ({self.vocabulary_size}, {self.table_dim}).")
        if not self.built:
            self.build((None, None))
        self.table.embeddings.assign(table.astype(self.table.embeddings.dtype))

    def call(self, token_ids):
        return self.projection(self.table(token_ids))

    def compute_mask(self, token_ids, mask=None):
        return keras.ops.not_equal(token_ids, self.padding_id)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape) + (self.output_dim,)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "vocabulary_size": self.vocabulary_size,
                "table_dim": self.table_dim,
                "output_dim": self.output_dim,
                "trainable_table": self.trainable_table,
                "padding_id": self.padding_id,
            }
        )
        return config


@dataclass(frozen=True)
class TokenTable:
    """A pretrained encoder's token table and the id its tokenizer pads with: "LSTM-n-k + pretrained"'s input.

    ``table``: ``(vocabulary_size, d)``, e.g. :func:`~kit.models.backbone_token_table`'s; ``padding_id``: the
    tokenizer's ``pad_token_id`` (0 for BERT's WordPiece, 1 for RoBERTa's ``<pad>``).

    Example:
        >>> t = TokenTable(np.zeros((10, 4), "float32"), padding_id=1)
        >>> build_lstm_classifier(10, 2, n_layers=1, cells=3, embedding_dim=5, pretrained=t).output_shape
        (None, 2)
    """

    table: np.ndarray
    padding_id: int = 0


def build_lstm_classifier(
    vocabulary_size: int,
    num_classes: int,
    n_layers: int = 2,
    cells: int = 256,
    embedding_dim: int = 300,
    dropout: float = 0.1,
    pooling: str = "max",
    pretrained: TokenTable | None = None,
) -> keras.Model:
    """Token ids (the padding id masked: 0, or the pretrained table's) → embeddings → LSTM-n-k → ClassifierHead.

    An uncompiled model named ``LSTM-n-k`` (``LSTM-n-k_plus_pretrained`` with a table): int32 ``token_ids`` in,
    ``(B, num_classes)`` logits out (1: regression). ``n_layers``/``cells`` are the paper's ``n``/``k`` (cells per
    direction); ``dropout`` acts after the embeddings, between LSTM layers and in the head; ``pooling``: ``"max"``,
    ``"mean"`` or ``"last"`` (:class:`BiLSTMEncoder`). ``pretrained``: a :class:`TokenTable` (e.g. MiniLM's token
    embeddings), frozen and projected to ``embedding_dim`` ("LSTM-n-k + pretrained"), read with the encoder's tokenizer;
    None: a trainable ``embedding_dim`` table, padding 0. Another ``pretrained`` is a TypeError (wrap an array:
    ``TokenTable(table)``).
    """
    token_ids = keras.Input(shape=(None,), dtype="int32", name="token_ids")
    if pretrained is not None:
        if not isinstance(pretrained, TokenTable):
            raise TypeError(
                f"pretrained must be a kit.models.TokenTable, got {type(pretrained).__name__}: wrap the array, "
                "TokenTable(table, padding_id=tokenizer.pad_token_id)."
            )
        table = np.asarray(pretrained.table)
        emb_layer = PretrainedTokenEmbedding(
            vocabulary_size, table.shape[1], embedding_dim, padding_id=pretrained.padding_id, name="embedding"
        )
        emb_layer.set_table(table)
    else:
        emb_layer = keras.layers.Embedding(vocabulary_size, embedding_dim, mask_zero=True, name="embedding")
    x = emb_layer(token_ids)
    x = keras.layers.Dropout(dropout)(x)
    x = BiLSTMEncoder(n_layers=n_layers, cells=cells, dropout=dropout, pooling=pooling, name="encoder")(x)
    logits = ClassifierHead(num_classes, dropout=dropout, name="head")(x)
    suffix = "_plus_pretrained" if pretrained is not None else ""
    return keras.Model(token_ids, logits, name=f"LSTM-{n_layers}-{cells}{suffix}")


def count_params_without_embeddings(model: keras.Model) -> int:
    """Parameters of ``model`` without its ``keras.layers.Embedding`` tables (paper's Table 2); projections count."""
    table_ids = set()
    for layer in model._flatten_layers(include_self=False):
        if isinstance(layer, keras.layers.Embedding):
            table_ids.update(id(w) for w in layer.weights)
    return int(sum(np.prod(w.shape) for w in model.weights if id(w) not in table_ids))
