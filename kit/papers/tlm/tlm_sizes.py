"""Notebook 02's sizes: what never changes with the scale, then each scale.

``k``: top-K per query; ``rho1``: external batches per internal one; ``rho2``: internal MLM weight; ``*_ablation``: the
other values the ablation task trains (rho1 = 0, no retrieval, is Table 4's K = 0 run; the paper's Table 5 sweeps rho1
1, 3, 99, 999, "Ext only"). The baseline keeps MiniLM-L6's bottom ``baseline_layers`` (None: all six), read through
``baseline_pooling`` ("cls" or "mean"). ``model``: ``"kit"`` (the scale's ``num_layers``, ``num_heads``, ``hidden_dim``,
``intermediate_dim``) or a key of :data:`MODELS`, e.g. ``KIT_SIZES='{"tlm": {"model": "bert_base"}}'`` for the paper's
BERT-base (its section 3.1, Table 2: 109M parameters at small and medium scale). ``mlm_prior``: where stage 1 starts the
MLM head's output bias (:func:`kit.train.train_stage1`); ``warmup``: its warm-up share of the steps.
"""

#: Named TLM model shapes (``sizes["model"]``); each replaces the scale's four shape sizes.
MODELS = {
    # BERT-base from scratch, the paper's small- and medium-scale model (Devlin et al.: 12 layers, 768 hidden, 12 heads,
    # 3072 intermediate; ~109M parameters with the full 30,522-id vocabulary)
    "bert_base": {"num_layers": 12, "num_heads": 12, "hidden_dim": 768, "intermediate_dim": 3072},
}

DEFAULTS = {
    "rho1": 3,
    "rho2": 20,
    "warmup": 0.06,
    # where stage 1 starts the MLM head's output bias: "unigram" (log token frequencies; kit.train.mlm_prior) or
    # "zero" (BERT's): with "zero", 3 of 9 medium runs on a GPU stayed at the most frequent token
    # (benchmarks/medium_gpu; the CPU probe of benchmarks/tlm_collapse.py shows why)
    "mlm_prior": "unigram",
    "baseline_batch": 32,
    "model": "kit",
}

SCALES = {
    # a tiny from-scratch BERT and a few hundred steps on a CPU: the machinery, not the paper's numbers; no K ablation
    # (K = 8 vs K = 0 stays in Table 4: 3 more runs cost CI ~3 minutes). 160 stage-1 steps and 4 stage-2 epochs (were
    # 400 and 6, then 300 and 240 with 5), and the MiniLM baseline 1 epoch at 2e-4 (was 2 at 1e-4): 02 went from 35 to
    # 22 to 13 and now ~9.8 minutes on one CPU thread, each notebook under ~10 minutes in CI (README says what moved)
    "smoke": {
        # the other rho1 and rho2 the ablation task trains; a task's own k, rho1, rho2 (:func:`task_sizes`): none here
        "rho1_ablation": [1],
        "rho2_ablation": [0],
        "per_task": {},
        # the most of the general corpus one task's BM25 selection may take (None: no cap; medium: 5%)
        "max_corpus_share": None,
        "tasks": {"bbc_news": "news", "rt_snippets": "reviews"},
        "ablation_task": "bbc_news",
        "max_train": 500,
        "max_eval": 300,
        "sequence_length": 48,
        "vocabulary_size": 5000,
        "num_layers": 2,
        "num_heads": 4,
        "hidden_dim": 64,
        "intermediate_dim": 256,
        "dropout": 0.0,
        "pooling": "mean",
        "k": 8,
        "k_ablation": [],
        "stage1_steps": 160,
        "batch_size": 32,
        "stage1_lr": 2e-3,
        "stage2_epochs": 4,
        "stage2_lr": 1e-3,
        "seeds": [0, 1, 2],
        "baseline_lr": 2e-4,
        "baseline_epochs": 1,
        "attention_texts": 64,
        # MiniLM's bottom 3 layers through the token mean, as in 01, 03 and 04 at smoke: all 6 took 40% of CI's 44 min
        "baseline_layers": 3,
        "baseline_pooling": "mean",
    },
    # the offline tasks at full size, 5 seeds, one GPU; a 6-layer x 512 model from scratch (the kit's choice, ~33M
    # parameters: not the paper's, whose small and medium scales train BERT-base, 109M, and its large scale 355M;
    # its Table 2). Stage 1 is 6 x (1e3 x 64 x 128 tokens) x ~33M ~ 1.6e15 FLOPs, ~1/1,700 of the paper's small scale
    # (2.74e18); with stage 2, 1.8e15-2.3e15 (benchmarks/medium_h100)
    "medium": {
        # the other rho1 and rho2 the ablation task trains; a task's own k, rho1, rho2 (:func:`task_sizes`): none here
        "rho1_ablation": [1],
        "rho2_ablation": [0],
        "per_task": {},
        "tasks": {"bbc_news": "news", "rt_snippets": "reviews"},
        "ablation_task": "bbc_news",
        "max_train": None,
        "max_eval": None,
        "sequence_length": 128,
        "vocabulary_size": 30522,
        "num_layers": 6,
        "num_heads": 8,
        "hidden_dim": 512,
        "intermediate_dim": 2048,
        "dropout": 0.1,
        "pooling": "mean",
        "k": 8,
        # K = 8 took 19.6% of the kit's 30k-passage corpus for BBC and 56.6% for RT (benchmarks/medium_gpu): a random
        # draw of that size shares much of BM25's; keep each selection's best-ranked 5% (1,500 passages, not run yet)
        "max_corpus_share": 0.05,
        "k_ablation": [],
        "stage1_steps": 1000,
        "batch_size": 64,
        "stage1_lr": 5e-4,
        "stage2_epochs": 3,
        "stage2_lr": 5e-5,
        # 3 seeds: no row of the verdict table can find the paper's effects (0.2-2.3 points) on 222 BBC or 1,057 RT
        # test texts at any number of seeds (~5 points detectable), and 3 keep the notebook ~11 minutes alone on one
        # H200 (5: ~17.5; benchmarks/medium_gpu/plan_medium.py); 21 TLM runs show whether any stays stuck
        "seeds": [0, 1, 2],
        "baseline_lr": 5e-5,
        "baseline_epochs": 2,
        "attention_texts": 256,
        "baseline_layers": None,
        "baseline_pooling": "cls",
    },
    # AG News / IMDB with the kit's 6-layer x 512 model (not the paper's: see medium), 10k steps of batch 128 per run,
    # 3 seeds: ~2 GPU-hours. Stage 1 is 6 x (1e4 x 128 x 128 = 1.64e8 tokens) x 33-35M parameters ~ 3.2e16-3.5e16
    # FLOPs, ~1/80-1/85 of the paper's small scale (2.74e18, the mean of its 8 tasks, Table 2; its AGNews run alone,
    # 1e5 steps of 256 x 128 tokens on 109M parameters, is 2.1e18): no scale here can test Table 2's headline. For
    # the paper's small scale set "model": "bert_base" (12 x 768, MODELS above), stage1_steps 1e5 and batch_size
    # 256 (Table B.1: 5e4-1.5e5 steps by task) if you have the compute; the notebook prints the FLOPs before stage 1.
    # Give a large general corpus with KIT_TLM_CORPUS.
    "full": {
        # the most of the general corpus one task's BM25 selection may take (None: no cap; medium: 5%)
        "max_corpus_share": None,
        "tasks": {"ag_news": "news", "imdb": "reviews"},
        "ablation_task": "ag_news",
        "max_train": None,
        "max_eval": None,
        "sequence_length": 128,
        "vocabulary_size": 30522,
        "num_layers": 6,
        "num_heads": 8,
        "hidden_dim": 512,
        "intermediate_dim": 2048,
        "dropout": 0.1,
        "pooling": "cls",
        # the paper's Table B.1 (small scale), per task: AG News K=50, rho1=1, rho2=100; IMDB K=500, rho1=19,
        # rho2=100 (``per_task`` replaces k, rho1, rho2 for its task: :func:`task_sizes`). Its IMDB also reads 512
        # tokens of the task's own texts (128 of the external ones); here every text is cut to sequence_length (128):
        # one model shape and batch for both tasks, and attention 16x cheaper than at 512 (IMDB reviews average ~230
        # words, so a cut at 128 drops part of most of them)
        "k": 50,
        "per_task": {"ag_news": {"rho1": 1, "rho2": 100}, "imdb": {"k": 500, "rho1": 19, "rho2": 100}},
        "k_ablation": [5],
        "rho1_ablation": [3],
        "rho2_ablation": [20],
        "stage1_steps": 10000,
        "batch_size": 128,
        "stage1_lr": 5e-4,
        "stage2_epochs": 3,
        "stage2_lr": 5e-5,
        "seeds": [0, 1, 2],
        "baseline_lr": 2e-5,
        "baseline_epochs": 2,
        "attention_texts": 256,
        "baseline_layers": None,
        "baseline_pooling": "cls",
    },
}


def task_sizes(sizes: dict, task: str) -> dict:
    """The sizes one task runs with: the scale's, with that task's own ``k``, ``rho1`` and ``rho2`` (``per_task``).

    Example:
        >>> own = {"ag_news": {"rho1": 1, "rho2": 100}, "imdb": {"k": 500, "rho1": 19, "rho2": 100}}
        >>> full = {"k": 50, "rho1": 3, "rho2": 20, "per_task": own}
        >>> [(t["k"], t["rho1"], t["rho2"]) for t in (task_sizes(full, "ag_news"), task_sizes(full, "imdb"))]
        [(50, 1, 100), (500, 19, 100)]
    """
    return {**sizes, **sizes.get("per_task", {}).get(task, {})}


#: The medium data's known sizes, so the medium plan is built without loading it (kit.papers.costs).
MEDIUM_DATA = {"bbc_news": {"train": 1781, "test": 222}, "rt_snippets": {"train": 8454, "test": 1057}}

#: What a medium run costs, in seconds with four notebooks sharing one H200 (benchmarks/medium_gpu/plan_medium.py):
#: per kind (:func:`cost_kind`), ``(fixed, per planned step, first)``. TLM: its 8 logged BBC runs, which all plan
#: 1,084 steps, split by their recorded training seconds (40.6 s of 46.1: 37.5 ms a step, 5.5 s a run); a new task
#: or loss weighting compiles its programs anew (``first``, assumed 25 s: not logged). The MiniLM baseline (not
#: logged): notebook 03's MiniLM step (16 ms at 32 x 64) x 1.5 for length 128, 1.25 s a run plus 3 s for the preset,
#: and the 20 s compile of notebooks 03 and 04's MiniLM programs.
MEDIUM_COSTS = {"tlm": (5.5, 0.0375, 25.0), "minilm_finetuned": (4.25, 0.024, 20.0)}
#: The cells outside the runs, seconds as above: before the sweep (the data, BM25, the vocabulary and the run by
#: hand's first compile: 150 s logged, less that run's own cost) and after it (attention, tables: assumed).
MEDIUM_OUTSIDE = (79.0, 30.0)


def cost_kind(run: dict) -> str:
    """The kind of a planned run for :data:`MEDIUM_COSTS`: its ``experiment`` (``tlm`` or ``minilm_finetuned``)."""
    return run["experiment"]


def cost_programs(run: dict) -> tuple:
    """The compiled programs a run needs: its task's shapes and its stage-1 loss weighting."""
    return ((run["experiment"], run["task"], run["rho1"] > 0, run["rho2"]),)
