"""Training helpers: the papers' recipes, TLM's stage 1, and a resumable sweep runner."""

from .classify import FitResult, accuracy, fit_classifier, planned_steps, regression_scores
from .sweep import Sweep
from .freeze import STRATEGIES, DivergenceStopping, FreezeState, PhaseResult, StackResult, stack_and_finetune
from .averaging import average_predictions, predict_average
from .tlm import Stage1Result, TLMBatches, evaluate_mlm, train_stage1

__all__ = ["STRATEGIES", "DivergenceStopping", "FreezeState", "PhaseResult", "StackResult", "stack_and_finetune",
           "average_predictions", "predict_average", "FitResult", "Stage1Result", "Sweep", "TLMBatches", "accuracy", "evaluate_mlm", "fit_classifier",
           "planned_steps", "regression_scores", "train_stage1"]
