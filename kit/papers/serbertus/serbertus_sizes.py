"""Notebook 04's sizes: what never changes with the scale, then each scale.

Tasks name data sets standing in for the paper's SST-5, QQP and STS-B. SMART's settings are the paper's (1 step, epsilon
1e-6, sigma 1e-5, eta 1e-3, p = inf); ``combined`` is CerBERTus + SMART + layer decay (its Table 7's best single
models). Medium and full: ``weight_decay`` 1e-4 (its Table 3: 1e-2 too high, 1e-4 best on all three tasks), no head
``dropout`` (its Table 1); full fine-tunes at the paper's 1e-5 for 3 epochs (its SST dev peaked after 3-4), medium at
5e-5 for 2 (MiniLM-L6, 8k examples per task). Smoke: weight decay 0.01, head dropout 0.1, 2e-4 for 2 epochs of 10 steps
(measured so every baseline clears its constant guess; 20 steps at 1e-5 likely too few, not measured).
"""

DEFAULTS = {
    "ablation_task": "sst",
    "warmup": 0.1,
    "smart": {"epsilon": 1e-6, "sigma": 1e-5, "eta": 1e-3, "steps": 1, "norm": "inf"},
}

SCALES = {
    # MiniLM-L6's bottom 3 layers (the paper: BERT-base, 12) read through the mean of their token vectors (MiniLM
    # was trained for it; [CLS] is BERT's way), 160 training examples per task, 2 epochs of batch 16 at length 32,
    # 3 seeds, CPU; the token table cut to the ids the task texts use (exact for these texts). Chosen so every
    # baseline clears its constant guess (measured on torch, 2026-11-24: SST stand-in 61.7% vs 50.8%, QQP stand-in
    # 70.8% vs 50%, STS stand-in Pearson 0.57 vs 0; at 224 examples ~67%, ~70%, ~0.65) in 17 minutes on a 2-core CPU
    # beside another notebook (CI's setting; not timed alone). The stand-ins are easier than at medium: binary
    # sentiment, random (not same-word) negatives, and human-rated Amazon sentences for the score task. CerBERTus
    # k = 1 (of the 3 layers: 2 shared, 1 per task, the share medium's k = 2 of 6 keeps; the paper's k = 2 of 12 kept
    # 10 shared) trains beside multi-BERT: its three top-layer branches all run on every batch, so a run costs more
    # than a multi-BERT run (k = 1: 5 layer passes a batch against 3; k = 2, here until 2026-11-30, made 7: its three
    # runs took 137 s against k = 1's 97 s on torch, one thread, 2026-11-30; results.csv's seconds rows hold a run's).
    "smoke": {
        "backbone": "minilm-l6",
        "encoder_layers": 3,
        "pooling": "mean",
        "tasks": {
            "sst": {"dataset": "rt_snippets", "options": {"target": "binary"}, "max_train": 160, "max_eval": 128},
            "qqp": {"dataset": "wordnet_pairs", "options": {"negatives": "random"}, "max_train": 160, "max_eval": 128},
            "sts": {"dataset": "amazon_snippets", "options": {"target": "rating"}, "max_train": 160, "max_eval": 128},
        },
        "sequence_length": 32,
        "compact_vocabulary": True,
        "batch_size": 16,
        "epochs": 2,
        "learning_rate": 2e-4,
        "weight_decay": 0.01,
        "dropout": 0.1,
        "seeds": [0, 1, 2],
        "smart_lambdas": [10.0],
        "llrd_decays": [0.8],
        "mlm_steps": [20],
        "mlm_learning_rate": 5e-5,
        "cerbertus_k": [1],
        "joint_triple": False,
        "combined": None,
    },
    # the offline stand-ins at full size (the WordNet pair sets subsampled to 8k; half the QQP stand-in's negatives
    # another sense of the word, half random; the STS stand-in with 2 unrelated senses per example), MiniLM-L6 read
    # through its token mean, 3 seeds, 2 epochs (best dev epoch kept), every ablation, CerBERTus k=2 and k=2 + SMART
    # + decay 0.95 (the form of the paper's best single models; lambda 10 here, where its Table 7 k=2 model had 15):
    # 33 runs, ~10 minutes alone on one H200 (benchmarks/medium_gpu/plan_medium.py). 3 seeds: no row can find the
    # paper's effects (0.1-4.5 points) on 1,000-1,060 test examples at any number of seeds (~6 points detectable,
    # ~10 for STS's Pearson). Not at medium, to fit: CerBERTus k=1 and 3 and the jointly trained triple-BERT (70
    # runs with them and 5 seeds, ~24 minutes)
    "medium": {
        "backbone": "minilm-l6",
        "encoder_layers": None,
        "pooling": "mean",
        "smart_lambdas": [1.0, 10.0],
        "tasks": {
            "sst": {"dataset": "rt_snippets", "options": {"target": "5class"}, "max_train": None, "max_eval": None},
            "qqp": {"dataset": "wordnet_pairs", "options": {"negatives": "mixed"}, "max_train": 8000, "max_eval": 1000},
            "sts": {"dataset": "wordnet_graded", "options": {"unrelated": 2}, "max_train": 8000, "max_eval": 1000},
        },
        "sequence_length": 64,
        "compact_vocabulary": False,
        "batch_size": 32,
        "epochs": 2,
        "learning_rate": 5e-5,
        "weight_decay": 1e-4,
        "dropout": 0.0,
        "seeds": [0, 1, 2],
        "llrd_decays": [0.95, 0.9],
        "mlm_steps": [500],
        "mlm_learning_rate": 2e-5,
        "cerbertus_k": [2],
        "joint_triple": False,
        "combined": {"k": 2, "lambda_s": 10.0, "decay": 0.95},
    },
    # SerBERTus' own setting: BERT-base (keras-hub preset), SST-5 trees, GLUE QQP (100k of its 364k training pairs)
    # and STS-B from your copies (KIT_DATA_SST5, KIT_DATA_GLUE_QQP, KIT_DATA_GLUE_STSB), 3 epochs, 3 seeds, k in
    # {2, 4, 6} as the paper's Table 6, CerBERTus k=2 with SMART lambda 12 and decay 0.95 (the paper's best QQP and
    # STS models, its section 4.3.8; its Table 7 k=2 single model had lambda 15), the kit's recipe (above): ~300k
    # step-equivalents, ~2 GPU-hours on an H100 with jax by GPU.md's BERT-base step rate (~9 hours on torch); the
    # paper's rate, weight decay and head dropout (the module docstring), 3 epochs where it allowed 10
    "full": {
        "backbone": "bert_base_en_uncased",
        "encoder_layers": None,
        "pooling": "cls",
        "smart_lambdas": [1.0, 10.0],
        "tasks": {
            "sst": {"dataset": "sst5", "options": {}, "max_train": None, "max_eval": None},
            "qqp": {"dataset": "glue_qqp", "options": {}, "max_train": 100000, "max_eval": 5000},
            "sts": {"dataset": "glue_stsb", "options": {}, "max_train": None, "max_eval": None},
        },
        "sequence_length": 128,
        "compact_vocabulary": False,
        "batch_size": 32,
        "epochs": 3,
        "learning_rate": 1e-5,
        "weight_decay": 1e-4,
        "dropout": 0.0,
        "seeds": [0, 1, 2],
        "llrd_decays": [0.95, 0.9],
        "mlm_steps": [2000],
        "mlm_learning_rate": 1e-5,
        "cerbertus_k": [2, 4, 6],
        "joint_triple": False,
        "combined": {"k": 2, "lambda_s": 12.0, "decay": 0.95},
    },
}

#: The medium data's known sizes, so the medium plan is built without loading it (kit.papers.costs).
MEDIUM_DATA = {
    "sst": {"train": 8485, "test": 1060},
    "qqp": {"train": 8000, "test": 1000},
    "sts": {"train": 8000, "test": 1000},
}

#: What a medium run costs, in seconds with four notebooks sharing one H200 (benchmarks/medium_gpu/plan_medium.py):
#: per kind (:func:`cost_kind`), ``(fixed, per planned step, first)``, ``first`` paid for each new (setting, task)
#: program. Logged: the baseline (15 runs: 17.6 ms a step past notebook 03's 1.25 s a run, compiles of 5-20 s, 12.8
#: on average) and SMART (10: 42.7 ms a step, compiles of 8-9 s). Derived: layer decay and further MLM as the baseline
#: (MLM's steps are in the plan's); the multitask runs' fixed cost and compile once per task (three), their step as
#: the baseline's times the encoder layers each batch runs: CerBERTus k ``(6 + 2k) / 6``, the joint triple-BERT 3;
#: the combined model CerBERTus k=2 x SMART's step.
MEDIUM_COSTS = {
    "baseline": (1.25, 0.0176, 12.8),
    "smart": (1.25, 0.0427, 8.7),
    "llrd": (1.25, 0.0176, 12.8),
    "mlm": (2.5, 0.0176, 25.6),
    "multi": (3.75, 0.0176, 38.4),
    "cerbertus-1": (3.75, 0.0235, 38.4),
    "cerbertus-2": (3.75, 0.0293, 38.4),
    "cerbertus-3": (3.75, 0.0352, 38.4),
    "triple": (3.75, 0.0528, 38.4),
    "combined": (3.75, 0.0712, 38.4),
}
#: The cells outside the runs, seconds as above: before the sweep (the data, the encoder, the run by hand's first
#: compile: 88 s logged, less that run's own cost) and after it (the ensembles, tables: assumed).
MEDIUM_OUTSIDE = (52.0, 30.0)


def cost_kind(run: dict) -> str:
    """A planned run's kind for :data:`MEDIUM_COSTS`: its experiment, or its architecture for architecture runs.

    Example:
        >>> [cost_kind(r) for r in ({"experiment": "smart"}, {"experiment": "architecture", "architecture": "multi"},
        ...                         {"experiment": "architecture", "architecture": "cerbertus", "k": 2})]
        ['smart', 'multi', 'cerbertus-2']
    """
    if run["experiment"] != "architecture":
        return run["experiment"]
    arch = run["architecture"]
    return f"cerbertus-{run['k']}" if arch == "cerbertus" else arch


def cost_programs(run: dict) -> tuple:
    """The compiled programs a run needs: one per setting and task."""
    return ((run["experiment"], run["setting"], run["task"]),)
