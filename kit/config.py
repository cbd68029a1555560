"""One place for the kit's switches: scale, seeds, cache and output folders.

The scale is read from the environment variable ``KIT_SCALE`` (``smoke`` by
default, or ``full``). Every size that depends on the scale lives in
``SCALES`` below, so a notebook asks ``kit.config.sizes()`` instead of
hard-coding numbers.

>>> import kit
>>> kit.config.scale() in ("smoke", "full")
True
>>> kit.config.sizes()["sequence_length"] > 0
True
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np

SCALE_ENV = "KIT_SCALE"
DATA_DIR_ENV = "KIT_DATA_DIR"
OUT_ENV = "KIT_OUT"

#: Every size that changes with the scale. Notebooks read these, never literals.
SCALES: dict[str, dict] = {
    "smoke": {
        "description": "offline, CPU, minutes: the data the kit can fetch from "
        "the package registries, small models, short training",
        "sequence_length": 64,
        "batch_size": 32,
        "epochs": 2,
        "max_train_examples": 2000,
        "max_eval_examples": 500,
        "backbone": "minilm-l6",
        "seeds": [0],
        # notebook 01, To Pretrain or Not to Pretrain (smaller LSTMs than the paper's, said on screen)
        "pretrain_or_not": {
            "dataset": "rt_snippets", "train_pool": 1600, "max_eval": 300,
            "fractions": [0.01, 0.1, 0.3, 0.5, 1.0], "lstm_seeds": [0, 1], "transformer_seeds": [0],
            "lstm_sizes": [[1, 64], [2, 64]], "lstm_plus_pretrained": [2, 64], "embedding_dim": 64,
            "lstm_epochs": 5, "lstm_lr": 1e-3, "lstm_batch": 64, "lstm_min_steps": 30,
            "transformer_epochs": 1, "transformer_lr": 1e-4, "transformer_batch": 32, "transformer_min_steps": 24,
            "sequence_length": 48, "timing_batch_sizes": [32], "timing_sequence_length": 128,
        },
        # notebook 02, TLM (a tiny from-scratch BERT and a few hundred steps: the machinery, not the paper's numbers)
        "tlm": {
            "tasks": {"bbc_news": "news", "rt_snippets": "reviews"}, "ablation_task": "bbc_news",
            "max_train": 500, "max_eval": 300, "sequence_length": 48, "vocabulary_size": 5000,
            "num_layers": 2, "num_heads": 4, "hidden_dim": 64, "intermediate_dim": 256, "dropout": 0.0,
            "k": 8, "k_ablation": [2], "rho1": 3, "rho1_ablation": [], "rho2": 20, "rho2_ablation": [0],
            "stage1_steps": 400, "batch_size": 32, "stage1_lr": 2e-3, "warmup": 0.06,
            "stage2_epochs": 8, "stage2_lr": 1e-3, "seeds": [0],
            "baseline_epochs": 2, "baseline_lr": 1e-4, "baseline_batch": 32, "attention_texts": 64,
        },
    },
    "full": {
        "description": "the papers' data sets and pretrained presets on a GPU",
        "sequence_length": 512,
        "batch_size": 32,
        "epochs": 10,
        "max_train_examples": None,
        "max_eval_examples": None,
        "backbone": "minilm-l6",
        "seeds": [0, 1, 2],
        "pretrain_or_not": {
            "dataset": "yelp_polarity", "train_pool": None, "max_eval": None,
            "fractions": [0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0], "lstm_seeds": [0, 1, 2], "transformer_seeds": [0, 1, 2],
            "lstm_sizes": [[2, 256], [4, 256]], "lstm_plus_pretrained": [4, 256], "embedding_dim": 300,
            "lstm_epochs": 10, "lstm_lr": 1e-3, "lstm_batch": 64, "lstm_min_steps": 0,
            "transformer_epochs": 10, "transformer_lr": 2e-5, "transformer_batch": 32, "transformer_min_steps": 0,
            "sequence_length": 512, "timing_batch_sizes": [128, 256, 384], "timing_sequence_length": 512,
        },
        # the paper's AGNews / IMDB with a 6-layer model on one GPU (the paper's small scale is BERT-base, 1e5 steps
        # of batch 256: set the numbers below to it if you have the compute)
        "tlm": {
            "tasks": {"ag_news": "news", "imdb": "reviews"}, "ablation_task": "ag_news",
            "max_train": None, "max_eval": None, "sequence_length": 128, "vocabulary_size": 30522,
            "num_layers": 6, "num_heads": 8, "hidden_dim": 512, "intermediate_dim": 2048, "dropout": 0.1,
            "k": 50, "k_ablation": [5, 500], "rho1": 3, "rho1_ablation": [1, 19], "rho2": 20, "rho2_ablation": [0, 100],
            "stage1_steps": 20000, "batch_size": 128, "stage1_lr": 5e-4, "warmup": 0.06,
            "stage2_epochs": 3, "stage2_lr": 5e-5, "seeds": [0, 1, 2],
            "baseline_epochs": 3, "baseline_lr": 2e-5, "baseline_batch": 32, "attention_texts": 256,
        },
    },
}


def scale() -> str:
    """The scale in use: ``KIT_SCALE`` (``smoke`` or ``full``), default smoke."""
    value = os.environ.get(SCALE_ENV, "smoke").strip().lower() or "smoke"
    if value not in SCALES:
        raise ValueError(
            f"Unknown {SCALE_ENV}={value!r}. Set it to one of "
            f"{sorted(SCALES)} (e.g. `export {SCALE_ENV}=smoke`), or unset it "
            "for the default 'smoke'."
        )
    return value


def sizes(name: str | None = None) -> dict:
    """The sizes of scale ``name`` (default: the scale in use), as a copy."""
    name = scale() if name is None else name
    if name not in SCALES:
        raise ValueError(f"Unknown scale {name!r}; choose one of {sorted(SCALES)}.")
    return dict(SCALES[name])


def data_dir() -> Path:
    """Where downloads are cached: ``KIT_DATA_DIR`` or the user cache dir."""
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        path = Path(env).expanduser()
    else:
        from platformdirs import user_cache_dir

        path = Path(user_cache_dir("nlp-course-kit")) / "data"
    path.mkdir(parents=True, exist_ok=True)
    return path


def output_dir(notebook: str | None = None) -> Path:
    """The folder a run writes its figures and tables to.

    ``kit run`` sets ``KIT_OUT``; ``kit test`` sets ``KIT_OUT_ROOT`` (each notebook
    writes to ``KIT_OUT_ROOT/<notebook>``); run by hand, a notebook writes under
    ``runs/<notebook>/``.
    """
    env = os.environ.get(OUT_ENV)
    root = os.environ.get(OUT_ENV + "_ROOT")  # several notebooks in one session (kit test): root/<notebook>
    if env:
        path = Path(env)
    else:
        path = Path(root or "runs") / (notebook or "scratch")
    path.mkdir(parents=True, exist_ok=True)
    return path


def set_seed(seed: int = 0) -> int:
    """Seed Python, NumPy and the Keras backend, so reruns repeat.

    >>> set_seed(3)
    3
    """
    random.seed(seed)
    np.random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    import keras

    keras.utils.set_random_seed(seed)
    return seed
