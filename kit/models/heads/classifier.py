"""Classification/regression heads and the fine-tuning model builder.

>>> import numpy as np
>>> head = ClassifierHead(num_classes=3, dropout=0.1)
>>> tuple(head(np.zeros((2, 8), "float32")).shape)
(2, 3)
"""

from __future__ import annotations

import keras

from ..bilstm import masked_mean


@keras.saving.register_keras_serializable(package="kit")
class ClassifierHead(keras.layers.Layer):
    """Dropout → (optional hidden Dense+tanh) → Dense to ``num_classes`` logits (1 output for regression).

    ``dropout`` comes before each Dense layer; ``hidden_dim`` None: no hidden layer; ``num_classes`` < 1: ValueError.

    Example:
        >>> import numpy as np
        >>> head = ClassifierHead(num_classes=1, hidden_dim=4)
        >>> tuple(head(np.zeros((2, 8), "float32")).shape), len(head.weights)
        ((2, 1), 4)
    """

    def __init__(self, num_classes: int, dropout: float = 0.1, hidden_dim: int | None = None, **kwargs):
        super().__init__(**kwargs)
        if num_classes < 1:
            raise ValueError(f"num_classes must be >= 1 (1 means regression), got {num_classes}.")
        self.num_classes = num_classes
        self.dropout = dropout
        self.hidden_dim = hidden_dim
        policy = self.dtype_policy
        self.dropout_layer = keras.layers.Dropout(dropout, dtype=policy)
        self.hidden = (
            keras.layers.Dense(hidden_dim, activation="tanh", name="hidden", dtype=policy) if hidden_dim else None
        )
        self.out = keras.layers.Dense(num_classes, name="logits", dtype=policy)

    def build(self, input_shape):
        shape = tuple(input_shape)
        if self.hidden is not None:
            self.hidden.build(shape)
            shape = shape[:-1] + (self.hidden_dim,)
        self.out.build(shape)

    def call(self, x, training=None):
        x = self.dropout_layer(x, training=training)
        if self.hidden is not None:
            x = self.hidden(x)
            x = self.dropout_layer(x, training=training)
        return self.out(x)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.num_classes,)

    def get_config(self):
        config = super().get_config()
        config.update({"num_classes": self.num_classes, "dropout": self.dropout, "hidden_dim": self.hidden_dim})
        return config


@keras.saving.register_keras_serializable(package="kit")
class MaskedMeanPooling(keras.layers.Layer):
    """Mean of token states over the real (unmasked) positions: ``(batch, steps, dim)`` → ``(batch, dim)``.

    Call it as ``pool(x, padding_mask)``; without a mask it averages every position.

    Example:
        >>> import numpy as np
        >>> x = np.array([[[1.0, 2.0], [3.0, 4.0], [9.0, 9.0]]], "float32")
        >>> keras.ops.convert_to_numpy(MaskedMeanPooling()(x, np.array([[1, 1, 0]]))).tolist()
        [[2.0, 3.0]]
    """

    def call(self, x, padding_mask=None):
        if padding_mask is None:
            return keras.ops.mean(x, axis=1)
        return masked_mean(x, padding_mask)

    def compute_output_shape(self, x_shape, padding_mask_shape=None):
        return (x_shape[0], x_shape[-1])


def build_classifier(
    backbone,
    num_classes: int,
    dropout: float = 0.1,
    hidden_dim: int | None = None,
    name: str = "classifier",
    pooling: str = "cls",
) -> keras.Model:
    """Backbone → pooled text vector → :class:`ClassifierHead`: the preprocessor's dict → ``(B, num_classes)`` logits.

    Uncompiled; ``num_classes`` 1 is regression. ``pooling``: ``"cls"`` reads BERT's pooled ``[CLS]`` output (BERT's and
    the papers' choice), ``"mean"`` the mean token state over real tokens (:class:`MaskedMeanPooling`), what
    sentence-transformer encoders such as MiniLM were trained for; another value is a ValueError. The [CLS] state of
    MiniLM's lower layers hardly depends on the text (its spread across texts is ~1e-3 of the mean-pooled one after 3
    layers), so a cut-down MiniLM fine-tunes from the mean.
    """
    if pooling not in ("cls", "mean"):
        raise ValueError(f"pooling must be 'cls' or 'mean', got {pooling!r}.")
    inputs = {
        "token_ids": keras.Input(shape=(None,), dtype="int32", name="token_ids"),
        "segment_ids": keras.Input(shape=(None,), dtype="int32", name="segment_ids"),
        "padding_mask": keras.Input(shape=(None,), dtype="int32", name="padding_mask"),
    }
    out = backbone(inputs)
    if pooling == "cls":
        pooled = out["pooled_output"]
    else:
        pooled = MaskedMeanPooling(name="mean_pool")(out["sequence_output"], inputs["padding_mask"])
    logits = ClassifierHead(num_classes, dropout=dropout, hidden_dim=hidden_dim, name="head")(pooled)
    return keras.Model(inputs, logits, name=name)
