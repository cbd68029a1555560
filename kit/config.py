"""One place for the kit's switches: scale, precision, seeds, cache and output folders.

The scale is read from the environment variable ``KIT_SCALE`` (``smoke`` by
default, ``medium`` or ``full``). Every size that depends on the scale lives in
``SCALES`` below, so a notebook asks ``kit.config.sizes()`` instead of
hard-coding numbers. ``KIT_SIZES`` (JSON, merged into the scale's sizes) changes
any of them for one run, e.g. ``KIT_SIZES='{"tlm": {"stage1_steps": 50}}'``.

``KIT_PRECISION`` (``float32`` by default, ``mixed_bfloat16`` or
``mixed_float16``) is Keras' global dtype policy; :func:`apply_precision` sets
it, and must run before models are built (notebooks do it in their first cell).

>>> import kit
>>> kit.config.scale() in ("smoke", "medium", "full")
True
>>> kit.config.sizes()["sequence_length"] > 0
True
>>> kit.config.precision()
'float32'
"""

from __future__ import annotations

import copy
import json
import os
import random
from pathlib import Path

import numpy as np

SCALE_ENV = "KIT_SCALE"
SIZES_ENV = "KIT_SIZES"
PRECISION_ENV = "KIT_PRECISION"
DATA_DIR_ENV = "KIT_DATA_DIR"
OUT_ENV = "KIT_OUT"
PRECISIONS = ("float32", "mixed_bfloat16", "mixed_float16")

#: Every size that changes with the scale. Notebooks read these, never literals.
#: ``train_sizes`` entries above 1 are numbers of examples, entries up to 1 fractions of the training set.
SCALES: dict[str, dict] = {
    "smoke": {
        "description": "offline, CPU, minutes: the data the kit can fetch from "
        "the package registries, small models, short training",
        "sequence_length": 64,
        "batch_size": 32,
        "epochs": 2,
        "max_train_examples": 1000,
        "max_eval_examples": 500,
        "backbone": "minilm-l6",
        "seeds": [0],
        # notebook 01, To Pretrain or Not to Pretrain (smaller LSTMs than the paper's, said on screen)
        "pretrain_or_not": {
            "dataset": "rt_snippets", "max_eval": 500,
            "train_sizes": [300, 900, 2700], "lstm_seeds": [0, 1], "transformer_seeds": [0, 1],
            "lstm_sizes": [[2, 64]], "lstm_plus_pretrained": [2, 64], "embedding_dim": 64,
            "lstm_epochs": 6, "lstm_lr": 1e-3, "lstm_batch": 64, "lstm_min_steps": 60, "lstm_patience": 2,
            "transformer_epochs": 1, "transformer_lr": 1e-4, "transformer_batch": 32, "transformer_min_steps": 30,
            "sequence_length": 48, "timing_batch_sizes": [32], "timing_sequence_length": 128, "timing_repeats": 3,
        },
        # notebook 02, TLM (a tiny from-scratch BERT and a few hundred steps: the machinery, not the paper's numbers)
        "tlm": {
            "tasks": {"bbc_news": "news", "rt_snippets": "reviews"}, "ablation_task": "bbc_news",
            "max_train": 500, "max_eval": 300, "sequence_length": 48, "vocabulary_size": 5000,
            "num_layers": 2, "num_heads": 4, "hidden_dim": 64, "intermediate_dim": 256, "dropout": 0.0,
            "k": 8, "k_ablation": [2], "rho1": 3, "rho1_ablation": [], "rho2": 20, "rho2_ablation": [0],
            "stage1_steps": 400, "batch_size": 32, "stage1_lr": 2e-3, "warmup": 0.06, "pooling": "mean",
            "stage2_epochs": 6, "stage2_lr": 1e-3, "seeds": [0, 1],
            "baseline_epochs": 2, "baseline_lr": 1e-4, "baseline_batch": 32, "attention_texts": 64,
        },
        # notebook 03, stack-and-finetune: MiniLM-L6's bottom 3 layers on 128-160 training examples per task and a
        # few epochs (the mechanism: freezing, phase-1 stopping, three strategies with seeds; not the paper's numbers)
        "stack_and_finetune": {
            "tasks": {
                "brown_pos": {"section": "tagging", "dataset": "brown_pos", "max_words": 20,
                              "sequence_length": 32, "max_train": 128, "max_eval": 128, "max_dev": 64},
                "brown_entities": {"section": "tagging", "dataset": "brown_pos", "labels": "entities", "max_words": 20,
                                   "sequence_length": 32, "max_train": 128, "max_eval": 128, "max_dev": 64},
                "bbc_business_politics": {"section": "classification", "dataset": "bbc_news",
                                          "classes": ["business", "politics"], "text": "headline",
                                          "sequence_length": 24, "max_train": 160, "max_eval": None},
                "wordnet_pairs": {"section": "pairs", "dataset": "wordnet_pairs", "sequence_length": 32,
                                  "max_train": 128, "max_eval": 128, "max_dev": 64},
            },
            "section_heads": {"tagging": ["bilstm"], "classification": ["densenet", "highway"],
                              "pairs": ["bimpm", "sim_transformer"]},
            "heads": {
                "bilstm": {"n_layers": 1, "cells": 64},
                "densenet": {"filters": 64, "growth": 16, "blocks": 2, "convs_per_block": 2},
                "highway": {"n_layers": 1, "cells": 64},
                "bimpm": {"perspectives": 10, "context_cells": 32, "aggregation_cells": 32, "hidden_dim": 64},
                "sim_transformer": {"num_layers": 1, "num_heads": 2, "hidden_dim": 32, "intermediate_dim": 64,
                                    "perspectives": 5},
            },
            "encoder_layers": 3, "light_hidden_dim": 128, "light_pooling": "mean", "rich_head_finetune": False, "dropout": 0.1, "seeds": [0, 1],
            "batch_size": 16, "phase1_lr": 3e-3, "phase2_lr": 4e-4, "phase1_epochs": 4, "phase2_epochs": 2,
            "weight_decay": 0.01,
            "schedule": "bert_adam", "warmup": 0.1, "divergence_threshold": 0.05, "divergence_patience": 2,
        },
        # notebook 04, SerBERTus: MiniLM-L6 (6 layers; the paper: BERT-base, 12) on 160 training examples per
        # task, one epoch of batch 16 at length 32, 2 seeds, CPU; MiniLM's token table cut to the ids the task texts
        # use (exact for these texts, ~25% faster steps). Every experiment runs; most differences are noise at this
        # size (said on screen). ~6-7 CPU-minutes on torch.
        "serbertus": {
            "backbone": "minilm-l6",
            "tasks": {
                "sst": {"dataset": "rt_snippets", "options": {"target": "5class"}, "max_train": 160, "max_eval": 128},
                "qqp": {"dataset": "wordnet_pairs", "options": {}, "max_train": 160, "max_eval": 128},
                "sts": {"dataset": "wordnet_graded", "options": {}, "max_train": 160, "max_eval": 128},
            },
            "sequence_length": 32, "compact_vocabulary": True, "batch_size": 16, "epochs": 1, "learning_rate": 1e-4,
            "warmup": 0.1, "weight_decay": 0.01, "dropout": 0.1, "seeds": [0, 1], "ablation_task": "sst",
            "smart_lambdas": [1.0, 10.0], "smart": {"epsilon": 1e-6, "sigma": 1e-5, "eta": 1e-3, "steps": 1, "norm": "inf"},
            "llrd_decays": [0.95], "mlm_steps": [20], "mlm_learning_rate": 5e-5, "cerbertus_k": [1, 2],
            "joint_triple": False, "combined": None,
        },
    },
    "medium": {
        "description": "the offline data at full size and the papers' model sizes, 3 seeds: "
        "~15-20 minutes per notebook on one modern GPU (jax)",
        "sequence_length": 64,
        "batch_size": 32,
        "epochs": 3,
        "max_train_examples": None,
        "max_eval_examples": None,
        "backbone": "minilm-l6",
        "seeds": [0, 1, 2],
        "pretrain_or_not": {
            "dataset": "rt_snippets", "max_eval": None,
            "train_sizes": [300, 1000, 3000, 1.0], "lstm_seeds": [0, 1, 2], "transformer_seeds": [0, 1, 2],
            "lstm_sizes": [[2, 256]], "lstm_plus_pretrained": [4, 256], "embedding_dim": 300,
            "lstm_epochs": 10, "lstm_lr": 1e-3, "lstm_batch": 64, "lstm_min_steps": 100, "lstm_patience": 3,
            "transformer_epochs": 3, "transformer_lr": 5e-5, "transformer_batch": 32, "transformer_min_steps": 60,
            "sequence_length": 64, "timing_batch_sizes": [128, 256, 384], "timing_sequence_length": 512,
            "timing_repeats": 10,
        },
        "tlm": {
            "tasks": {"bbc_news": "news", "rt_snippets": "reviews"}, "ablation_task": "bbc_news",
            "max_train": None, "max_eval": None, "sequence_length": 128, "vocabulary_size": 30522,
            "num_layers": 6, "num_heads": 8, "hidden_dim": 512, "intermediate_dim": 2048, "dropout": 0.1,
            "k": 8, "k_ablation": [], "rho1": 3, "rho1_ablation": [], "rho2": 20, "rho2_ablation": [0],
            "stage1_steps": 1000, "batch_size": 64, "stage1_lr": 5e-4, "warmup": 0.06, "pooling": "mean",
            "stage2_epochs": 3, "stage2_lr": 5e-5, "seeds": [0, 1, 2],
            "baseline_epochs": 2, "baseline_lr": 5e-5, "baseline_batch": 32, "attention_texts": 256,
        },
        # 66 runs (4 tasks; finetune-only, stack-only, stack-and-finetune with each rich head; 3 seeds); on one GPU ~20-25
        # minutes by step-rate estimates (not yet timed): the big offline sets are subsampled to fit, BBC is whole
        "stack_and_finetune": {
            "tasks": {
                "brown_pos": {"section": "tagging", "dataset": "brown_pos", "max_words": None,
                              "sequence_length": 64, "max_train": 4000, "max_eval": 1000, "max_dev": 500},
                "brown_entities": {"section": "tagging", "dataset": "brown_pos", "labels": "entities",
                                   "max_words": None, "sequence_length": 64, "max_train": 4000, "max_eval": 1000,
                                   "max_dev": 500},
                "bbc_business_politics": {"section": "classification", "dataset": "bbc_news",
                                          "classes": ["business", "politics"], "text": "headline",
                                          "sequence_length": 32, "max_train": None, "max_eval": None},
                "wordnet_pairs": {"section": "pairs", "dataset": "wordnet_pairs", "sequence_length": 48,
                                  "max_train": 8000, "max_eval": 1000, "max_dev": 500},
            },
            "section_heads": {"tagging": ["bilstm"], "classification": ["densenet", "highway"],
                              "pairs": ["bimpm", "sim_transformer"]},
            "heads": {
                "bilstm": {"n_layers": 1, "cells": 256},
                "densenet": {"filters": 128, "growth": 32, "blocks": 4, "convs_per_block": 4},
                "highway": {"n_layers": 2, "cells": 128},
                "bimpm": {"perspectives": 20, "context_cells": 100, "aggregation_cells": 100, "hidden_dim": 128},
                "sim_transformer": {"num_layers": 2, "num_heads": 4, "hidden_dim": 128, "intermediate_dim": 256,
                                    "perspectives": 20},
            },
            "encoder_layers": None, "light_hidden_dim": None, "light_pooling": "cls", "rich_head_finetune": True, "dropout": 0.1,
            "seeds": [0, 1, 2],
            "batch_size": 32,
            "phase1_lr": 1e-3, "phase2_lr": 5e-5, "phase1_epochs": 5, "phase2_epochs": 3, "weight_decay": 0.01,
            "schedule": "bert_adam", "warmup": 0.1, "divergence_threshold": 0.03, "divergence_patience": 2,
        },
        # SerBERTus on the offline stand-ins at full size (the WordNet pair sets subsampled to 8k), MiniLM-L6, 3 seeds,
        # 2 epochs (best dev epoch kept), every ablation plus the jointly trained triple-BERT and the paper's best
        # single model (CerBERTus + SMART + layer decay): ~70k step-equivalents, ~15-20 minutes on one GPU with jax
        # by GPU.md's step rates (not yet timed; torch is ~3x slower)
        "serbertus": {
            "backbone": "minilm-l6",
            "tasks": {
                "sst": {"dataset": "rt_snippets", "options": {"target": "5class"}, "max_train": None, "max_eval": None},
                "qqp": {"dataset": "wordnet_pairs", "options": {}, "max_train": 8000, "max_eval": 1000},
                "sts": {"dataset": "wordnet_graded", "options": {}, "max_train": 8000, "max_eval": 1000},
            },
            "sequence_length": 64, "compact_vocabulary": False, "batch_size": 32, "epochs": 2, "learning_rate": 5e-5,
            "warmup": 0.1, "weight_decay": 0.01, "dropout": 0.1, "seeds": [0, 1, 2], "ablation_task": "sst",
            "smart_lambdas": [1.0, 10.0], "smart": {"epsilon": 1e-6, "sigma": 1e-5, "eta": 1e-3, "steps": 1, "norm": "inf"},
            "llrd_decays": [0.95, 0.9], "mlm_steps": [500], "mlm_learning_rate": 2e-5, "cerbertus_k": [1, 2, 3],
            "joint_triple": True, "combined": {"k": 2, "lambda_s": 10.0, "decay": 0.95},
        },
    },
    "full": {
        "description": "the papers' data sets (your copies) and model sizes on a GPU, sized to a few GPU-hours "
        "per notebook",
        "sequence_length": 256,
        "batch_size": 32,
        "epochs": 3,
        "max_train_examples": None,
        "max_eval_examples": None,
        "backbone": "minilm-l6",
        "seeds": [0, 1, 2],
        # Yelp polarity (560k): 4 fractions x 3 seeds x 3 models at length 256, LSTMs <= 2 epochs with early
        # stopping, the transformer 1 epoch: ~3 GPU-hours on an H100 by GPU.md's step rates (the notebook prints
        # the plan and its ETA). The paper: 7 fractions, 10 epochs, length 512 (~110 GPU-hours).
        "pretrain_or_not": {
            "dataset": "yelp_polarity", "max_eval": None,
            "train_sizes": [0.01, 0.1, 0.3, 1.0], "lstm_seeds": [0, 1, 2], "transformer_seeds": [0, 1, 2],
            "lstm_sizes": [[2, 256]], "lstm_plus_pretrained": [4, 256], "embedding_dim": 300,
            "lstm_epochs": 2, "lstm_lr": 1e-3, "lstm_batch": 64, "lstm_min_steps": 100, "lstm_patience": 1,
            "transformer_epochs": 1, "transformer_lr": 2e-5, "transformer_batch": 32, "transformer_min_steps": 100,
            "sequence_length": 256, "timing_batch_sizes": [128, 256, 384], "timing_sequence_length": 512,
            "timing_repeats": 30,
        },
        # AG News / IMDB with the paper's 6-layer x 512 model, 10k steps of batch 128 per run, 3 seeds: ~2
        # GPU-hours (the paper's small scale is BERT-base, 1e5 steps of batch 256: set the numbers to it if you
        # have the compute). Give a large general corpus with KIT_TLM_CORPUS.
        "tlm": {
            "tasks": {"ag_news": "news", "imdb": "reviews"}, "ablation_task": "ag_news",
            "max_train": None, "max_eval": None, "sequence_length": 128, "vocabulary_size": 30522,
            "num_layers": 6, "num_heads": 8, "hidden_dim": 512, "intermediate_dim": 2048, "dropout": 0.1,
            "k": 50, "k_ablation": [5], "rho1": 3, "rho1_ablation": [], "rho2": 20, "rho2_ablation": [0],
            "stage1_steps": 10000, "batch_size": 128, "stage1_lr": 5e-4, "warmup": 0.06, "pooling": "cls",
            "stage2_epochs": 3, "stage2_lr": 5e-5, "seeds": [0, 1, 2],
            "baseline_epochs": 2, "baseline_lr": 2e-5, "baseline_batch": 32, "attention_texts": 256,
        },
        # the paper's data: CoNLL-2003 NER (your copy), 2 of Yahoo Answers' 10 classes (the paper does not say
        # which: two that are easy to confuse), QQP; BERT-base as the paper; 54 runs, a few GPU-hours on one GPU by step-rate estimates
        "stack_and_finetune": {
            "tasks": {
                "conll2003": {"section": "tagging", "dataset": "conll2003", "sequence_length": 128,
                              "max_train": None, "max_eval": None},
                "yahoo_2class": {"section": "classification", "dataset": "yahoo_answers",
                                 "classes": ["Education & Reference", "Science & Mathematics"],
                                 "sequence_length": 128, "max_train": 20000, "max_eval": 5000},
                "qqp": {"section": "pairs", "dataset": "glue_qqp", "sequence_length": 64, "max_train": 50000,
                        "max_eval": 10000},
            },
            "section_heads": {"tagging": ["bilstm"], "classification": ["densenet", "highway"],
                              "pairs": ["bimpm", "sim_transformer"]},
            "heads": {
                "bilstm": {"n_layers": 1, "cells": 256},
                "densenet": {"filters": 128, "growth": 32, "blocks": 4, "convs_per_block": 4},
                "highway": {"n_layers": 2, "cells": 256},
                "bimpm": {"perspectives": 20, "context_cells": 100, "aggregation_cells": 100, "hidden_dim": 128},
                "sim_transformer": {"num_layers": 2, "num_heads": 4, "hidden_dim": 128, "intermediate_dim": 256,
                                    "perspectives": 20},
            },
            "backbone": "bert_base_en_uncased", "encoder_layers": None, "light_hidden_dim": None, "light_pooling": "cls",
            "rich_head_finetune": True, "dropout": 0.1,
            "seeds": [0, 1, 2],
            "batch_size": 32,
            "phase1_lr": 1e-3, "phase2_lr": 2e-5, "phase1_epochs": 5, "phase2_epochs": 3, "weight_decay": 0.01,
            "schedule": "bert_adam", "warmup": 0.1, "divergence_threshold": 0.03, "divergence_patience": 2,
        },
        # SerBERTus' own setting: BERT-base (keras-hub preset, downloaded once), SST-5 trees, GLUE QQP (100k of its
        # 364k training pairs) and STS-B from your copies (KIT_DATA_SST5, KIT_DATA_GLUE_QQP, KIT_DATA_GLUE_STSB),
        # 3 epochs, 3 seeds, k in {2, 4, 6} as the paper's Table 6, its best single model (CerBERTus k=2, SMART
        # lambda 12, decay 0.95): ~300k step-equivalents, ~2 GPU-hours on an H100 with jax by GPU.md's BERT-base step
        # rate (~9 hours on torch); the notebook prints the plan and an ETA
        "serbertus": {
            "backbone": "bert_base_en_uncased",
            "tasks": {
                "sst": {"dataset": "sst5", "options": {}, "max_train": None, "max_eval": None},
                "qqp": {"dataset": "glue_qqp", "options": {}, "max_train": 100000, "max_eval": 5000},
                "sts": {"dataset": "glue_stsb", "options": {}, "max_train": None, "max_eval": None},
            },
            "sequence_length": 128, "compact_vocabulary": False, "batch_size": 32, "epochs": 3, "learning_rate": 2e-5,
            "warmup": 0.1, "weight_decay": 0.01, "dropout": 0.1, "seeds": [0, 1, 2], "ablation_task": "sst",
            "smart_lambdas": [1.0, 10.0], "smart": {"epsilon": 1e-6, "sigma": 1e-5, "eta": 1e-3, "steps": 1, "norm": "inf"},
            "llrd_decays": [0.95, 0.9], "mlm_steps": [2000], "mlm_learning_rate": 1e-5, "cerbertus_k": [2, 4, 6],
            "joint_triple": False, "combined": {"k": 2, "lambda_s": 12.0, "decay": 0.95},
        },
    },
}


def scale() -> str:
    """The scale in use: ``KIT_SCALE`` (``smoke``, ``medium`` or ``full``), default smoke."""
    value = os.environ.get(SCALE_ENV, "smoke").strip().lower() or "smoke"
    if value not in SCALES:
        raise ValueError(
            f"Unknown {SCALE_ENV}={value!r}. Set it to one of "
            f"{sorted(SCALES)} (e.g. `export {SCALE_ENV}=smoke`), or unset it "
            "for the default 'smoke'."
        )
    return value


def _merge(base: dict, extra: dict, where: str = "") -> dict:
    for key, value in extra.items():
        if key not in base:
            raise ValueError(f"{SIZES_ENV}: unknown size {where + key!r}; the sizes are {sorted(base)}.")
        if isinstance(base[key], dict) and isinstance(value, dict) and key not in ("tasks",):
            _merge(base[key], value, f"{where}{key}.")
        else:
            base[key] = value
    return base


def sizes(name: str | None = None) -> dict:
    """The sizes of scale ``name`` (default: the scale in use) with ``KIT_SIZES`` merged in, as a copy."""
    name = scale() if name is None else name
    if name not in SCALES:
        raise ValueError(f"Unknown scale {name!r}; choose one of {sorted(SCALES)}.")
    out = copy.deepcopy(SCALES[name])
    extra = os.environ.get(SIZES_ENV, "").strip()
    if extra:
        try:
            extra = json.loads(extra)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{SIZES_ENV} is not valid JSON ({exc}); e.g. "
                             f"{SIZES_ENV}='{{\"tlm\": {{\"stage1_steps\": 50}}}}'.") from None
        if not isinstance(extra, dict):
            raise ValueError(f"{SIZES_ENV} must be a JSON object of sizes, got {type(extra).__name__}.")
        _merge(out, extra)
    return out


def train_sizes(entries, n_train: int) -> list[int]:
    """``train_sizes`` entries (counts above 1, fractions up to 1) as example counts, capped at ``n_train``.

    >>> train_sizes([300, 1000, 0.5, 1.0], 1200)
    [300, 600, 1000, 1200]
    """
    out = []
    for e in entries:
        n = int(round(e * n_train)) if e <= 1 else int(e)
        out.append(max(2, min(n, n_train)))
    return sorted(set(out))


def precision() -> str:
    """``KIT_PRECISION``: ``float32`` (default), ``mixed_bfloat16`` or ``mixed_float16``."""
    value = os.environ.get(PRECISION_ENV, "float32").strip().lower() or "float32"
    if value not in PRECISIONS:
        raise ValueError(f"Unknown {PRECISION_ENV}={value!r}. Set it to one of {PRECISIONS} "
                         "(mixed_bfloat16 on a recent GPU or TPU, mixed_float16 on older GPUs), or unset it.")
    return value


def apply_precision(name: str | None = None) -> str:
    """Set Keras' global dtype policy to ``name`` (default: :func:`precision`); models built after use it.

    >>> apply_precision("float32")
    'float32'
    """
    import keras

    name = precision() if name is None else name
    if name not in PRECISIONS:
        raise ValueError(f"Unknown precision {name!r}; choose one of {PRECISIONS}.")
    if name == "mixed_float16" and keras.backend.backend() == "jax":
        import jax

        if jax.default_backend() == "cpu":
            raise ValueError("mixed_float16 needs a GPU under jax: XLA on a CPU cannot multiply float16 matrices "
                             "with float32 accumulation. Use KIT_PRECISION=mixed_bfloat16 (or float32) on a CPU.")
    keras.config.set_dtype_policy(name)
    return name


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


def enable_compile_cache(folder=None) -> str | None:
    """On jax, keep compiled XLA programs on disk (``data_dir()/jax-cache``) and reuse them.

    A notebook builds a fresh model for every run of a sweep; the models are alike, so with the cache only the
    first of each kind is compiled (a TLM run on a CPU: ~15 s of compiling becomes ~3 s). Does nothing on other
    backends; returns the folder in use (or None).
    """
    import keras

    if keras.backend.backend() != "jax":
        return None
    import jax

    folder = Path(folder or os.environ.get("JAX_COMPILATION_CACHE_DIR") or data_dir() / "jax-cache")
    folder.mkdir(parents=True, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", str(folder))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    return str(folder)


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
