"""Scores of class predictions: macro-F1, the unweighted mean of each class's F1 (rare counts as common)."""

from __future__ import annotations

import numpy as np


def macro_f1(y_true, y_pred, n_classes: int) -> float:
    """Unweighted mean over classes ``0..n_classes-1`` of F1, skipping a class never present nor predicted (none: 0.0).

    Example:
        >>> round(macro_f1([0, 0, 1, 1], [0, 1, 1, 1], 2), 3)
        0.733
    """
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    f1s = []
    for c in range(n_classes):
        tp = int(((y_pred == c) & (y_true == c)).sum())
        fp = int(((y_pred == c) & (y_true != c)).sum())
        fn = int(((y_pred != c) & (y_true == c)).sum())
        if tp + fp + fn == 0:
            continue
        f1s.append(2 * tp / (2 * tp + fp + fn))
    return float(np.mean(f1s)) if f1s else 0.0
