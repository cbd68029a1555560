"""One BERT, several task heads: triple-BERT, multi-BERT and CerBERTus (SerBERTus' architectures).

``MultitaskBert(backbone, heads, k)`` takes the preprocessor's dict and returns
``{task: logits}`` (one :class:`~kit.models.heads.ClassifierHead` per task on
its [CLS] pooled output; ``heads`` maps each task to its number of outputs:
5 for SST-5, 1 for QQP's binary logit, 1 for STS-B's score).

- **multi-BERT** (``k=0``): one shared encoder and pooler, one head per task.
- **CerBERTus** (``0 < k <= L``): the embeddings and the lower ``L-k``
  transformer layers are shared; every task has its own copy of the top ``k``
  layers and of the pooler, all initialised from the same pretrained weights
  (the first task uses the backbone's own top layers, the others copies).
  The paper found ``k=2`` best with BERT-base (12 layers).
- **triple-BERT** (``share_embeddings=False``, needs ``k=L``): an independent
  copy of the whole encoder per task.
- ``static=True`` (SerBERTus' "static BERT"): each head also reads the pooled
  output of a frozen copy of the pretrained encoder (no dropout), concatenated
  to its own.
- ``pooling="mean"``: heads read the masked mean of the last layer's token
  vectors instead of the [CLS] pooler (BERT's own way is ``"cls"``). Sentence
  encoders such as MiniLM were trained for the mean; with it a few hundred
  examples are enough to learn a pair task. The poolers are then unused (and frozen).

The model saves and loads as ``.keras`` (the pretrained backbone is kept in the
config; the copies are rebuilt from it and their weights loaded). Every task's
branch runs on every batch, so the cost per step grows with ``k`` and with the
number of tasks. :func:`parameter_counts` gives the size of each architecture
without building it.

>>> from kit.models import BertBackbone
>>> import numpy as np
>>> bb = BertBackbone(vocabulary_size=30, num_layers=4, num_heads=2, hidden_dim=8,
...                   intermediate_dim=16, max_sequence_length=8)
>>> model = cerbertus(bb, {"sst": 5, "qqp": 1, "sts": 1}, k=2)
>>> x = {"token_ids": np.ones((2, 8), "int32"), "segment_ids": np.zeros((2, 8), "int32"),
...      "padding_mask": np.ones((2, 8), "int32")}
>>> sorted((task, tuple(out.shape)) for task, out in model(x).items())
[('qqp', (2, 1)), ('sst', (2, 5)), ('sts', (2, 1))]
>>> for row in parameter_counts(bb, {"sst": 5, "qqp": 1, "sts": 1}, ks=(0, 2)):
...     print(row["architecture"], row["total"])
multi-BERT 2871
CerBERTus k=2 5415
triple-BERT 8487
"""

from __future__ import annotations

import re

import keras

from .backbones import BuiltOnBackbone
from .heads.classifier import ClassifierHead, MaskedMeanPooling

INPUT_NAMES = ("token_ids", "segment_ids", "padding_mask")
POOLINGS = ("cls", "mean")


def _inputs():
    return {name: keras.Input(shape=(None,), dtype="int32", name=name) for name in INPUT_NAMES}


def _clone_backbone(backbone, name: str, **overrides):
    """A new backbone of the same class and config (``name``), with ``backbone``'s weights."""
    config = dict(backbone.get_config(), name=name, **overrides)
    clone = type(backbone).from_config(config)
    clone.set_weights(backbone.get_weights())
    return clone


def _copy_layer(layer, name: str):
    """A new layer with ``layer``'s class and config under ``name`` (weights copied once it is built)."""
    return type(layer).from_config(dict(layer.get_config(), name=name))


def _copy_weights(original, copy):
    copy.set_weights(original.get_weights())
    # kit's BertBackbone sets the exact GELU on its built layers, outside their config: carry it over
    inner = getattr(original, "_feedforward_intermediate_dense", None)
    if inner is not None:
        copy._feedforward_intermediate_dense.activation = inner.activation


def _embed(backbone, inputs):
    """BERT's embedding output, from ``backbone``'s own layers (see kit.models.backbone_parts)."""
    tokens = backbone.token_embedding(inputs["token_ids"])
    positions = backbone.position_embedding(tokens)
    segments = backbone.segment_embedding(inputs["segment_ids"])
    x = backbone.embeddings_add((tokens, positions, segments))
    x = backbone.embeddings_layer_norm(x)
    return backbone.embeddings_dropout(x)


@keras.saving.register_keras_serializable(package="kit")
class MultitaskBert(BuiltOnBackbone, keras.Model):
    """A BERT encoder shared (fully, partly or not at all) by one classifier/regressor head per task.

    Args:
        backbone: a pretrained BERT backbone (keras-hub or kit ``BertBackbone``).
        heads: ``{task: outputs}`` (``outputs`` logits per task; 1 for binary or regression).
        k: task-specific top layers (0: multi-BERT; CerBERTus' ``k``).
        share_embeddings: ``False`` with ``k = num_layers`` gives triple-BERT (one full copy per task).
        static: also feed each head the pooled output of a frozen pretrained copy.
        dropout: head dropout.
        pooling: ``"cls"`` (BERT's [CLS] pooler, the paper's) or ``"mean"`` (masked mean of the tokens).
    """

    CONFIG = ("heads", "k", "share_embeddings", "static", "dropout", "pooling")

    def __init__(
        self,
        backbone,
        heads: dict,
        k: int = 0,
        share_embeddings: bool = True,
        static: bool = False,
        dropout: float = 0.1,
        pooling: str = "cls",
        **kwargs,
    ):
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}.")
        heads = {str(t): int(n) for t, n in dict(heads).items()}
        if not heads:
            raise ValueError("heads is empty: give {task: number of outputs}, e.g. {'sst': 5, 'qqp': 1, 'sts': 1}.")
        for task, n in heads.items():
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", task):
                raise ValueError(f"Task name {task!r} must start with a letter and use letters, digits or _.")
            if n < 1:
                raise ValueError(f"Task {task!r} needs at least 1 output, got {n}.")
        n_layers = len(backbone.transformer_layers)
        if int(k) != k or not 0 <= k <= n_layers:
            raise ValueError(
                f"k (task-specific top layers) must be an integer in [0, {n_layers}] for this "
                f"{n_layers}-layer backbone, got {k}."
            )
        k = int(k)
        if not share_embeddings and k != n_layers:
            raise ValueError(
                f"share_embeddings=False (triple-BERT) copies the whole encoder per task, so k must "
                f"be num_layers={n_layers}, got k={k}."
            )
        tasks = list(heads)
        inputs = _inputs()
        dtype = backbone.dtype_policy
        cls = getattr(backbone, "cls_token_index", 0)
        encoders, tops, poolers, embeddings = [], {}, {}, []
        pooled = {}
        if share_embeddings:
            shared = backbone.transformer_layers[: n_layers - k]
            h = _embed(backbone, inputs)
            for layer in shared:
                h = layer(h, padding_mask=inputs["padding_mask"])
            encoders = [backbone]
            for i, task in enumerate(tasks):
                if i == 0:
                    top, pooler = list(backbone.transformer_layers[n_layers - k :]), backbone.pooled_dense
                elif k == 0:
                    top, pooler = [], backbone.pooled_dense
                else:
                    top = [
                        _copy_layer(layer, f"{task}_{layer.name}")
                        for layer in backbone.transformer_layers[n_layers - k :]
                    ]
                    pooler = _copy_layer(backbone.pooled_dense, f"{task}_{backbone.pooled_dense.name}")
                h_t = h
                for layer in top:
                    h_t = layer(h_t, padding_mask=inputs["padding_mask"])
                if pooling == "mean":
                    pooler = None
                    pooled[task] = MaskedMeanPooling(name=f"{task}_mean_pool", dtype=dtype)(h_t, inputs["padding_mask"])
                else:
                    pooled[task] = pooler(h_t[:, cls, :])
                tops[task], poolers[task] = top, pooler
        else:
            for i, task in enumerate(tasks):
                enc = backbone if i == 0 else _clone_backbone(backbone, f"{task}_{backbone.name}")
                encoders.append(enc)
                tops[task], poolers[task] = list(enc.transformer_layers), enc.pooled_dense
                out = enc(inputs)
                pooled[task] = (
                    out["pooled_output"]
                    if pooling == "cls"
                    else MaskedMeanPooling(name=f"{task}_mean_pool", dtype=dtype)(
                        out["sequence_output"], inputs["padding_mask"]
                    )
                )
        static_encoder = None
        if static:
            static_encoder = _clone_backbone(backbone, f"static_{backbone.name}", dropout=0.0)
            static_encoder.trainable = False
            out = static_encoder(inputs)
            frozen = (
                out["pooled_output"]
                if pooling == "cls"
                else MaskedMeanPooling(name="static_mean_pool", dtype=dtype)(
                    out["sequence_output"], inputs["padding_mask"]
                )
            )
            pooled = {
                t: keras.layers.Concatenate(name=f"{t}_with_static", dtype=dtype)([p, frozen])
                for t, p in pooled.items()
            }
        head_layers = {t: ClassifierHead(n, dropout=dropout, name=f"{t}_head", dtype=dtype) for t, n in heads.items()}
        outputs = {t: head_layers[t](pooled[t]) for t in tasks}
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)
        # copies are now built: start them from the pretrained weights
        if share_embeddings and k > 0:
            originals = list(backbone.transformer_layers[n_layers - k :])
            originals += [backbone.pooled_dense] if pooling == "cls" else []
            for task in tasks[1:]:
                copies = tops[task] + ([poolers[task]] if pooling == "cls" else [])
                for orig, copy in zip(originals, copies):
                    _copy_weights(orig, copy)
        self.backbone = backbone
        self.heads = heads
        self.k = k
        self.share_embeddings = bool(share_embeddings)
        self.static = bool(static)
        self.dropout = float(dropout)
        self.pooling = pooling
        if pooling == "mean":  # unused poolers: frozen, so no optimizer waits for their gradients
            for enc in encoders:
                enc.pooled_dense.trainable = False
        # references into the graph (not tracked again: they are saved once, as the graph's layers)
        object.__setattr__(self, "_encoders", tuple(encoders))
        object.__setattr__(self, "_tops", {t: tuple(v) for t, v in tops.items()})
        object.__setattr__(self, "_poolers", dict(poolers))
        object.__setattr__(self, "_static_encoder", static_encoder)

    @property
    def architecture(self) -> str:
        if not self.share_embeddings:
            return "triple-BERT" if len(self.heads) == 3 else f"{len(self.heads)} independent BERTs"
        return "multi-BERT" if self.k == 0 else f"CerBERTus k={self.k}"

    @property
    def backbones(self) -> list:
        """The encoders that embed the input (one when embeddings are shared; SMART perturbs each)."""
        return list(self._encoders)

    def depth_layers(self) -> dict:
        """Layers by depth for layer-wise LR decay: every copy of layer ``i`` in ``layers[i]``."""
        first = self._encoders[0]
        n_layers = len(first.transformer_layers)
        layers = [[] for _ in range(n_layers)]
        if self.share_embeddings:
            embeddings = [
                first.token_embedding,
                first.position_embedding,
                first.segment_embedding,
                first.embeddings_layer_norm,
            ]
            for i in range(n_layers - self.k):
                layers[i].append(first.transformer_layers[i])
            for task in self.heads:
                for j, layer in enumerate(self._tops[task]):
                    layers[n_layers - self.k + j].append(layer)
        else:
            embeddings = [
                layer
                for enc in self._encoders
                for layer in (
                    enc.token_embedding,
                    enc.position_embedding,
                    enc.segment_embedding,
                    enc.embeddings_layer_norm,
                )
            ]
            for enc in self._encoders:
                for i, layer in enumerate(enc.transformer_layers):
                    layers[i].append(layer)
        poolers = list({id(p): p for p in self._poolers.values() if p is not None}.values())
        if self.pooling == "mean" and self.share_embeddings:
            poolers = []  # the mean has no weights; the backbone's pooler is not in the graph
        return {"embeddings": embeddings, "layers": layers, "pooler": poolers}

    def parameter_summary(self) -> dict:
        """Parameters: ``total``, ``trainable`` and ``non_trainable`` (the static copy)."""
        trainable = sum(int(keras.ops.size(w)) for w in self.trainable_weights)
        total = self.count_params()
        return {
            "architecture": self.architecture,
            "total": total,
            "trainable": trainable,
            "non_trainable": total - trainable,
        }


def multi_bert(backbone, heads: dict, **kwargs) -> MultitaskBert:
    """One shared encoder and pooler, one head per task."""
    return MultitaskBert(backbone, heads, k=0, name=kwargs.pop("name", "multi_bert"), **kwargs)


def cerbertus(backbone, heads: dict, k: int = 2, **kwargs) -> MultitaskBert:
    """Shared embeddings and lower ``L-k`` layers; per-task copies of the top ``k`` layers and the pooler."""
    return MultitaskBert(backbone, heads, k=k, name=kwargs.pop("name", f"cerbertus_k{k}"), **kwargs)


def triple_bert(backbone, heads: dict, **kwargs) -> MultitaskBert:
    """An independent copy of the whole encoder per task (trained together, nothing shared)."""
    return MultitaskBert(
        backbone,
        heads,
        k=len(backbone.transformer_layers),
        share_embeddings=False,
        name=kwargs.pop("name", "triple_bert"),
        **kwargs,
    )


def parameter_counts(backbone, heads: dict, ks=(0, 1, 2), static: bool = False) -> list[dict]:
    """Parameters of multi-BERT, CerBERTus for each ``k`` in ``ks`` (0 is multi-BERT) and triple-BERT, by arithmetic.

    Rows: ``architecture``, ``k``, ``total``, ``trainable``, ``vs_multi`` (total / multi-BERT's total).
    """

    def size(layers):
        return sum(int(keras.ops.size(w)) for layer in layers for w in layer.weights)

    emb = size(
        [
            backbone.token_embedding,
            backbone.position_embedding,
            backbone.segment_embedding,
            backbone.embeddings_layer_norm,
        ]
    )
    per_layer = [size([layer]) for layer in backbone.transformer_layers]
    pooler = size([backbone.pooled_dense])
    encoder = emb + sum(per_layer) + pooler
    n_layers, n_tasks = len(per_layer), len(heads)
    width = backbone.hidden_dim * (2 if static else 1)
    head = sum(width * n + n for n in heads.values())
    frozen = encoder if static else 0
    rows = []
    for k in ks:
        if not 0 <= k <= n_layers:
            raise ValueError(f"k must be in [0, {n_layers}], got {k}.")
        extra = (n_tasks - 1) * (sum(per_layer[n_layers - k :]) + pooler) if k else 0
        name = "multi-BERT" if k == 0 else f"CerBERTus k={k}"
        rows.append({"architecture": name, "k": k, "trainable": encoder + extra + head})
    rows.append(
        {
            "architecture": "triple-BERT" if n_tasks == 3 else f"{n_tasks} independent BERTs",
            "k": n_layers,
            "trainable": n_tasks * encoder + head,
        }
    )
    multi = encoder + head + frozen
    for row in rows:
        row["total"] = row["trainable"] + frozen
        row["vs_multi"] = round(row["total"] / multi, 3)
    return rows
