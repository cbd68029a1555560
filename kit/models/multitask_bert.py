"""One BERT, several task heads: triple-BERT, multi-BERT and CerBERTus (SerBERTus' architectures).

``MultitaskBert(backbone, heads, k)``: the preprocessor's dict → ``{task: logits}``, one
:class:`~kit.models.heads.ClassifierHead` per task (``heads``: outputs per task, e.g. 5 for SST-5, 1 for QQP's binary
logit, 1 for STS-B's score). Every task's branch runs on every batch: the cost per step grows with ``k`` and tasks.

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
from dataclasses import dataclass

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


def _check_arguments(backbone, heads: dict, k: int, share_embeddings: bool, pooling: str) -> tuple[dict, int]:
    """Validate :class:`MultitaskBert`'s arguments."""
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
    return heads, k


@dataclass
class _Branches:
    """What a sharing mode builds: the encoders, each task's top layers, pooler and pooled output."""

    encoders: list  # the backbones that embed the input: one when shared, one per task for triple-BERT
    tops: dict  # {task: [its top transformer layers]}
    poolers: dict  # {task: its [CLS] pooler} (None for mean pooling on a shared encoder)
    pooled: dict  # {task: the tensor its head reads}


def _task_top(backbone, task: str, first: bool, k: int) -> tuple[list, keras.layers.Layer]:
    """One task's top ``k`` layers and pooler (CerBERTus' task-specific part)."""
    n_layers = len(backbone.transformer_layers)
    if first or k == 0:
        return list(backbone.transformer_layers[n_layers - k :]), backbone.pooled_dense
    top = [_copy_layer(layer, f"{task}_{layer.name}") for layer in backbone.transformer_layers[n_layers - k :]]
    return top, _copy_layer(backbone.pooled_dense, f"{task}_{backbone.pooled_dense.name}")


def _build_shared(backbone, tasks: list, k: int, pooling: str, inputs: dict) -> _Branches:
    """multi-BERT (``k=0``) and CerBERTus: shared embeddings and lower ``L-k`` layers, a top of ``k`` per task."""
    n_layers = len(backbone.transformer_layers)
    dtype = backbone.dtype_policy
    cls = getattr(backbone, "cls_token_index", 0)
    h = _embed(backbone, inputs)
    for layer in backbone.transformer_layers[: n_layers - k]:
        h = layer(h, padding_mask=inputs["padding_mask"])
    branches = _Branches([backbone], {}, {}, {})
    for i, task in enumerate(tasks):
        top, pooler = _task_top(backbone, task, i == 0, k)
        h_t = h
        for layer in top:
            h_t = layer(h_t, padding_mask=inputs["padding_mask"])
        if pooling == "mean":  # the copied pooler stays unbuilt and out of the graph
            pooler = None
            branches.pooled[task] = MaskedMeanPooling(name=f"{task}_mean_pool", dtype=dtype)(
                h_t, inputs["padding_mask"]
            )
        else:
            branches.pooled[task] = pooler(h_t[:, cls, :])
        branches.tops[task], branches.poolers[task] = top, pooler
    return branches


def _encoder_output(encoder, pooling: str, mean_name: str, inputs: dict, dtype):
    """What a head reads from a whole encoder: its [CLS] pooled output or the masked mean of its last layer."""
    out = encoder(inputs)
    if pooling == "cls":
        return out["pooled_output"]
    return MaskedMeanPooling(name=mean_name, dtype=dtype)(out["sequence_output"], inputs["padding_mask"])


def _build_independent(backbone, tasks: list, pooling: str, inputs: dict) -> _Branches:
    """triple-BERT: an independent encoder per task (the backbone for the first, pretrained clones for the others)."""
    branches = _Branches([], {}, {}, {})
    for i, task in enumerate(tasks):
        enc = backbone if i == 0 else _clone_backbone(backbone, f"{task}_{backbone.name}")
        branches.encoders.append(enc)
        branches.tops[task], branches.poolers[task] = list(enc.transformer_layers), enc.pooled_dense
        branches.pooled[task] = _encoder_output(enc, pooling, f"{task}_mean_pool", inputs, backbone.dtype_policy)
    return branches


def _add_static(backbone, pooled: dict, pooling: str, inputs: dict) -> tuple:
    """Static BERT: concatenate to every task's pooled output that of a frozen pretrained copy (no dropout)."""
    static_encoder = _clone_backbone(backbone, f"static_{backbone.name}", dropout=0.0)
    static_encoder.trainable = False
    frozen = _encoder_output(static_encoder, pooling, "static_mean_pool", inputs, backbone.dtype_policy)
    concat = {
        t: keras.layers.Concatenate(name=f"{t}_with_static", dtype=backbone.dtype_policy)([p, frozen])
        for t, p in pooled.items()
    }
    return static_encoder, concat


def _start_copies_pretrained(backbone, branches: _Branches, tasks: list, k: int, pooling: str) -> None:
    """Copy the backbone's top ``k`` layers (and pooler, for ``"cls"``) into the other tasks' built copies."""
    n_layers = len(backbone.transformer_layers)
    originals = list(backbone.transformer_layers[n_layers - k :])
    originals += [backbone.pooled_dense] if pooling == "cls" else []
    for task in tasks[1:]:
        copies = branches.tops[task] + ([branches.poolers[task]] if pooling == "cls" else [])
        for orig, copy in zip(originals, copies):
            _copy_weights(orig, copy)


@keras.saving.register_keras_serializable(package="kit")
class MultitaskBert(BuiltOnBackbone, keras.Model):
    """A BERT encoder shared (fully, partly or not at all) by one classifier/regressor head per task.

    - **multi-BERT** (``k=0``): one shared encoder and pooler, one head per task.
    - **CerBERTus** (``0 < k <= L``): embeddings and the lower ``L-k`` layers shared; each task has its own top ``k``
      layers and pooler, all from the same pretrained weights. The paper found ``k=2`` best with BERT-base (12 layers).
    - **triple-BERT** (``share_embeddings=False``, ``k=L``): an independent copy of the whole encoder per task.
    - ``static=True`` (SerBERTus' "static BERT"): each head also reads the pooled output of a frozen pretrained copy
      (no dropout), concatenated to its own.
    - ``pooling="mean"``: heads read the masked token mean, not the [CLS] pooler (``"cls"``, the paper's). Sentence
      encoders such as MiniLM were trained for it (a few hundred examples then learn a pair task); poolers are frozen.

    ``heads``: ``{task: outputs}`` (1 for binary or regression); ``dropout``: the heads'. Saves and loads as ``.keras``
    (the backbone is kept in the config; copies are rebuilt and their weights loaded). ValueError: an unknown pooling,
    no task, a task name that is not an identifier, a task with no output, ``k`` outside ``[0, num_layers]``, or
    ``share_embeddings=False`` with ``k != num_layers``.
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
        heads, k = _check_arguments(backbone, heads, k, share_embeddings, pooling)
        tasks = list(heads)
        inputs = _inputs()
        if share_embeddings:
            branches = _build_shared(backbone, tasks, k, pooling, inputs)
        else:
            branches = _build_independent(backbone, tasks, pooling, inputs)
        pooled, static_encoder = branches.pooled, None
        if static:
            static_encoder, pooled = _add_static(backbone, pooled, pooling, inputs)
        dtype = backbone.dtype_policy
        head_layers = {t: ClassifierHead(n, dropout=dropout, name=f"{t}_head", dtype=dtype) for t, n in heads.items()}
        outputs = {t: head_layers[t](pooled[t]) for t in tasks}
        super().__init__(inputs=inputs, outputs=outputs, **kwargs)
        # copies are now built: start them from the pretrained weights
        if share_embeddings and k > 0:
            _start_copies_pretrained(backbone, branches, tasks, k, pooling)
        self.backbone = backbone
        self.heads = heads
        self.k = k
        self.share_embeddings = bool(share_embeddings)
        self.static = bool(static)
        self.dropout = float(dropout)
        self.pooling = pooling
        if pooling == "mean":  # unused poolers: frozen, so no optimizer waits for their gradients
            for enc in branches.encoders:
                enc.pooled_dense.trainable = False
        # references into the graph (not tracked again: they are saved once, as the graph's layers)
        object.__setattr__(self, "_encoders", tuple(branches.encoders))
        object.__setattr__(self, "_tops", {t: tuple(v) for t, v in branches.tops.items()})
        object.__setattr__(self, "_poolers", dict(branches.poolers))
        object.__setattr__(self, "_static_encoder", static_encoder)

    @property
    def architecture(self) -> str:
        """The architecture's name: ``"multi-BERT"``, ``"CerBERTus k=2"``, ``"triple-BERT"``, ..."""
        if not self.share_embeddings:
            return "triple-BERT" if len(self.heads) == 3 else f"{len(self.heads)} independent BERTs"
        return "multi-BERT" if self.k == 0 else f"CerBERTus k={self.k}"

    @property
    def backbones(self) -> list:
        """The encoders that embed the input (one when embeddings are shared; SMART perturbs each)."""
        return list(self._encoders)

    def depth_layers(self) -> dict:
        """Layers by depth for layer-wise LR decay: every copy of layer ``i`` in ``layers[i]``.

        ``{"embeddings", "layers", "pooler"}``: every encoder's embedding layers, the transformer layers by depth
        (shared ones and each task's copies), the poolers in the graph (none for mean pooling on a shared encoder).
        """
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
        """``{"architecture", "total", "trainable", "non_trainable"}`` (static copy, mean pooling's frozen poolers)."""
        trainable = sum(int(keras.ops.size(w)) for w in self.trainable_weights)
        total = self.count_params()
        return {
            "architecture": self.architecture,
            "total": total,
            "trainable": trainable,
            "non_trainable": total - trainable,
        }


def multi_bert(backbone, heads: dict, **kwargs) -> MultitaskBert:
    """multi-BERT (``k=0``): one shared encoder and pooler, one head per task.

    Named ``"multi_bert"`` by default; ``**kwargs`` go to :class:`MultitaskBert`.
    """
    return MultitaskBert(backbone, heads, k=0, name=kwargs.pop("name", "multi_bert"), **kwargs)


def cerbertus(backbone, heads: dict, k: int = 2, **kwargs) -> MultitaskBert:
    """CerBERTus: shared embeddings and lower ``L-k`` layers; per-task copies of the top ``k`` layers and the pooler.

    ``k=2`` was the paper's best with BERT-base. Named ``"cerbertus_k{k}"`` by default; ``**kwargs`` go to
    :class:`MultitaskBert`.
    """
    return MultitaskBert(backbone, heads, k=k, name=kwargs.pop("name", f"cerbertus_k{k}"), **kwargs)


def triple_bert(backbone, heads: dict, **kwargs) -> MultitaskBert:
    """triple-BERT: an independent copy of the whole encoder per task (trained together, nothing shared).

    The first task uses ``backbone``, the others copies. Named ``"triple_bert"`` by default; ``**kwargs`` go to
    :class:`MultitaskBert`.
    """
    return MultitaskBert(
        backbone,
        heads,
        k=len(backbone.transformer_layers),
        share_embeddings=False,
        name=kwargs.pop("name", "triple_bert"),
        **kwargs,
    )


def _layer_sizes(backbone) -> tuple[int, list[int], int]:
    """Parameters of ``backbone``'s embeddings, of each of its transformer layers, and of its pooler."""

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
    return emb, per_layer, pooler


def parameter_counts(backbone, heads: dict, ks=(0, 1, 2), static: bool = False, pooling: str = "cls") -> list[dict]:
    """Parameters of multi-BERT, CerBERTus for each ``k`` in ``ks`` and triple-BERT, by arithmetic (nothing built).

    Rows (one per ``k``, then triple-BERT's): ``architecture``, ``k``, ``total``, ``trainable``, ``vs_multi`` (total /
    multi-BERT's total). ``static`` counts the frozen static copy and the heads' doubled input. With ``pooling="mean"``
    the count follows what is built: CerBERTus copies no pooler per task, and every built pooler (the backbone's, each
    triple-BERT encoder's) is unused and frozen: in ``total``, not in ``trainable``. A ``k`` outside
    ``[0, num_layers]``, or an unknown pooling, is a ValueError.
    """
    if pooling not in POOLINGS:
        raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}.")
    emb, per_layer, pooler = _layer_sizes(backbone)
    encoder = emb + sum(per_layer) + pooler  # a whole encoder, its pooler built in any case
    unused = pooler if pooling == "mean" else 0  # a built pooler that mean pooling leaves frozen
    copied = pooler if pooling == "cls" else 0  # CerBERTus copies the pooler per task only for [CLS] pooling
    n_layers, n_tasks = len(per_layer), len(heads)
    width = backbone.hidden_dim * (2 if static else 1)
    head = sum(width * n + n for n in heads.values())
    frozen = encoder if static else 0
    rows = []
    for k in ks:
        if not 0 <= k <= n_layers:
            raise ValueError(f"k must be in [0, {n_layers}], got {k}.")
        extra = (n_tasks - 1) * (sum(per_layer[n_layers - k :]) + copied) if k else 0
        name = "multi-BERT" if k == 0 else f"CerBERTus k={k}"
        rows.append({"architecture": name, "k": k, "built": encoder + extra + head, "unused": unused})
    rows.append(
        {
            "architecture": "triple-BERT" if n_tasks == 3 else f"{n_tasks} independent BERTs",
            "k": n_layers,
            "built": n_tasks * encoder + head,
            "unused": n_tasks * unused,
        }
    )
    multi = encoder + head + frozen
    for row in rows:
        built, unused_here = row.pop("built"), row.pop("unused")
        row["trainable"] = built - unused_here
        row["total"] = built + frozen
        row["vs_multi"] = round(row["total"] / multi, 3)
    return rows
