"""Notebook 01's sizes: what never changes with the scale, then each scale.

``train_sizes`` above 1 are numbers of examples, up to 1 fractions of the training set (:func:`kit.config.train_sizes`).
Paper: LSTMs at a constant rate in {2.5e-4 ... 1e-3}, batch 64; transformer batch 32, dropout 0.1, rate decayed to 0;
10 epochs at length 512, early stopping on test accuracy. Kit: LSTMs at 1e-3 (no search), early stopping on dev
accuracy.
"""

DEFAULTS = {"lstm_lr": 1e-3, "lstm_batch": 64, "transformer_batch": 32}

#: medium and full train the paper's LSTM sizes with several seeds (4 at medium, 3 at full) and time them at the
#: paper's shapes, and fine-tune every layer of the transformer (``encoder_layers``: keep only the bottom ones; None:
#: all), read through [CLS] (``transformer_pooling``: "cls" or "mean", the mean token state)
_PAPER_MODELS = {
    "encoder_layers": None,
    "transformer_pooling": "cls",
    "max_eval": None,
    "lstm_seeds": [0, 1, 2],
    "transformer_seeds": [0, 1, 2],
    "lstm_sizes": [[2, 256]],
    "lstm_plus_pretrained": [4, 256],
    "embedding_dim": 300,
    "lstm_min_steps": 100,
    "timing_batch_sizes": [128, 256, 384],
    "timing_sequence_length": 512,
}

SCALES = {
    # smaller LSTMs than the paper's (said on screen), two training sizes 4x apart, 3 seeds, a CPU (a middle size,
    # 750, cost CI ~4 of the notebook's 26 minutes and showed nothing the ends did not; 2,250 for the larger size
    # cost 14 minutes in all in CI against ~10 at 1,000: the runs of the small size are set by their minimum
    # steps, 60 and 30 updates, those of the larger one by its size; the LSTMs get the paper's 10 epochs, as at
    # medium, and early stopping on dev ends most runs after 5-8); texts cut at 40
    # WordPiece tokens (11% of the snippets are longer; fine-tuning MiniLM costs in proportion to the length).
    # The transformer is MiniLM-L6's bottom 3 layers (as in notebooks 03 and 04 at smoke): all 6 cost 3.7 s a step
    # of 32 x 40 tokens on one CPU thread (torch, beside another job as in CI), 25 of the notebook's 33 minutes.
    # After 3 layers the [CLS] state barely varies across texts (notebook 03 prints it), so the head reads the mean
    # token state: through [CLS], 30 steps left 250 sentences at chance (49.6%, 3 seeds); through the mean, 67-74%.
    "smoke": {
        "backbone": "minilm-l6",
        "dataset": "rt_snippets",
        "max_eval": 500,
        "train_sizes": [250, 1000],
        "sequence_length": 40,
        "lstm_seeds": [0, 1, 2],
        "transformer_seeds": [0, 1, 2],
        "lstm_sizes": [[2, 64]],
        "lstm_plus_pretrained": [2, 64],
        "embedding_dim": 64,
        "lstm_epochs": 10,
        "lstm_min_steps": 60,
        "lstm_patience": 2,
        "transformer_epochs": 1,
        "transformer_lr": 2e-4,
        "transformer_min_steps": 30,
        "encoder_layers": 3,
        "transformer_pooling": "mean",
        "timing_batch_sizes": [32],
        "timing_sequence_length": 128,
        "timing_repeats": 3,
    },
    # every offline sentence (8,454), the paper's LSTM-2-256 beside LSTM-2-256 + MiniLM's table (the table at the
    # same depth; the paper's "+ Base" is LSTM-4-256's, whose step costs 3x LSTM-2-256's: 40 against 13 ms on the
    # GPU, benchmarks/medium_gpu), 4 seeds: the transformer's gap (the paper's ~9 points) needs 4 at Holm's level for
    # 14 rows; the table's +0.66 and depth's +0.28 are out of reach of 1,057 test sentences at any number of seeds
    # (~5 points detectable). ~10 minutes alone on one H200 (benchmarks/medium_gpu/plan_medium.py)
    "medium": {
        **_PAPER_MODELS,
        "lstm_plus_pretrained": [2, 256],
        "backbone": "minilm-l6",
        "dataset": "rt_snippets",
        "train_sizes": [300, 1000, 3000, 1.0],
        "sequence_length": 64,
        "lstm_seeds": [0, 1, 2, 3],
        "transformer_seeds": [0, 1, 2, 3],
        "lstm_epochs": 10,
        "lstm_patience": 3,
        "transformer_epochs": 3,
        "transformer_lr": 5e-5,
        "transformer_min_steps": 60,
        "timing_repeats": 10,
    },
    # Yelp reviews with their 1-5 stars (yelp_full, 650k; the paper does not say which Yelp set it used, but its ~78%
    # accuracies rule out polarity, where such models reach ~97%): 4 fractions x 3 seeds x 3 models at length 256,
    # LSTMs <= 2 epochs with early stopping,
    # the transformer 1 epoch: ~3 GPU-hours on an H100 by GPU.md's step rates (the notebook prints the plan and its
    # ETA). The paper: 7 fractions, 10 epochs, length 512 (~110 GPU-hours).
    # The paper's transformer: RoBERTa-Base ("roberta_large_en" for its RoBERTa-Large row; both are keras-hub presets:
    # a copy in $KIT_PRESET_DIR/<name> or a download, kit.models.load_backbone).
    "full": {
        **_PAPER_MODELS,
        "backbone": "roberta_base_en",
        "dataset": "yelp_full",
        "train_sizes": [0.01, 0.1, 0.3, 1.0],
        "sequence_length": 256,
        "lstm_epochs": 2,
        "lstm_patience": 1,
        "transformer_epochs": 1,
        "transformer_lr": 2e-5,
        "transformer_min_steps": 100,
        "timing_repeats": 30,
    },
}

#: The medium data's known sizes (rt_snippets), so the medium plan is built without loading it (kit.papers.costs).
MEDIUM_DATA = {"rt_snippets": {"train": 8454, "test": 1057}}

#: What a medium run costs, in seconds with four notebooks sharing one H200 (benchmarks/medium_gpu/plan_medium.py):
#: per kind of run (:func:`cost_kind`), ``(fixed, per planned step, first)``, ``first`` paid by the first run of a
#: (model, training size) (a new last-batch shape: a compile), and the LSTMs' contention 1 (kit.analysis.cost: their
#: shared step was their step alone). Fitted to the logged runs: LSTM-2-256 (19 runs) and LSTM-4-256 + MiniLM emb (11).
#: Derived: an LSTM with the table as the plain one of its depth and the reverse (the same layers); the transformer as
#: notebook 03's light head (MiniLM-L6, batch 32 x 64: 16 ms a step, 1.25 s a run) plus 3 s a run for reading the
#: preset again, and a 23 s compile (its one logged run: 24.7 s of training for 60 steps).
MEDIUM_COSTS = {
    "lstm-2": (4.21, 0.0131, 8.9, 1.0),
    "lstm-2+table": (4.21, 0.0131, 8.9, 1.0),
    "lstm-4": (7.33, 0.0397, 12.6, 1.0),
    "lstm-4+table": (7.33, 0.0397, 12.6, 1.0),
    "transformer": (4.25, 0.016, 23.0),
}
#: The notebook's cells outside the sweep's runs at medium, seconds as above: before it (the data, the encoder, the
#: run by hand's first compile of everything: 80 s logged, less that run's own cost) and after it (the timing of
#: Table 3 at length 512, the figures: not logged, assumed).
MEDIUM_OUTSIDE = (66.0, 60.0)


def cost_kind(run: dict) -> str:
    """The kind of a planned run for :data:`MEDIUM_COSTS`: ``lstm-<layers>``, ``lstm-<layers>+table``, ``transformer``.

    Example:
        >>> [cost_kind({"model": m}) for m in ("LSTM-2-256", "LSTM-4-256 + MiniLM emb", "MiniLM-L6 fine-tuned")]
        ['lstm-2', 'lstm-4+table', 'transformer']
    """
    name = run["model"]
    if not name.startswith("LSTM-"):
        return "transformer"
    return f"lstm-{name.split('-')[1]}" + ("+table" if " + " in name else "")


def cost_programs(run: dict) -> tuple:
    """The compiled programs a run needs: one per model and training size (its last batch's shape)."""
    return ((run["model"], run["train_examples"]),)
