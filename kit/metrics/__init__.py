"""Every score of the kit in one place: task scores, entity F1, token accuracy, masked-token loss and scores, macro-F1.

Macro-F1, entity F1 and token accuracy import without Keras (so :mod:`kit.analysis` stays light); the Keras-backed names
load their module on first use.

>>> from kit.metrics import macro_f1, task_score
>>> task_score("classification", [0, 1], [[0.9, 0.1], [0.2, 0.8]]), round(macro_f1([0, 1, 1], [0, 1, 0], 2), 3)
(1.0, 0.667)
"""

import importlib

from .classification import macro_f1
from .tagging_scores import entity_f1, entity_scores, get_entities, token_accuracy

#: Names whose module imports Keras, loaded on first use (``kit.metrics.Pearson`` imports ``task_scores``).
_WITH_KERAS = {
    "MaskedAccuracy": "masked_tokens",
    "MaskedSparseCategoricalCrossentropy": "masked_tokens",
    "masked_token_scores": "masked_tokens",
    "TASK_KINDS": "task_scores",
    "Pearson": "task_scores",
    "check_kind": "task_scores",
    "task_predictions": "task_scores",
    "task_score": "task_scores",
}

__all__ = ["entity_f1", "entity_scores", "get_entities", "macro_f1", "token_accuracy", *_WITH_KERAS]


def __getattr__(name):
    if name in _WITH_KERAS:
        return getattr(importlib.import_module(f"{__name__}.{_WITH_KERAS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
