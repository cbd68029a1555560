"""What *To Tune or Not to Tune?* (arXiv 1907.05338) reports, as data: its findings as differences.

Its Tables 2-4 did not survive the text extraction, so no absolute scores are quoted. Rows: experiment, our section,
metric, ``a`` and ``b`` as ``(model, strategy)``, the paper's ``a - b`` in points (None: direction only), its wording,
and the direction (+1: ``a`` better, -1: worse).

>>> float(COMPARISONS.loc[0, "paper"]), COMPARISONS.loc[0, "a"]
(0.99, ('bilstm', 'stack_and_finetune'))
"""

import pandas as pd

COMPARISONS = pd.DataFrame(
    [
        (
            "A: CoNLL-2003 NER",
            "tagging",
            "token_accuracy",
            ("bilstm", "stack_and_finetune"),
            ("light", "finetune_only"),
            0.99,
            "+0.99% accuracy (BERT + BiLSTM, stack-and-finetune vs finetune-only)",
        ),
        (
            "A: CoNLL-2003 NER",
            "tagging",
            "entity_f1",
            ("bilstm", "stack_and_finetune"),
            ("light", "finetune_only"),
            6.8,
            "+0.068 F1",
        ),
        (
            "B: Yahoo Answers, 2 classes",
            "classification",
            "accuracy",
            ("ensemble", "stack_and_finetune"),
            ("light", "finetune_only"),
            0.72,
            "+0.72% accuracy (the ensemble vs finetune-only)",
        ),
        (
            "B: Yahoo Answers, 2 classes",
            "classification",
            "macro_f1",
            ("ensemble", "stack_and_finetune"),
            ("light", "finetune_only"),
            0.5,
            "+0.005 F1",
        ),
        (
            "C: Quora question pairs",
            "pairs",
            "accuracy",
            ("sim_transformer", "stack_and_finetune"),
            ("light", "finetune_only"),
            4.7,
            "+4.7% accuracy (BERT + Sim-Transformer vs BERT only)",
        ),
        (
            "C: Quora question pairs",
            "pairs",
            "accuracy",
            ("sim_transformer", "stack_only"),
            ("bimpm", "stack_only"),
            -4.0,
            "Sim-Transformer without fine-tuning 'nearly four percentage points lower' than BiMPM",
        ),
        (
            "C: Quora question pairs",
            "pairs",
            "accuracy",
            ("sim_transformer", "stack_and_finetune"),
            ("bimpm", "stack_and_finetune"),
            None,
            "after fine-tuning Sim-Transformer 'out-performs' BiMPM",
        ),
    ],
    columns=["experiment", "section", "metric", "a", "b", "paper", "says"],
)
COMPARISONS["direction"] = [+1, +1, +1, +1, +1, -1, +1]
