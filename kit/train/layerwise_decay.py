"""Layer-wise learning-rate decay (LLRD): lower BERT layers learn more slowly than the top ones.

The kit's convention (Sun et al. 2019, SerBERTus), with ``L`` transformer layers:

==========================  ==============================================
group                       learning rate
==========================  ==============================================
transformer layer ``i``     ``learning_rate · decay^(L-1-i)`` (0 = nearest the input)
embeddings                  ``learning_rate · decay^L`` (``embeddings="decay"``),
                            0 (``"frozen"``), ``learning_rate`` (``"base"``),
                            or ``learning_rate · m`` for a number ``m``
pooler and task heads       ``learning_rate · head_multiplier``
==========================  ==============================================

So the top layer learns at the base rate. (ELECTRA's code instead gives the
head the base rate and the top layer ``base · decay``: set
``head_multiplier=1/decay`` and scale ``learning_rate`` by ``decay`` to match.)

:func:`llrd_optimizer` returns a :class:`LayerwiseAdamW`: AdamW that multiplies
the learning rate by a fixed factor per variable inside its update (the
gradient is never scaled: Adam divides its scale away). A learning-rate
schedule therefore scales every group alike, ``global_clipnorm`` clips across
all groups at once, and the decoupled weight decay of a variable uses its own
rate (PyTorch's parameter-group semantics: ``w -= lr_group · wd · w``). Keras
3.15's ``keras.optimizers.MultiOptimizer`` (one optimizer per group) is the
other route; it cannot clip by the global norm across groups and a
``LearningRateScheduler`` callback overwrites each group's rate with the same
value, which is why the kit scales per variable instead.

Multipliers are stored by variable path (``transformer_layer_3/...``), so a
model compiled with this optimizer saves and loads like any other.

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
    """A backbone's layers by depth: the embeddings, the transformer layers (depth 0 nearest the input), the pooler.

    A BERT backbone gives one layer per depth; a kit multitask model
    (``kit.models.multitask_bert.MultitaskBert``) lists every copy of a depth
    together (CerBERTus' per-task top layers, triple-BERT's encoders).

    Args:
        backbone: a keras-hub or kit ``BertBackbone``, or a kit multitask model (it has ``depth_layers()``).

    Returns:
        ``{"embeddings": [layers], "layers": [[layers at depth 0], ..., [depth L-1]], "pooler": [layers]}``.

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
    """The groups of ``model``'s trainable variables and their rate multipliers (see the module docstring).

    Args:
        model: the model to train (it contains ``backbone``).
        backbone: a BERT backbone or a kit multitask model (see :func:`depth_layers`).
        decay: the factor per layer toward the input, in (0, 1] (1: no decay); layer ``i`` of ``L`` gets
            ``decay^(L-1-i)``.
        head_multiplier: the pooler's and task heads' multiplier (> 0).
        embeddings: ``"decay"`` (``decay^L``), ``"frozen"`` (0), ``"base"`` (1) or a multiplier >= 0.

    Returns:
        One row per group, from the embeddings up to ``"pooler + heads"`` (every variable no other group
        claims): ``group``, ``multiplier``, ``variables`` (the variable objects).

    Raises:
        ValueError: ``decay``, ``head_multiplier`` or ``embeddings`` out of range, a backbone with no trainable
            variables, or one that is not part of ``model``.
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
    """Rows ``group, variables, params, multiplier, learning_rate`` (None for a schedule or no rate given).

    The same table as ``llrd_optimizer(...).rate_table``; ``pandas.DataFrame(rows)`` makes a data frame.

    Args:
        model: the model to train (it contains ``backbone``).
        backbone: a BERT backbone or a kit multitask model.
        learning_rate: the base rate (a number), or a schedule or None (then no rates are shown).
        decay: the factor per layer toward the input (see :func:`rate_groups`).
        head_multiplier: the pooler's and task heads' multiplier.
        embeddings: ``"decay"``, ``"frozen"``, ``"base"`` or a multiplier (see :func:`rate_groups`).

    Returns:
        One dict per group: ``group``, ``variables`` (a count), ``params``, ``multiplier``, ``learning_rate``.
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
    """The rate table as aligned text (``pandas.DataFrame(table)`` gives a data frame).

    Args:
        table: rows from :func:`rate_table` (or ``optimizer.rate_table``).

    Returns:
        One header line and one line per group; ``schedule`` where the learning rate is not a number.
    """
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
    """AdamW with layer-wise learning-rate decay for ``model`` (which contains ``backbone``).

    Bias and LayerNorm variables get no weight decay. The table of groups is ``optimizer.rate_table`` (print it
    with :func:`format_rate_table`).

    Args:
        model: the model to train.
        backbone: a BERT backbone, or a kit multitask model (then every copy of a layer shares its depth's rate).
        learning_rate: a float or a ``keras.optimizers.schedules.LearningRateSchedule`` (every group follows it,
            scaled by its multiplier).
        decay: the factor per layer toward the input (see :func:`rate_groups`).
        head_multiplier: the pooler's and task heads' multiplier (the default for unlisted variables).
        embeddings: ``"decay"``, ``"frozen"``, ``"base"`` or a multiplier (see :func:`rate_groups`).
        weight_decay: the decoupled weight decay, applied at each variable's own rate.
        **adamw_kwargs: more :class:`kit.optimizers.layerwise_adamw.LayerwiseAdamW` (AdamW) arguments, e.g.
            ``global_clipnorm=1.0``: clip the gradients to that global norm across all groups at once.

    Returns:
        A :class:`kit.optimizers.layerwise_adamw.LayerwiseAdamW` with ``rate_table`` set.

    Raises:
        ValueError: the arguments fail :func:`rate_groups`, or two variables in different groups share a path
            (give the layers distinct names).
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
