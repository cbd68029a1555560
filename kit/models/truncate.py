"""A pretrained BERT cut to its bottom layers: the same embeddings and first ``num_layers`` transformer layers.

For quick CPU runs: MiniLM-L6's bottom three layers cost half as much per step and are still pretrained (lower layers
carry most of the word- and syntax-level information a tagger needs). Weights are copied by layer name, so the copy
computes exactly what the original computes up to that layer.

>>> from kit.models.backbones import BertBackbone
>>> bb = BertBackbone(vocabulary_size=20, num_layers=3, num_heads=2, hidden_dim=8, intermediate_dim=16,
...                   max_sequence_length=8)
>>> small = truncate_backbone(bb, 1)
>>> small.num_layers, len(small.weights) < len(bb.weights)
(1, True)
"""

from __future__ import annotations

import numpy as np


def truncate_backbone(backbone, num_layers: int | None):
    """A new backbone of the same class with the bottom ``num_layers`` transformer layers of ``backbone``.

    ``num_layers`` None (or the backbone's own depth) returns ``backbone`` itself; outside ``[1, backbone.num_layers]``
    it is a ValueError.
    """
    if num_layers is None or num_layers == backbone.num_layers:
        return backbone
    if not 1 <= num_layers <= backbone.num_layers:
        raise ValueError(
            f"num_layers must be between 1 and {backbone.num_layers} (the backbone's depth), got {num_layers}."
        )
    config = backbone.get_config()
    for key in ("name", "trainable"):
        config.pop(key, None)
    config["num_layers"] = int(num_layers)
    small = backbone.__class__.from_config(config)
    copied = 0
    for layer in small.layers:
        if not layer.weights:
            continue
        source = backbone.get_layer(layer.name)
        weights = source.get_weights()
        if [w.shape for w in weights] != [tuple(v.shape) for v in layer.weights]:
            raise ValueError(f"layer {layer.name!r}: the shapes differ between the backbone and its copy.")
        layer.set_weights([np.array(w) for w in weights])
        copied += len(weights)
    if copied != len(small.weights):
        raise RuntimeError(f"copied {copied} of the copy's {len(small.weights)} weights: a layer was missed.")
    return small
