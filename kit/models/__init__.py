"""Models: pretrained backbones, their split into embeddings + encoder, heads."""

from .backbones import OFFLINE_BACKBONES, BertBackbone, LoadedBackbone, load_backbone
from .heads import ClassifierHead, build_classifier
from .split import BackboneParts, split_backbone

__all__ = ["OFFLINE_BACKBONES", "BertBackbone", "LoadedBackbone", "load_backbone", "ClassifierHead",
           "build_classifier", "BackboneParts", "split_backbone"]
