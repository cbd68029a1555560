"""Scores of class predictions: macro-F1.

Macro-F1 is the unweighted mean over classes of each class's F1 (a rare class counts as much as a common one).
"""

from __future__ import annotations

import numpy as np


def macro_f1(y_true, y_pred, n_classes: int) -> float:
    """Unweighted mean over classes of F1 (a class never predicted nor present is skipped).

    Args:
        y_true: the true class ids.
        y_pred: the predicted class ids.
        n_classes: the classes ``0..n_classes-1`` to average over.

    Returns:
        The macro-F1 (0.0 when no class is present or predicted).

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
