"""Training helpers: the papers' recipes, TLM's stage 1, and a resumable sweep runner."""

from ..metrics.task_scores import TASK_KINDS, Pearson, task_predictions, task_score
from ..optimizers import adamw, schedules
from ..optimizers.layerwise_adamw import LayerwiseAdamW
from .classify import FitRecipe, FitResult, accuracy, fit_classifier, planned_steps, regression_scores
from .ensemble import TaskEnsemble, average_predictions, dev_gated_ensemble, ensemble_table
from .freeze import (
    STRATEGIES,
    DivergenceStopping,
    FreezeRecipe,
    FreezeState,
    PhaseResult,
    StackResult,
    stack_and_finetune,
)
from .freeze_helpers import EncoderWatch, ReusableBackbone, optimizer_factory, planned_epochs
from .further_pretraining import MLMBatches, MLMRecipe, MLMResult, further_pretrain
from .layerwise_decay import format_rate_table, llrd_optimizer, rate_groups, rate_table
from .masked_lm import evaluate_mlm, fit_in_chunks
from .mlm_prior import set_mlm_prior, unigram_log_prior
from .multitask import (
    MultitaskBatches,
    MultitaskRecipe,
    MultitaskResult,
    compile_multitask,
    evaluate_multitask,
    fit_multitask,
    predict_tasks,
    task_loss,
    task_metrics,
)
from .smart import SMART, SmartNoise, noise_grad
from .sweep import Sweep
from .tlm_training import Stage1Recipe, Stage1Result, TLMBatches, train_stage1

__all__ = [
    "SMART",
    "SmartNoise",
    "noise_grad",
    "LayerwiseAdamW",
    "format_rate_table",
    "llrd_optimizer",
    "rate_groups",
    "rate_table",
    "TASK_KINDS",
    "Pearson",
    "task_predictions",
    "task_score",
    "MultitaskBatches",
    "MultitaskRecipe",
    "MultitaskResult",
    "compile_multitask",
    "evaluate_multitask",
    "fit_multitask",
    "predict_tasks",
    "task_loss",
    "task_metrics",
    "TaskEnsemble",
    "dev_gated_ensemble",
    "ensemble_table",
    "MLMBatches",
    "MLMRecipe",
    "MLMResult",
    "further_pretrain",
    "STRATEGIES",
    "DivergenceStopping",
    "FreezeRecipe",
    "FreezeState",
    "PhaseResult",
    "StackResult",
    "stack_and_finetune",
    "average_predictions",
    "FitRecipe",
    "FitResult",
    "Stage1Recipe",
    "Stage1Result",
    "Sweep",
    "TLMBatches",
    "accuracy",
    "evaluate_mlm",
    "fit_classifier",
    "planned_steps",
    "regression_scores",
    "train_stage1",
    "fit_in_chunks",
    "set_mlm_prior",
    "unigram_log_prior",
    "schedules",
    "adamw",
    "EncoderWatch",
    "ReusableBackbone",
    "optimizer_factory",
    "planned_epochs",
]
