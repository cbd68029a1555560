"""Layer-wise learning-rate decay (LLRD): lower BERT layers learn more slowly than the top ones.

Sun et al. 2019, SerBERTus: of ``L`` layers, layer ``i`` (0 nearest the input) learns at
``learning_rate · decay^(L-1-i)`` (the top at the base rate), pooler and heads at ``learning_rate · head_multiplier``,
embeddings as ``embeddings`` says (:func:`rate_groups`). ELECTRA's convention (head at base, top layer at
``base · decay``): ``head_multiplier=1/decay`` and ``learning_rate`` times ``decay``. :class:`LayerwiseAdamW` scales
each variable's rate inside its update, so schedules, ``global_clipnorm`` and weight decay work across groups (Keras
3.15's ``MultiOptimizer`` can't).

>>> from kit.models import BertBackbone, build_classifier
>>> bb = BertBackbone(vocabulary_size=30, num_layers=3, num_heads=2, hidden_dim=8,
...                   intermediate_dim=16, max_sequence_length=8)
>>> model = build_classifier(bb, 2)
>>> opt = llrd_optimizer(model, bb, learning_rate=1e-3, decay=0.5)
>>> print(format_rate_table(opt.rate_table))
group            variables   params  multiplier  learning_rate
embeddings               5      336      0.1250       1.25e-04
layer 0                 16      600      0.2500       2.50e-04
layer 1                 16      600      0.5000       5.00e-04
layer 2                 16      600      1.0000       1.00e-03
pooler + heads           4       90      1.0000       1.00e-03
"""

from __future__ import annotations

from keras import ops

from ..optimizers.layerwise_adamw import LayerwiseAdamW

EMBEDDING_ATTRS = ("token_embedding", "position_embedding", "segment_embedding", "embeddings_layer_norm")


def depth_layers(backbone) -> dict:
    """A backbone's layers by depth: ``{"embeddings": [...], "layers": [[depth 0], ..., [L-1]], "pooler": [...]}``.

    Depth 0 is nearest the input. A kit multitask model (it has ``depth_layers()``) lists every copy of a depth together
    (CerBERTus' per-task top layers, triple-BERT's encoders).

    Raises:
        ValueError: ``backbone`` is not a BERT backbone (no ``transformer_layers``).
    """
    if hasattr(backbone, "depth_layers"):
        return backbone.depth_layers()
    if not hasattr(backbone, "transformer_layers"):
        raise ValueError(
            f"{getattr(backbone, 'name', backbone)!r} is not a BERT backbone: layer-wise decay needs "
            "`transformer_layers` and the embedding layers (keras-hub or kit BertBackbone), or a kit "
            "multitask model."
        )
    embeddings = [getattr(backbone, a) for a in EMBEDDING_ATTRS if getattr(backbone, a, None) is not None]
    pooler = [backbone.pooled_dense] if getattr(backbone, "pooled_dense", None) is not None else []
    return {"embeddings": embeddings, "layers": [[layer] for layer in backbone.transformer_layers], "pooler": pooler}


def _embedding_multiplier(embeddings, decay: float, n_layers: int) -> float:
    if embeddings == "decay":
        return decay**n_layers
    if embeddings == "frozen":
        return 0.0
    if embeddings == "base":
        return 1.0
    if isinstance(embeddings, (int, float)) and not isinstance(embeddings, bool) and embeddings >= 0:
        return float(embeddings)
    raise ValueError(f"embeddings must be 'decay', 'frozen', 'base' or a multiplier >= 0, got {embeddings!r}.")


def _variables_of(layers, trainable: dict) -> list:
    """The variables of ``layers`` that are in ``trainable`` (``{id: variable}``), each once, in order."""
    seen, out = set(), []
    for layer in layers:
        for v in layer.trainable_variables:
            if id(v) in trainable and id(v) not in seen:
                seen.add(id(v))
                out.append(v)
    return out


def rate_groups(model, backbone, decay: float = 0.95, head_multiplier: float = 1.0, embeddings="decay") -> list[dict]:
    """``model``'s trainable variables in rate groups, embeddings up: rows ``group``, ``multiplier``, ``variables``.

    ``decay`` in (0, 1] (1: none) is the factor per layer toward the input; ``head_multiplier`` (> 0) applies to
    ``"pooler + heads"``, every variable no other group claims; ``embeddings``: ``"decay"`` (``decay^L``), ``"frozen"``
    (0), ``"base"`` (1) or a multiplier >= 0.

    Raises:
        ValueError: ``decay``, ``head_multiplier`` or ``embeddings`` out of range, or a backbone with no trainable
            variables or not part of ``model``.
    """
    if not 0.0 < decay <= 1.0:
        raise ValueError(f"decay must be in (0, 1] (the factor per layer toward the input; 1 = no decay), got {decay}.")
    if head_multiplier <= 0:
        raise ValueError(f"head_multiplier must be > 0, got {head_multiplier}.")
    parts = depth_layers(backbone)
    n_layers = len(parts["layers"])
    emb_mult = _embedding_multiplier(embeddings, decay, n_layers)
    trainable = {id(v): v for v in model.trainable_variables}
    backbone_vars = {
        id(v)
        for layer in parts["embeddings"] + [sub for d in parts["layers"] for sub in d]
        for v in layer.trainable_variables
    }
    if not backbone_vars:
        raise ValueError("The backbone has no trainable variables: nothing to decay (is it frozen?).")
    if not backbone_vars & set(trainable):
        raise ValueError(
            f"The backbone {getattr(backbone, 'name', '')!r} is not part of the model {model.name!r} "
            "(none of its variables is among the model's trainable variables). Pass the backbone the "
            "model was built from."
        )

    rows = [{"group": "embeddings", "multiplier": emb_mult, "variables": _variables_of(parts["embeddings"], trainable)}]
    for i, layers in enumerate(parts["layers"]):
        rows.append(
            {
                "group": f"layer {i}" + (f" (x{len(layers)})" if len(layers) > 1 else ""),
                "multiplier": decay ** (n_layers - 1 - i),
                "variables": _variables_of(layers, trainable),
            }
        )
    claimed = {id(v) for row in rows for v in row["variables"]}
    rest = [v for v in model.trainable_variables if id(v) not in claimed]
    rows.append({"group": "pooler + heads", "multiplier": float(head_multiplier), "variables": rest})
    return rows


def rate_table(
    model, backbone, learning_rate=None, decay: float = 0.95, head_multiplier: float = 1.0, embeddings="decay"
) -> list[dict]:
    """Rows ``group, variables`` (a count), ``params, multiplier, learning_rate``: ``llrd_optimizer(...).rate_table``.

    ``learning_rate`` is None in the rows when it is a schedule or not given; arguments as :func:`rate_groups`.
    """
    return _table(
        rate_groups(model, backbone, decay=decay, head_multiplier=head_multiplier, embeddings=embeddings), learning_rate
    )


def _table(rows, learning_rate) -> list[dict]:
    base = learning_rate if isinstance(learning_rate, (int, float)) else None
    return [
        {
            "group": r["group"],
            "variables": len(r["variables"]),
            "params": int(sum(int(ops.size(v)) for v in r["variables"])),
            "multiplier": r["multiplier"],
            "learning_rate": None if base is None else base * r["multiplier"],
        }
        for r in rows
    ]


def format_rate_table(table: list[dict]) -> str:
    """The rate table (:func:`rate_table`) as aligned text; ``schedule`` where the learning rate is not a number."""
    lines = [f"{'group':<15}{'variables':>11}{'params':>9}{'multiplier':>12}{'learning_rate':>15}"]
    for r in table:
        lr = "schedule" if r["learning_rate"] is None else f"{r['learning_rate']:.2e}"
        lines.append(f"{r['group']:<15}{r['variables']:>11}{r['params']:>9}{r['multiplier']:>12.4f}{lr:>15}")
    return "\n".join(lines)


def llrd_optimizer(
    model,
    backbone,
    learning_rate,
    decay: float = 0.95,
    head_multiplier: float = 1.0,
    embeddings="decay",
    weight_decay: float = 0.01,
    **adamw_kwargs,
) -> LayerwiseAdamW:
    """AdamW with layer-wise learning-rate decay for ``model`` (which contains ``backbone``), ``rate_table`` set.

    Arguments as :func:`rate_groups`; a multitask model's copies of a layer share their depth's rate. ``learning_rate``
    may be a schedule (each group follows it, scaled). Biases and LayerNorm get no weight decay; the rest decays at its
    own rate. ``adamw_kwargs`` go to :class:`kit.optimizers.layerwise_adamw.LayerwiseAdamW`, e.g.
    ``global_clipnorm=1.0`` (across all groups). Print the groups with :func:`format_rate_table`.

    Raises:
        ValueError: the arguments fail :func:`rate_groups`, or two variables in different groups share a path (give the
            layers distinct names).
    """
    rows = rate_groups(model, backbone, decay=decay, head_multiplier=head_multiplier, embeddings=embeddings)
    multipliers = {}
    for row in rows[:-1]:  # the last group (pooler + heads) is the default
        for v in row["variables"]:
            if multipliers.setdefault(v.path, row["multiplier"]) != row["multiplier"]:
                raise ValueError(
                    f"Two variables share the path {v.path!r} but sit in different rate groups; "
                    "give the layers distinct names."
                )
    head_paths = {v.path for v in rows[-1]["variables"]}
    clash = head_paths & set(multipliers)
    if clash and any(multipliers[p] != float(head_multiplier) for p in clash):
        raise ValueError(
            f"Head variables share paths with backbone variables ({sorted(clash)[:3]}); give the "
            "head layers distinct names."
        )
    optimizer = LayerwiseAdamW(
        multipliers=multipliers,
        default_multiplier=head_multiplier,
        learning_rate=learning_rate,
        weight_decay=weight_decay,
        **adamw_kwargs,
    )
    optimizer.rate_table = _table(rows, learning_rate)
    return optimizer
