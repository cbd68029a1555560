"""Rich heads on a BERT backbone's token states: their shared base, input convention and the model builder.

Every rich head of notebook 03 (tagger, DenseNet CNN, highway BiLSTM, BiMPM, Sim-Transformer) reads
``{"sequence_output": (B, T, H), "padding_mask": (B, T), "segment_ids": (B, T)}`` (the last two optional) or a bare
``(B, T, H)`` tensor with a Keras mask. :func:`build_stacked_model` keeps the backbone one layer the freeze scheduler
can freeze (the "stack" of stack-and-finetune).

>>> import numpy as np
>>> seq, mask, seg = unpack_states({"sequence_output": np.zeros((2, 3, 4), "float32"),
...                                 "padding_mask": np.array([[1, 1, 0], [1, 0, 0]])})
>>> keras.ops.convert_to_numpy(mask).tolist(), seg is None
([[True, True, False], [True, False, False]], True)
"""

from __future__ import annotations

import dataclasses

import keras
from keras import ops


def unpack_states(inputs, mask=None):
    """``(sequence, bool mask or None, segment_ids or None)`` of a head's input, a dict or a bare tensor.

    ``mask`` is a bare tensor's Keras mask (ignored for a dict); a dict without ``"sequence_output"`` is a KeyError.
    """
    if isinstance(inputs, dict):
        if "sequence_output" not in inputs:
            raise KeyError(
                f"A head's dict input needs 'sequence_output' (and optionally 'padding_mask', "
                f"'segment_ids'); got keys {sorted(inputs)}."
            )
        seq, m, seg = inputs["sequence_output"], inputs.get("padding_mask"), inputs.get("segment_ids")
    else:
        seq, m, seg = inputs, mask, None
    return seq, (None if m is None else ops.cast(m, "bool")), seg


class RichHead(keras.layers.Layer):
    """Base of the rich heads: no output mask, logits ``(B, num_classes)``, ``get_config`` from ``CONFIG``.

    A tagger overrides the output shape. ``get_config`` holds every ``__init__`` argument named in ``CONFIG`` (kept as
    attributes of the same names).
    """

    CONFIG: tuple = ()
    #: ``{argument: dataclass}``: the hyperparameters a head takes as one group (``get_config`` holds each as a dict).
    GROUPS: dict = {}

    @classmethod
    def from_sizes(cls, num_classes: int, sizes: dict, **kwargs):
        """The head from a flat dict of sizes (a paper's sizes table): each group's fields are gathered into it.

        ``sizes`` holds the head's arguments, a group's fields among them by name (e.g. ``blocks``, ``growth``).

        Example:
            >>> from kit.models.heads import DenseCNNHead
            >>> head = DenseCNNHead.from_sizes(2, {"filters": 8, "growth": 4, "blocks": 1, "convs_per_block": 2})
            >>> head.filters, head.dense.growth, head.dense.kernel_size
            (8, 4, 3)
        """
        return cls(num_classes, **_grouped(cls.GROUPS, sizes), **kwargs)

    @classmethod
    def from_config(cls, config):
        return super().from_config(_grouped(cls.GROUPS, config))  # a group's fields saved flat (older files) too

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape):
        shape = input_shape["sequence_output"] if isinstance(input_shape, dict) else input_shape
        return (shape[0], self.num_classes)

    def get_config(self):
        config = super().get_config()
        for name in self.CONFIG:
            value = getattr(self, name)
            config[name] = dataclasses.asdict(value) if dataclasses.is_dataclass(value) else value
        return config


def _grouped(groups: dict, args: dict) -> dict:
    """``args`` with each group's fields, where they stand flat among the others, gathered into its dataclass."""
    args = dict(args)
    for name, group in groups.items():
        names = {f.name for f in dataclasses.fields(group)}
        fields = {k: args.pop(k) for k in list(args) if k in names}
        if fields:
            args[name] = group(**{**dataclasses.asdict(as_group(args.get(name), group, name)), **fields})
    return args


def as_group(value, group, what: str):
    """``value`` as the dataclass ``group``: a dict (a saved config's) becomes one; None gives the defaults.

    Anything else is a TypeError naming the argument ``what``.
    """
    if value is None:
        return group()
    if isinstance(value, dict):
        return group(**value)
    if not isinstance(value, group):
        raise TypeError(f"{what} must be a {group.__name__} (or a dict of its fields), got {type(value).__name__}.")
    return value


def full_mask(seq, mask):
    """``mask`` or, when it is None, all-true of shape ``seq.shape[:2]``."""
    return ops.ones(ops.shape(seq)[:2], dtype="bool") if mask is None else mask


def build_stacked_model(backbone, head: keras.layers.Layer, name: str = "stacked") -> keras.Model:
    """``{token_ids, segment_ids, padding_mask}`` → backbone → ``head`` on the token states → logits (uncompiled).

    The backbone is one layer of the model (``model.get_layer(backbone.name)``), which is what
    :func:`kit.train.freeze.stack_and_finetune` freezes.
    """
    inputs = {
        "token_ids": keras.Input(shape=(None,), dtype="int32", name="token_ids"),
        "segment_ids": keras.Input(shape=(None,), dtype="int32", name="segment_ids"),
        "padding_mask": keras.Input(shape=(None,), dtype="int32", name="padding_mask"),
    }
    out = backbone(inputs)
    states = {
        "sequence_output": out["sequence_output"],
        "padding_mask": inputs["padding_mask"],
        "segment_ids": inputs["segment_ids"],
    }
    return keras.Model(inputs, head(states), name=name)
