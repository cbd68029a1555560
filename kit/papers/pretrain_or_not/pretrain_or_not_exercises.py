"""Notebook 01's exercises: the set-up their solutions share, so each solution shows only its experiment.

:func:`setup` loads the notebook's data and sizes at the scale in use; :func:`first` takes the first ``n`` training
sentences (the split comes shuffled); :func:`encode` reads the three splits as word ids or as the encoder's WordPiece
ids; :func:`lstm_recipe` is the paper's LSTM recipe (shortened at smoke scale, so a solution stays quick);
:func:`fit_lstm` trains one LSTM-n-k on such inputs and returns its test accuracy.

>>> recipe = lstm_recipe({**DEFAULTS, **SCALES["smoke"]}, smoke=True)   # the notebook's: 6 epochs of 64, >= 60
>>> recipe.epochs, recipe.batch_size, recipe.min_steps, recipe.schedule
(2, 32, 30, 'constant')
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import keras

from ... import config, data
from ...models import TokenTable, build_lstm_classifier
from ...text import WordVocab
from ...train import FitRecipe, accuracy, fit_classifier
from .pretrain_or_not_runs import recipe_of
from .pretrain_or_not_sizes import DEFAULTS, SCALES

#: The splits a run reads.
SPLITS = ("train", "dev", "test")


@dataclass
class Setup:
    """What every solution starts from.

    Attributes:
        sizes: notebook 01's sizes at this scale (:func:`kit.papers.sizes`).
        ds: the data set (train, dev, test).
        train_sizes: the sweep's training sizes, in examples.
        sequence_length: the tokens per text.
        smoke: whether the scale is smoke (solutions then run shorter).
    """

    sizes: dict
    ds: object
    train_sizes: list
    sequence_length: int
    smoke: bool


def setup(max_eval: int | None = None) -> Setup:
    """Notebook 01's data and sizes at the scale in use (``KIT_SCALE``); jax reuses compiled programs.

    Args:
        max_eval: the most dev and test examples to keep (default: the scale's ``max_eval``).

    Returns:
        The :class:`Setup`.
    """
    sizes = config.paper_sizes("pretrain_or_not", DEFAULTS, SCALES)  # as kit.papers.sizes("pretrain_or_not")
    config.enable_compile_cache()
    ds = data.load(sizes["dataset"], max_eval=max_eval or sizes["max_eval"], seed=0)
    n = config.train_sizes(sizes["train_sizes"], len(ds.train))
    return Setup(sizes, ds, n, sizes["sequence_length"], config.scale() == "smoke")


def first(ds, n: int) -> tuple[list, object]:
    """The first ``n`` training texts and their labels (the split comes shuffled: a random subset)."""
    return ds.train.texts[:n], ds.train.y[:n]


def encode(ds, train_texts, read) -> dict:
    """``{split: ids}``: ``train_texts`` and the dev and test texts, each read by ``read`` (texts -> ids).

    Args:
        ds: the data set (its dev and test texts).
        train_texts: the training texts of the run.
        read: e.g. ``lambda t: vocab.encode(t, L)`` (word ids) or ``lambda t: enc.preprocessor(t)["token_ids"]``.

    Returns:
        ``{"train": ..., "dev": ..., "test": ...}``.
    """
    texts = {"train": train_texts, "dev": ds.dev.texts, "test": ds.test.texts}
    return {s: read(texts[s]) for s in SPLITS}


def word_inputs(ds, train_texts, sequence_length: int) -> tuple[WordVocab, dict]:
    """A word vocabulary fitted on ``train_texts`` and the three splits as its ids (what LSTM-n-k reads)."""
    vocab = WordVocab.fit(train_texts)
    return vocab, encode(ds, train_texts, lambda t: vocab.encode(t, sequence_length))


def lstm_recipe(sizes: dict, smoke: bool) -> FitRecipe:
    """The paper's LSTM recipe (Adam at a constant rate); at smoke 2 epochs of batch 32, >= 30 updates.

    Args:
        sizes: the scale's sizes.
        smoke: shorten it (the notebook's smoke runs: 60 updates of batch 64).

    Returns:
        The :class:`kit.train.FitRecipe`.
    """
    recipe = recipe_of("lstm", sizes)
    return replace(recipe, epochs=2, batch_size=32, min_steps=30) if smoke else recipe


def fit_lstm(
    s: Setup, x: dict, y, vocabulary_size: int, recipe: FitRecipe, seed: int = 0, table=None, lstm=None
) -> float:
    """Train one LSTM-n-k on ``x`` (``{split: ids}``) from ``seed`` and return its test accuracy.

    Args:
        s: the :class:`Setup`.
        x: the three splits' ids (:func:`encode`).
        y: the training labels.
        vocabulary_size: rows of the embedding table (the word vocabulary's size, or the pretrained table's).
        recipe: :func:`lstm_recipe`.
        seed: the seed of the weights and of the batches.
        table: a pretrained token table to use frozen behind a trainable projection, or None (learned from scratch).
        lstm: ``(n_layers, cells)`` (default: the scale's first ``lstm_sizes``).

    Returns:
        The test accuracy.
    """
    layers, cells = lstm or s.sizes["lstm_sizes"][0]
    config.set_seed(seed)
    model = build_lstm_classifier(
        vocabulary_size,
        s.ds.num_classes,
        n_layers=layers,
        cells=cells,
        embedding_dim=s.sizes["embedding_dim"],
        pretrained=None if table is None else TokenTable(table),
    )
    fit_classifier(model, (x["train"], y), (x["dev"], s.ds.dev.y), recipe, seed=seed)
    score = accuracy(model, x["test"], s.ds.test.y)
    keras.backend.clear_session()
    return score
