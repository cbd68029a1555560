"""Models: pretrained backbones, their split into embeddings + encoder, heads."""

from .bilstm import BiLSTMEncoder, masked_max
from .bundle import Bundle, load_bundle, save_bundle, save_bundle_if_best, uncompiled_copy
from .embeddings import backbone_token_table, glove_table, glove_vectors
from .lstm_classifier import PretrainedTokenEmbedding, build_lstm_classifier, count_params_without_embeddings
from .backbones import OFFLINE_BACKBONES, BertBackbone, LoadedBackbone, load_backbone
from .heads import ClassifierHead, build_classifier
from .backbone_parts import BackboneParts, split_backbone
from .tlm_model import TLMModel, tlm_backbone
from .rich_head import RichHead, build_stacked_model, unpack_states
from .tagging import (IGNORE, AlignedTags, MaskedAccuracy, MaskedSparseCategoricalCrossentropy, TokenTaggerHead,
                      align_labels, build_tagger, word_pieces, word_predictions)
from .cnn_heads import DenseCNNHead
from .highway import HighwayBiLSTMHead
from .matching import BiMPMHead, MultiPerspectiveMatching, SimTransformerHead, pair_masks
from .multitask_bert import MultitaskBert, cerbertus, multi_bert, parameter_counts, triple_bert
from .mlm_model import MLMModel
from .truncate import truncate_backbone

__all__ = ["truncate_backbone", "Bundle", "load_bundle", "save_bundle", "save_bundle_if_best", "uncompiled_copy", "RichHead", "masked_max", "backbone_token_table", "glove_table", "glove_vectors", "BiLSTMEncoder", "PretrainedTokenEmbedding", "build_lstm_classifier", "count_params_without_embeddings",
           "OFFLINE_BACKBONES", "BertBackbone", "LoadedBackbone", "load_backbone", "ClassifierHead",
           "build_classifier", "BackboneParts", "split_backbone", "TLMModel", "tlm_backbone",
           "build_stacked_model", "unpack_states", "IGNORE", "AlignedTags", "MaskedAccuracy",
           "MaskedSparseCategoricalCrossentropy", "TokenTaggerHead", "align_labels", "build_tagger", "word_pieces",
           "word_predictions", "DenseCNNHead", "HighwayBiLSTMHead", "BiMPMHead", "MultiPerspectiveMatching",
           "SimTransformerHead", "pair_masks", "MultitaskBert", "cerbertus", "multi_bert", "parameter_counts",
           "triple_bert", "MLMModel"]
