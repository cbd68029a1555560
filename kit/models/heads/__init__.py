"""Every head of the kit: what sits on a backbone's outputs and turns them into a task's logits.

``classifier``: the light head on ``[CLS]`` or the mean token; ``rich_head``: the rich heads' base (token-state dict,
``build_stacked_model``). Stack-and-finetune heads: ``dense_cnn`` (DenseNet-style CNN) and ``highway`` (highway BiLSTM)
classify, ``matching`` (BiMPM, Sim-Transformer) reads sentence pairs, ``token_tagger`` (BiLSTM) tags.

>>> from kit.models.heads import ClassifierHead, TokenTaggerHead
>>> ClassifierHead(3).num_classes, TokenTaggerHead(5).num_tags
(3, 5)
"""

from .classifier import ClassifierHead, MaskedMeanPooling, build_classifier
from .dense_cnn import DenseBlocks, DenseCNNHead
from .highway import HighwayBiLSTMHead
from .matching import BiMPMHead, MultiPerspectiveMatching, SimTransformerHead, TransformerLayers, pair_masks
from .rich_head import RichHead, build_stacked_model, full_mask, unpack_states
from .token_tagger import TokenTaggerHead

__all__ = [
    "BiMPMHead",
    "ClassifierHead",
    "DenseBlocks",
    "DenseCNNHead",
    "HighwayBiLSTMHead",
    "MaskedMeanPooling",
    "MultiPerspectiveMatching",
    "RichHead",
    "SimTransformerHead",
    "TokenTaggerHead",
    "TransformerLayers",
    "build_classifier",
    "build_stacked_model",
    "full_mask",
    "pair_masks",
    "unpack_states",
]
