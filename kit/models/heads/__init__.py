"""Every head of the kit: what sits on a backbone's outputs and turns them into a task's logits.

=====================  =======================================================================
module                 heads
=====================  =======================================================================
``classifier``         the light head on ``[CLS]`` or the mean token (``ClassifierHead``)
``rich_head``          the base of the rich heads: the token-state dict, ``build_stacked_model``
``dense_cnn``          DenseNet-style CNN over tokens (stack-and-finetune, classification)
``highway``            highway BiLSTM (stack-and-finetune, classification)
``matching``           BiMPM and the Sim-Transformer (stack-and-finetune, sentence pairs)
``token_tagger``       BiLSTM token tagger (stack-and-finetune, tagging)
=====================  =======================================================================

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
