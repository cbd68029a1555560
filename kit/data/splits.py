"""Deterministic, seeded splits (stratified where labels allow).

>>> import numpy as np
>>> from kit.data.splits import split_indices
>>> parts = split_indices(100, dev=0.1, test=0.2, seed=0, stratify=np.arange(100) % 2)
>>> [len(parts[k]) for k in ("train", "dev", "test")]
[70, 10, 20]
"""

from __future__ import annotations

import numpy as np


def _can_stratify(stratify, n_pick: int) -> bool:
    if stratify is None:
        return False
    labels = np.asarray(stratify)
    if labels.ndim != 1:
        return False
    _, counts = np.unique(labels, return_counts=True)
    return counts.min() >= 2 and n_pick >= len(counts)


def sample_indices(n: int, k: int, seed: int = 0, stratify=None) -> np.ndarray:
    """Pick ``k`` of ``range(n)`` (all for ``k >= n``; ValueError for ``k <= 0``), seeded, sorted.

    Stratified by ``stratify`` when the labels are 1-D, every class has 2+ rows and ``k`` leaves room for one per class.

    Example:
        >>> sample_indices(10, 4, seed=0, stratify=np.arange(10) % 2).tolist()
        [0, 1, 4, 5]
    """
    from sklearn.model_selection import train_test_split

    if k >= n:
        return np.arange(n)
    if k <= 0:
        raise ValueError(f"Cannot sample {k} rows: ask for at least one.")
    idx = np.arange(n)
    strat = np.asarray(stratify) if _can_stratify(stratify, k) else None
    picked, _ = train_test_split(idx, train_size=k, random_state=seed, stratify=strat)
    return np.sort(picked)


def split_indices(n: int, dev: float = 0.1, test: float = 0.1, seed: int = 0, stratify=None) -> dict[str, np.ndarray]:
    """Split ``range(n)`` into ``{"train", "dev", "test"}`` index arrays (fractions ``dev``, ``test``), seeded.

    Test is cut first, then dev from the rest (``seed + 1``); a cut is stratified when every class has 2+ rows and each
    side has room for one per class. Each array is in a seeded shuffled order (files are often grouped by class).
    Fractions outside [0, 1), summing to 1 or more, or leaving a split empty raise ValueError.

    Example:
        >>> sorted(len(v) for v in split_indices(10, seed=0).values())
        [1, 1, 8]
    """
    if not (0 <= dev < 1 and 0 <= test < 1 and dev + test < 1):
        raise ValueError(f"dev={dev} and test={test} must be fractions that sum to less than 1.")
    n_test = int(round(n * test))
    n_dev = int(round(n * dev))
    if n - n_test - n_dev <= 0 or (dev > 0 and n_dev == 0) or (test > 0 and n_test == 0):
        raise ValueError(
            f"Cannot split {n} rows into train/dev/test with dev={dev}, test={test}: a split "
            "would be empty. Provide more rows or change the fractions."
        )
    idx = np.arange(n)
    rest, test_idx = _cut(idx, n_test, seed, None if stratify is None else np.asarray(stratify))
    strat_rest = None if stratify is None else np.asarray(stratify)[rest]
    train_idx, dev_idx = _cut(rest, n_dev, seed + 1, strat_rest)
    # a seeded shuffle (not the file's order, which is often grouped by class)
    rng = np.random.default_rng(seed)
    return {k: rng.permutation(np.sort(v)) for k, v in (("train", train_idx), ("dev", dev_idx), ("test", test_idx))}


def _cut(idx: np.ndarray, n_out: int, seed: int, stratify):
    from sklearn.model_selection import train_test_split

    if n_out == 0:
        return idx, idx[:0]
    strat = stratify if _can_stratify(stratify, n_out) and _can_stratify(stratify, len(idx) - n_out) else None
    keep, out = train_test_split(idx, test_size=n_out, random_state=seed, stratify=strat)
    return keep, out


def split_given(given, *, dev: float = 0.1, test: float = 0.1, seed: int = 0, stratify=None) -> dict:
    """Train/dev/test row indices from each row's ``given`` split (a treebank's files, a ``DatasetDict``'s), in order.

    A split no row has is cut from train (fraction ``dev`` or ``test`` of it), seeded, stratified by ``stratify``.

    Example:
        >>> {k: len(v) for k, v in split_given(["train"] * 8 + ["test"] * 2, dev=0.25).items()}
        {'train': 6, 'dev': 2, 'test': 2}
    """
    given = np.asarray(given)
    parts = {k: np.flatnonzero(given == k) for k in ("train", "dev", "test")}
    cut = {k: (dev if k == "dev" else test) for k in ("dev", "test") if len(parts[k]) == 0}
    if not cut:
        return parts
    train = parts["train"]
    strat = None if stratify is None else np.asarray(stratify)[train]
    sub = split_indices(len(train), dev=cut.get("dev", 0.0), test=cut.get("test", 0.0), seed=seed, stratify=strat)
    return {k: train[sub[k]] if k == "train" or k in cut else v for k, v in parts.items()}
