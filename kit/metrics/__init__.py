"""Every score of the kit in one place: task scores (accuracy, Pearson), entity F1 and token accuracy, the masked
loss and accuracy over labelled tokens, masked-token (MLM) accuracy and loss, macro-F1.

>>> from kit.metrics import macro_f1, task_score
>>> task_score("classification", [0, 1], [[0.9, 0.1], [0.2, 0.8]]), round(macro_f1([0, 1, 1], [0, 1, 0], 2), 3)
(1.0, 0.667)
"""

from .classification import macro_f1
from .masked_tokens import MaskedAccuracy, MaskedSparseCategoricalCrossentropy, masked_token_scores
from .tagging_scores import entity_f1, entity_scores, get_entities, token_accuracy
from .task_scores import TASK_KINDS, Pearson, check_kind, task_predictions, task_score

__all__ = [
    "TASK_KINDS",
    "MaskedAccuracy",
    "MaskedSparseCategoricalCrossentropy",
    "Pearson",
    "check_kind",
    "entity_f1",
    "entity_scores",
    "get_entities",
    "macro_f1",
    "masked_token_scores",
    "task_predictions",
    "task_score",
    "token_accuracy",
]
