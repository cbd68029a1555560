"""Notebook 03's sizes: what never changes with the scale, then each scale.

Tasks are specs (``stack_and_finetune_tasks.derive``); ``heads`` sizes the rich heads, ``section_heads`` picks them per
section. The paper's recipe: phase-1 LR 1e-3, a smaller phase-2 LR, BERT-Adam with weight decay, dropout 0.1; the
phase-2 rate and the decay are lost in its text extraction, so the kit uses BERT's 0.01 (warm-up over 10% of a phase's
steps, then linear decay) and sets the phase-2 rate per scale.
"""

# matched_budget (each scale): also run finetune-only for phase1 + phase2 epochs on these tasks (True: every task):
# stack-and-finetune trains that many epochs in all, so its gain over finetune-only is compared at equal epochs;
# rich_head_matched: the rich heads that are also fine-tuned alone for that many epochs on those tasks (none now)
DEFAULTS = {
    "section_heads": {
        "tagging": ["bilstm"],
        "classification": ["densenet", "highway"],
        "pairs": ["bimpm", "sim_transformer"],
    },
    "dropout": 0.1,
    "weight_decay": 0.01,
    "schedule": "bert_adam",
    "warmup": 0.1,
    "divergence_patience": 2,
}

_SHORT_TAGGING = {
    "section": "tagging",
    "dataset": "brown_pos",
    "max_words": 20,
    "sequence_length": 32,
    "max_train": 128,
    "max_eval": 128,
    "max_dev": 64,
}
_TAGGING = {
    "section": "tagging",
    "dataset": "brown_pos",
    "max_words": None,
    "sequence_length": 64,
    "max_train": 4000,
    "max_eval": 1000,
    "max_dev": 500,
}
_HEADLINES = {
    "section": "classification",
    "dataset": "bbc_news",
    "classes": ["business", "politics"],
    "text": "headline",
    "max_eval": None,
}
# the heads at medium and full scale: DenseNet's 4 blocks of 4 convolutions are the paper's; it gives no other size,
# so 20 perspectives are the BiMPM paper's (Wang et al. 2017) and the BiLSTM and Sim-Transformer sizes the kit's
_PAPER_HEADS = {
    "bilstm": {"n_layers": 1, "cells": 256},
    "densenet": {"filters": 128, "growth": 32, "blocks": 4, "convs_per_block": 4},
    "bimpm": {"perspectives": 20, "context_cells": 100, "aggregation_cells": 100, "hidden_dim": 128},
    "sim_transformer": {
        "num_layers": 2,
        "num_heads": 4,
        "hidden_dim": 128,
        "intermediate_dim": 256,
        "perspectives": 20,
    },
}

SCALES = {
    # MiniLM-L6's bottom 3 layers on 128-160 training examples per task and a few epochs, 3 seeds (the mechanism:
    # freezing, phase-1 stopping, three strategies; not the paper's numbers); one tagging task, the entity one (the
    # paper's NER; POS tagging runs at medium); the pair task's negatives are random definitions (another sense of
    # the same word, the hard kind, leaves 128 pairs at chance). A training step of the 3-layer encoder at batch 16
    # costs ~0.5-0.7 s on a 2-core CPU (jax), so the budget is counted in steps: finetune-only at the same number of
    # epochs as stack-and-finetune (6 full-cost epochs a run) runs on the entity task only here, on every task at
    # medium and full scale. Phase 1 needs its 4 epochs: with 3, stack-only's BiLSTM found no entities (F1 0.00-0.05).
    "smoke": {
        "tasks": {
            "brown_entities": {**_SHORT_TAGGING, "labels": "entities"},
            "bbc_business_politics": {**_HEADLINES, "sequence_length": 24, "max_train": 128},
            "wordnet_pairs": {
                "section": "pairs",
                "dataset": "wordnet_pairs",
                "options": {"negatives": "random"},
                "sequence_length": 32,
                "max_train": 160,
                "max_eval": 128,
                "max_dev": 64,
            },
        },
        "heads": {
            "bilstm": {"n_layers": 1, "cells": 64},
            "densenet": {"filters": 64, "growth": 16, "blocks": 2, "convs_per_block": 2},
            "highway": {"n_layers": 1, "cells": 64},
            "bimpm": {"perspectives": 10, "context_cells": 32, "aggregation_cells": 32, "hidden_dim": 64},
            "sim_transformer": {
                "num_layers": 1,
                "num_heads": 2,
                "hidden_dim": 32,
                "intermediate_dim": 64,
                "perspectives": 5,
            },
        },
        "encoder_layers": 3,
        "light_hidden_dim": 128,
        "light_pooling": "mean",
        "rich_head_finetune": False,
        "seeds": [0, 1, 2],
        "batch_size": 16,
        "phase1_lr": 3e-3,
        "phase2_lr": 4e-4,
        "phase1_epochs": 4,
        "phase2_epochs": 2,
        "divergence_threshold": 0.05,
        "matched_budget": ["brown_entities"],
        "rich_head_matched": False,
    },
    # 48 runs, ~10 minutes alone on one H200 (benchmarks/medium_gpu/plan_medium.py): the paper's three experiments,
    # finetune-only at both budgets, stack-only and stack-and-finetune with each rich head, 3 seeds. The rows that can
    # find the paper's effect: tagging token accuracy (+0.99 on ~20k test words: 3 seeds); entity F1's +6.8 (604 gold
    # entities) and the pairs' +4.7 and -4.0 (1,000 test pairs) only if the arms' errors overlap much (5 and 15
    # seeds then), BBC's +0.72 (93 test headlines) never. Not at medium, to fit: the POS task (the paper's tagging is
    # NER), each rich head fine-tuned alone (140 runs with them, ~28 minutes); the big offline sets are subsampled
    "medium": {
        "tasks": {
            "brown_entities": {**_TAGGING, "labels": "entities"},
            "bbc_business_politics": {**_HEADLINES, "sequence_length": 32, "max_train": None},
            "wordnet_pairs": {
                "section": "pairs",
                "dataset": "wordnet_pairs",
                "options": {"negatives": "mixed"},
                "sequence_length": 48,
                "max_train": 8000,
                "max_eval": 1000,
                "max_dev": 500,
            },
        },
        "heads": {**_PAPER_HEADS, "highway": {"n_layers": 2, "cells": 128}},
        "encoder_layers": None,
        "light_hidden_dim": None,
        "light_pooling": "cls",
        "rich_head_finetune": False,
        "rich_head_matched": False,
        "seeds": [0, 1, 2],
        "batch_size": 32,
        "phase1_lr": 1e-3,
        "phase2_lr": 5e-5,
        "phase1_epochs": 5,
        "phase2_epochs": 3,
        "divergence_threshold": 0.03,
        "matched_budget": True,
    },
    # the paper's data: CoNLL-2003 NER (your copy), 2 of Yahoo Answers' 10 classes (the paper does not say which: two
    # that are easy to confuse), QQP; BERT-base as the paper; 54 runs, a few GPU-hours on one GPU by step-rate estimates
    "full": {
        "tasks": {
            "conll2003": {
                "section": "tagging",
                "dataset": "conll2003",
                "sequence_length": 128,
                "max_train": None,
                "max_eval": None,
            },
            "yahoo_2class": {
                "section": "classification",
                "dataset": "yahoo_answers",
                "classes": ["Education & Reference", "Science & Mathematics"],
                "sequence_length": 128,
                "max_train": 20000,
                "max_eval": 5000,
            },
            "qqp": {
                "section": "pairs",
                "dataset": "glue_qqp",
                "sequence_length": 64,
                "max_train": 50000,
                "max_eval": 10000,
            },
        },
        "heads": {**_PAPER_HEADS, "highway": {"n_layers": 2, "cells": 256}},
        "backbone": "bert_base_en_uncased",
        "encoder_layers": None,
        "light_hidden_dim": None,
        "light_pooling": "cls",
        "rich_head_finetune": True,
        "seeds": [0, 1, 2],
        "batch_size": 32,
        "phase1_lr": 1e-3,
        "phase2_lr": 2e-5,
        "phase1_epochs": 5,
        "phase2_epochs": 3,
        "divergence_threshold": 0.03,
        "matched_budget": True,
        "rich_head_matched": False,
    },
}


def matched_budget(sizes: dict, task: str) -> bool:
    """Whether ``task`` also runs ``finetune_only_matched`` (``phase1_epochs + phase2_epochs`` epochs).

    ``sizes["matched_budget"]``: True (every task), False or missing (none), or task names (smoke: its cheapest only).

    Example:
        >>> matched_budget({"matched_budget": ["brown_entities"]}, "brown_entities"), matched_budget({}, "qqp")
        (True, False)
    """
    value = sizes.get("matched_budget", False)
    return task in value if isinstance(value, (list, tuple)) else bool(value)


#: The tasks the medium run on record planned (benchmarks/medium_gpu, 2026-11-26), by kind: its tagging ran brown_pos,
#: which today's medium plan drops (the paper's tagging is NER), so its figure reads the plan of that day.
MEDIUM_ON_RECORD = {
    "brown_pos": "tagging",
    "brown_entities": "tagging",
    "bbc_business_politics": "classification",
    "wordnet_pairs": "pairs",
}

#: The medium data's known sizes (training and test examples; tagging: test sentences, their words in ``words`` and
#: gold entities in ``entities``), so the medium plan is built without loading it (kit.papers.costs).
MEDIUM_DATA = {
    "brown_pos": {"train": 4000, "test": 1000, "words": 20175},
    "brown_entities": {"train": 4000, "test": 1000, "words": 20175, "entities": 604},
    "bbc_business_politics": {"train": 742, "test": 93},
    "wordnet_pairs": {"train": 8000, "test": 1000},
}

#: What a medium run costs, in seconds with four notebooks sharing one H200 (benchmarks/medium_gpu/plan_medium.py):
#: per ``head:strategy`` (:func:`cost_kind`), ``(fixed, per planned step, first)``, ``first`` paid for each new
#: (task, head, phase) program. Fitted to the logged brown_pos runs: the light head (9 runs: 16 ms a step, 1.25 s a
#: run) and the BiLSTM head (12: 48.8 ms a fine-tuning step, 22.9 ms a step on the frozen encoder, compiles of 34 s
#: and 11 s). Derived for the heads not logged: a head's recurrent work ``r`` (BiLSTM layers x length / (1 x 64):
#: highway 2 x 32, BiMPM's context and aggregation 2 x 48) scales the BiLSTM's extra cost (32.8 ms a fine-tuning step
#: over the light head's, 17.6 ms a frozen step over the encoder's forward, a third of a light step); the others
#: (DenseNet, Sim-Transformer) add 2 ms; stack-and-finetune weighs its phases 5:3 (the medium epochs); a compile 20 s.
MEDIUM_COSTS = {
    "light:finetune_only": (1.25, 0.016, 20.0),
    "light:finetune_only_matched": (1.25, 0.016, 20.0),
    "bilstm:finetune_only": (1.25, 0.0488, 34.0),
    "bilstm:finetune_only_matched": (1.25, 0.0488, 34.0),
    "bilstm:stack_only": (1.25, 0.0229, 11.0),
    "bilstm:stack_and_finetune": (1.25, 0.0326, 20.0),
    "highway:finetune_only": (1.25, 0.0488, 20.0),
    "highway:stack_only": (1.25, 0.0229, 20.0),
    "highway:stack_and_finetune": (1.25, 0.0326, 20.0),
    "bimpm:finetune_only": (1.25, 0.0652, 20.0),
    "bimpm:stack_only": (1.25, 0.0317, 20.0),
    "bimpm:stack_and_finetune": (1.25, 0.0443, 20.0),
    "densenet:finetune_only": (1.25, 0.018, 20.0),
    "densenet:stack_only": (1.25, 0.0073, 20.0),
    "densenet:stack_and_finetune": (1.25, 0.0113, 20.0),
    "sim_transformer:finetune_only": (1.25, 0.018, 20.0),
    "sim_transformer:stack_only": (1.25, 0.0073, 20.0),
    "sim_transformer:stack_and_finetune": (1.25, 0.0113, 20.0),
}
#: The cells outside the runs, seconds as above: before the sweep (the data, the encoder, the run by hand's first
#: compile: 88 s logged, less that run's own cost) and after it (the ensembles, curves and tables: assumed).
MEDIUM_OUTSIDE = (61.0, 30.0)

#: The phases (programs) each planned strategy trains.
_PHASES = {
    "finetune_only": ("finetune",),
    "finetune_only_matched": ("finetune",),
    "stack_only": ("stack",),
    "stack_and_finetune": ("stack", "finetune"),
}


def cost_kind(run: dict) -> str:
    """The kind of a planned run for :data:`MEDIUM_COSTS`: ``<head>:<strategy>``.

    Example:
        >>> cost_kind({"task": "brown_pos", "model": "bilstm", "strategy": "stack_only", "seed": 0})
        'bilstm:stack_only'
    """
    return f"{run['model']}:{run['strategy']}"


def cost_programs(run: dict) -> tuple:
    """The compiled programs a run needs: one per (task, head, phase) it trains."""
    return tuple((run["task"], run["model"], p) for p in _PHASES[run["strategy"]])
