"""LSTM-n-k classifiers: word embeddings from scratch, or a pretrained encoder's token table + projection.

The paper's "LSTM-n-k + Base/Large" feeds a pretrained transformer's token
embedding table (frozen) through a trainable linear projection into the
BiLSTM, with the transformer's WordPiece tokenizer. ``PretrainedTokenEmbedding``
is that table + projection (a :class:`TokenTable` names the table and its
padding id); :func:`build_lstm_classifier` assembles either variant, and
:func:`count_params_without_embeddings` counts parameters the way the paper's
Table 2 does (the embedding table left out).

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

    Args:
        vocabulary_size: the table's rows (the tokenizer's vocabulary).
        table_dim: the table's width (the encoder's hidden size).
        output_dim: the projection's width (the LSTM's input).
        trainable_table: train the table too (by default it stays frozen).
        padding_id: the id to mask: 0 for BERT's WordPiece, 1 for RoBERTa's ``<pad>`` (whose id 0 is ``<s>``).
        **kwargs: ``keras.layers.Layer``'s arguments (``name``, ``dtype``, ...).

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
        """Copy an array of pretrained vectors into the table (building the layer if needed).

        Args:
            table: a ``(vocabulary_size, table_dim)`` array, e.g. :func:`~kit.models.backbone_token_table`'s.

        Raises:
            ValueError: the array has another shape.
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

    Attributes:
        table: an array ``(vocabulary_size, d)``, e.g. :func:`~kit.models.backbone_token_table`'s.
        padding_id: the tokenizer's ``pad_token_id``: 0 for BERT's WordPiece, 1 for RoBERTa's ``<pad>``.

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

    The model is named ``LSTM-n-k`` (``LSTM-n-k_plus_pretrained`` with a pretrained table).

    Args:
        vocabulary_size: the token table's rows.
        num_classes: the logits (1 for regression).
        n_layers: the paper's ``n``: stacked BiLSTM layers.
        cells: the paper's ``k``: LSTM cells per direction.
        embedding_dim: the embeddings' width (with ``pretrained``: the projection's).
        dropout: after the embeddings, between the LSTM layers and in the head.
        pooling: ``"max"``, ``"mean"`` or ``"last"`` over the tokens (:class:`BiLSTMEncoder`).
        pretrained: a :class:`TokenTable` (e.g. the MiniLM token embeddings): the embeddings are that frozen table
            projected to ``embedding_dim`` ("LSTM-n-k + pretrained"), read with the encoder's tokenizer, padding
            with its ``padding_id``. None: a trainable table, padding 0.

    Returns:
        The uncompiled ``keras.Model``: int32 ``token_ids`` in, ``(B, num_classes)`` logits out.

    Raises:
        TypeError: ``pretrained`` is not a :class:`TokenTable` (wrap the array: ``TokenTable(table)``).
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
    """Parameters excluding embedding tables (as the paper's Table 2 counts); projections are counted.

    Args:
        model: the model (every ``keras.layers.Embedding`` inside it is left out).

    Returns:
        The count.
    """
    table_ids = set()
    for layer in model._flatten_layers(include_self=False):
        if isinstance(layer, keras.layers.Embedding):
            table_ids.update(id(w) for w in layer.weights)
    return int(sum(np.prod(w.shape) for w in model.weights if id(w) not in table_ids))
