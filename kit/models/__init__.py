"""Models: pretrained backbones, their split into embeddings + encoder, heads."""

from ..metrics.masked_tokens import MaskedAccuracy, MaskedSparseCategoricalCrossentropy
from ..text.alignment import IGNORE, AlignedTags, align_labels, word_pieces, word_predictions
from .backbone_parts import BackboneParts, split_backbone
from .backbones import OFFLINE_BACKBONES, BertBackbone, LoadedBackbone, load_backbone
from .bilstm import BiLSTMEncoder, masked_max
from .bundle import Bundle, load_bundle, save_bundle, save_bundle_if_best, uncompiled_copy
from .embeddings import backbone_token_table, glove_table, glove_vectors
from .heads import (
    BiMPMHead,
    ClassifierHead,
    DenseBlocks,
    DenseCNNHead,
    HighwayBiLSTMHead,
    MultiPerspectiveMatching,
    RichHead,
    SimTransformerHead,
    TokenTaggerHead,
    TransformerLayers,
    build_classifier,
    build_stacked_model,
    pair_masks,
    unpack_states,
)
from .lstm_classifier import (
    PretrainedTokenEmbedding,
    TokenTable,
    build_lstm_classifier,
    count_params_without_embeddings,
)
from .mlm_model import MLMModel
from .multitask_bert import MultitaskBert, cerbertus, multi_bert, parameter_counts, triple_bert
from .tlm_model import TLMModel, tlm_backbone
from .truncate import truncate_backbone

__all__ = [
    "truncate_backbone",
    "Bundle",
    "load_bundle",
    "save_bundle",
    "save_bundle_if_best",
    "uncompiled_copy",
    "RichHead",
    "masked_max",
    "backbone_token_table",
    "glove_table",
    "glove_vectors",
    "BiLSTMEncoder",
    "PretrainedTokenEmbedding",
    "TokenTable",
    "build_lstm_classifier",
    "count_params_without_embeddings",
    "OFFLINE_BACKBONES",
    "BertBackbone",
    "LoadedBackbone",
    "load_backbone",
    "ClassifierHead",
    "build_classifier",
    "BackboneParts",
    "split_backbone",
    "TLMModel",
    "tlm_backbone",
    "build_stacked_model",
    "unpack_states",
    "IGNORE",
    "AlignedTags",
    "MaskedAccuracy",
    "MaskedSparseCategoricalCrossentropy",
    "TokenTaggerHead",
    "align_labels",
    "word_pieces",
    "word_predictions",
    "DenseBlocks",
    "DenseCNNHead",
    "HighwayBiLSTMHead",
    "BiMPMHead",
    "MultiPerspectiveMatching",
    "SimTransformerHead",
    "TransformerLayers",
    "pair_masks",
    "MultitaskBert",
    "cerbertus",
    "multi_bert",
    "parameter_counts",
    "triple_bert",
    "MLMModel",
]
