"""Training helpers: recipes from the papers (more arrive with notebooks 03-04)."""

from .classify import FitResult, accuracy, fit_classifier
from .tlm import Stage1Result, TLMBatches, evaluate_mlm, train_stage1

__all__ = ["FitResult", "Stage1Result", "TLMBatches", "accuracy", "evaluate_mlm", "fit_classifier", "train_stage1"]
