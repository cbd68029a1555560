"""TLM's model: a BERT-architecture encoder from scratch with a CLS head and an MLM head.

Inputs: the preprocessor's dict plus ``mask_positions`` (B, P); outputs
``{"task": (B, classes), "mlm": (B, P, vocabulary)}`` logits, the MLM projection tied to the token embedding (as in
BERT).

>>> bb = tlm_backbone(vocabulary_size=100, num_layers=1, num_heads=2, hidden_dim=16,
...                   intermediate_dim=32, max_sequence_length=12)
>>> model = TLMModel(bb, num_classes=3, max_predictions=2)
>>> import numpy as np
>>> x = {"token_ids": np.ones((4, 12), "int32"), "segment_ids": np.zeros((4, 12), "int32"),
...      "padding_mask": np.ones((4, 12), "int32"), "mask_positions": np.ones((4, 2), "int32")}
>>> sorted((k, tuple(v.shape)) for k, v in model(x).items())
[('mlm', (4, 2, 100)), ('task', (4, 3))]
"""

from __future__ import annotations

import keras

from .backbones import BertBackbone, BuiltOnBackbone
from .heads.classifier import ClassifierHead, MaskedMeanPooling
from .mlm_model import INPUT_KEYS, model_inputs, tied_mlm_head

POOLINGS = ("cls", "mean")


def tlm_backbone(
    vocabulary_size: int,
    num_layers: int,
    num_heads: int,
    hidden_dim: int,
    intermediate_dim: int,
    max_sequence_length: int = 512,
    dropout: float = 0.1,
) -> BertBackbone:
    """A randomly initialised BERT (keras-hub architecture, exact GELU): TLM trains it from scratch.

    ``max_sequence_length`` is the position table's length; ``dropout`` applies throughout. A ``hidden_dim`` not
    divisible by ``num_heads`` is a ValueError.
    """
    if hidden_dim % num_heads:
        raise ValueError(f"hidden_dim={hidden_dim} must be divisible by num_heads={num_heads}.")
    return BertBackbone(
        vocabulary_size=vocabulary_size,
        num_layers=num_layers,
        num_heads=num_heads,
        hidden_dim=hidden_dim,
        intermediate_dim=intermediate_dim,
        dropout=dropout,
        max_sequence_length=max_sequence_length,
        hidden_activation="gelu",
    )


@keras.saving.register_keras_serializable(package="kit")
class TLMModel(BuiltOnBackbone, keras.Model):
    """BERT backbone + ``ClassifierHead`` + tied ``MaskedLMHead``; outputs ``task`` and ``mlm``.

    ``mask_positions`` is ``(B, max_predictions)``; ``dropout`` is the task head's. ``pooling``: the task head reads the
    pooled [CLS] state (``"cls"``, BERT's and the paper's choice) or the mean token state (``"mean"``); another value is
    a ValueError. :meth:`classifier` gives the same weights as a plain classifier, for stage 2 and evaluation.
    """

    CONFIG = ("num_classes", "max_predictions", "dropout", "pooling")

    def __init__(
        self, backbone, num_classes: int, max_predictions: int, dropout: float = 0.1, pooling: str = "cls", **kwargs
    ):
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}.")
        inputs = model_inputs(max_predictions)
        task_head = ClassifierHead(num_classes, dropout=dropout, name="task_head")
        mlm_head = tied_mlm_head(backbone)
        out = backbone({k: inputs[k] for k in INPUT_KEYS})
        pool = MaskedMeanPooling(name="mean_pool") if pooling == "mean" else None
        outputs = {
            "task": task_head(self._features(out, inputs["padding_mask"], pool)),
            "mlm": mlm_head(out["sequence_output"], mask_positions=inputs["mask_positions"]),
        }
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)
        self.backbone = backbone
        self.task_head = task_head
        self.mlm_head = mlm_head
        self.num_classes = int(num_classes)
        self.max_predictions = int(max_predictions)
        self.dropout = float(dropout)
        self.pooling = pooling
        self.pool = pool

    @staticmethod
    def _features(out, padding_mask, pool):
        return out["pooled_output"] if pool is None else pool(out["sequence_output"], padding_mask)

    def classifier(self, name: str = "tlm_classifier") -> keras.Model:
        """The same backbone and task head as a classifier (preprocessor's dict → task logits; weights shared)."""
        inputs = model_inputs()
        feats = self._features(self.backbone(inputs), inputs["padding_mask"], self.pool)
        return keras.Model(inputs, self.task_head(feats), name=name)
