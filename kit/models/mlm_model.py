"""A BERT backbone with a masked-language-model head, for further pretraining on task texts.

The head's projection is tied to the backbone's token embeddings (as in BERT and
:class:`kit.models.tlm_model.TLMModel`); the rest starts fresh (the offline MiniLM ships no MLM head). The tie survives
``.keras`` save/load (rebuilt from the backbone).

>>> import numpy as np
>>> from kit.models import BertBackbone
>>> bb = BertBackbone(vocabulary_size=30, num_layers=1, num_heads=2, hidden_dim=8,
...                   intermediate_dim=16, max_sequence_length=8)
>>> model = MLMModel(bb, max_predictions=2)
>>> x = {"token_ids": np.ones((4, 8), "int32"), "segment_ids": np.zeros((4, 8), "int32"),
...      "padding_mask": np.ones((4, 8), "int32"), "mask_positions": np.ones((4, 2), "int32")}
>>> tuple(model(x)["mlm"].shape), model.mlm_head.token_embedding is bb.token_embedding
((4, 2, 30), True)
"""

from __future__ import annotations

import keras
import keras_hub

from .backbones import BuiltOnBackbone

INPUT_KEYS = ("token_ids", "segment_ids", "padding_mask")


def model_inputs(max_predictions: int | None = None) -> dict:
    """``{name: keras.Input}``, int32: ``token_ids``, ``segment_ids``, ``padding_mask``, and ``mask_positions``.

    ``mask_positions`` (B, ``max_predictions``) only when ``max_predictions`` is given (below 1: ValueError).
    """
    inputs = {k: keras.Input(shape=(None,), dtype="int32", name=k) for k in INPUT_KEYS}
    if max_predictions is not None:
        if max_predictions < 1:
            raise ValueError(f"max_predictions must be >= 1, got {max_predictions}.")
        inputs["mask_positions"] = keras.Input(shape=(max_predictions,), dtype="int32", name="mask_positions")
    return inputs


def tied_mlm_head(backbone, name: str = "mlm_head"):
    """keras-hub's ``MaskedLMHead`` (Dense + GELU + LayerNorm, output bias) tied to ``backbone``'s token table, unbuilt.

    Call it as ``head(sequence_output, mask_positions=...)``. It takes the backbone's dtype policy and autocasts its
    variables, so its output bias meets the logits in the compute dtype under a mixed policy on every backend.
    """
    head = keras_hub.layers.MaskedLMHead(
        vocabulary_size=backbone.vocabulary_size,
        token_embedding=backbone.token_embedding,
        intermediate_activation="gelu",
        kernel_initializer=keras.initializers.TruncatedNormal(stddev=0.02),
        dtype=backbone.dtype_policy,
        name=name,
    )
    # keras-hub builds MaskedLMHead with autocast=False; inside a model whose own policy is mixed (a global
    # mixed policy) its float32 output bias then meets bfloat16 logits (tensorflow raises, torch upcasts).
    # Autocasting its variables, as every other layer does, gives the compute dtype on every backend.
    head.autocast = True
    return head


@keras.saving.register_keras_serializable(package="kit")
class MLMModel(BuiltOnBackbone, keras.Model):
    """BERT backbone + tied ``MaskedLMHead`` on the positions in ``mask_positions``; output ``{"mlm": logits}``.

    Inputs: the preprocessor's dict plus ``mask_positions`` ``(B, max_predictions)``; logits ``(B, P, vocabulary)``. The
    name defaults to ``"mlm"``.
    """

    CONFIG = ("max_predictions",)

    def __init__(self, backbone, max_predictions: int, **kwargs):
        inputs = model_inputs(max_predictions)
        head = tied_mlm_head(backbone)
        sequence = backbone({k: inputs[k] for k in INPUT_KEYS})["sequence_output"]
        outputs = {"mlm": head(sequence, mask_positions=inputs["mask_positions"])}
        kwargs.setdefault("name", "mlm")
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)
        self.backbone = backbone
        self.mlm_head = head
        self.max_predictions = int(max_predictions)
