"""TLM's model: a BERT-architecture encoder from scratch with a CLS head and an MLM head.

``TLMModel`` takes the preprocessor's dict plus ``mask_positions`` (B, P) and
returns ``{"task": (B, classes) logits, "mlm": (B, P, vocabulary) logits}``.
The MLM head's output projection is tied to the backbone's token embedding
(as in BERT). ``model.classifier()`` is the same weights seen as a plain
classifier (inputs: the preprocessor's dict; output: task logits), for stage 2
and evaluation.

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
import keras_hub

from .backbones import BertBackbone
from .heads import ClassifierHead, MaskedMeanPooling

POOLINGS = ("cls", "mean")


def tlm_backbone(vocabulary_size: int, num_layers: int, num_heads: int, hidden_dim: int, intermediate_dim: int,
                 max_sequence_length: int = 512, dropout: float = 0.1) -> BertBackbone:
    """A randomly initialised BERT (keras-hub architecture, exact GELU): TLM trains it from scratch."""
    if hidden_dim % num_heads:
        raise ValueError(f"hidden_dim={hidden_dim} must be divisible by num_heads={num_heads}.")
    return BertBackbone(vocabulary_size=vocabulary_size, num_layers=num_layers, num_heads=num_heads,
                        hidden_dim=hidden_dim, intermediate_dim=intermediate_dim, dropout=dropout,
                        max_sequence_length=max_sequence_length, hidden_activation="gelu")


def _inputs():
    return {name: keras.Input(shape=(None,), dtype="int32", name=name)
            for name in ("token_ids", "segment_ids", "padding_mask")}


@keras.saving.register_keras_serializable(package="kit")
class TLMModel(keras.Model):
    """BERT backbone + ``ClassifierHead`` + tied ``MaskedLMHead``; outputs ``task`` and ``mlm``.

    The task head reads the pooled [CLS] state (``pooling="cls"``, BERT's and the
    paper's choice) or the mean of the token states (``pooling="mean"``).
    """

    def __init__(self, backbone, num_classes: int, max_predictions: int, dropout: float = 0.1,
                 pooling: str = "cls", **kwargs):
        if max_predictions < 1:
            raise ValueError(f"max_predictions must be >= 1, got {max_predictions}.")
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}.")
        inputs = _inputs()
        inputs["mask_positions"] = keras.Input(shape=(max_predictions,), dtype="int32", name="mask_positions")
        task_head = ClassifierHead(num_classes, dropout=dropout, name="task_head")
        mlm_head = keras_hub.layers.MaskedLMHead(
            vocabulary_size=backbone.vocabulary_size, token_embedding=backbone.token_embedding,
            intermediate_activation="gelu", kernel_initializer=keras.initializers.TruncatedNormal(stddev=0.02),
            dtype=backbone.dtype_policy, name="mlm_head")
        # keras-hub builds MaskedLMHead with autocast=False: under a mixed policy its float32 output bias would meet
        # bfloat16 logits (tensorflow raises, torch upcasts). Autocast it like every other layer.
        mlm_head.autocast = True
        out = backbone({k: inputs[k] for k in ("token_ids", "segment_ids", "padding_mask")})
        pool = MaskedMeanPooling(name="mean_pool") if pooling == "mean" else None
        outputs = {"task": task_head(self._features(out, inputs["padding_mask"], pool)),
                   "mlm": mlm_head(out["sequence_output"], mask_positions=inputs["mask_positions"])}
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
        """The same backbone and task head as a classifier (preprocessor dict → logits); weights shared."""
        inputs = _inputs()
        feats = self._features(self.backbone(inputs), inputs["padding_mask"], self.pool)
        return keras.Model(inputs, self.task_head(feats), name=name)

    def get_config(self):
        return {"backbone": keras.layers.serialize(self.backbone), "num_classes": self.num_classes,
                "max_predictions": self.max_predictions, "dropout": self.dropout, "pooling": self.pooling,
                "name": self.name,
                "trainable": self.trainable}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["backbone"] = keras.layers.deserialize(config["backbone"])
        return cls(**config)
