"""Notebook 01's runs: LSTM-n-k from scratch, LSTM-n-k + a pretrained token table, and the fine-tuned transformer.

Each trained on growing subsets of one training set (one fixed order: every smaller subset inside every larger one),
then the paper's sizes timed. Each run's 1/0 per test example is saved, so verdicts pair runs example by example.

>>> specs = models({"lstm_sizes": [[2, 64]], "lstm_plus_pretrained": [2, 64]})
>>> list(specs)
['LSTM-2-64', 'LSTM-2-64 + MiniLM emb', 'MiniLM-L6 fine-tuned']
>>> list(specs.values())
[('lstm', 2, 64), ('lstm+pretrained', 2, 64), ('transformer', None, None)]
>>> transformer_of(models({"lstm_sizes": [[2, 64]], "lstm_plus_pretrained": [2, 64], "encoder_layers": 3}))
'MiniLM-L6 (bottom 3 layers) fine-tuned'
>>> transformer_name({"encoder_layers": 6}), transformer_name({"backbone": "roberta_base_en", "encoder_layers": 12})
('MiniLM-L6 fine-tuned', 'RoBERTa-Base fine-tuned')
>>> list(models({"lstm_sizes": [[2, 256]], "lstm_plus_pretrained": [4, 256], "backbone": "roberta_base_en"}))
['LSTM-2-256', 'LSTM-4-256 + RoBERTa emb', 'RoBERTa-Base fine-tuned']
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import keras
import numpy as np

from ... import config
from ...analysis import time_inference
from ...models import TokenTable, build_classifier, build_lstm_classifier, load_backbone, save_bundle
from ...models.truncate import truncate_backbone
from ...results import RunResult
from ...text import BertPreprocessor, WordVocab
from ...train import FitRecipe, fit_classifier, planned_steps
from .. import experiment as base

#: The depth of the encoders named below (``encoder_layers`` equal to it is the whole encoder).
ENCODER_DEPTH = {"minilm-l6": 6, "roberta_base_en": 12, "roberta_large_en": 24, "bert_base_en_uncased": 12}
#: The names the tables give the encoders (another preset or folder shows its own name).
ENCODER_NAMES = {
    "minilm-l6": "MiniLM-L6",
    "roberta_base_en": "RoBERTa-Base",
    "roberta_large_en": "RoBERTa-Large",
    "bert_base_en_uncased": "BERT-Base",
}
#: The Sweep keys of notebook 01's ``results.csv`` (then ``metric, value``).
KEYS = ("model", "train_examples", "seed")


@dataclass
class Inputs:
    """Every split's texts as word ids (of ``vocab``) and WordPiece inputs, and the training set's fixed order.

    ``words`` and ``wordpieces`` are ``{split: ...}``, the latter the preprocessor's dict; the first ``n`` of ``order``
    are the run with ``n`` examples.
    """

    vocab: object
    words: dict
    wordpieces: dict
    order: np.ndarray

    @classmethod
    def prepare(cls, ds, largest: int, sequence_length: int, preprocessor, max_words: int = 20000) -> Inputs:
        """Read the texts both ways; the vocabulary (<= ``max_words``) is fitted on the largest run's training texts.

        The order is seeded (1234), so every smaller subset is inside every larger one.
        """
        order = np.random.default_rng(1234).permutation(len(ds.train))  # 300 ⊂ 900 ⊂ ... : one fixed order
        vocab = WordVocab.fit([ds.train.texts[i] for i in order[:largest]], max_size=max_words)
        splits = ("train", "dev", "test")
        return cls(
            vocab,
            {s: vocab.encode(ds[s].texts, sequence_length) for s in splits},
            {s: preprocessor(ds[s].texts) for s in splits},
            order,
        )

    def of(self, kind: str, split: str, idx=None):
        """The inputs a ``kind`` of model reads (rows ``idx``, or all).

        ``"lstm"``: word ids; ``"lstm+pretrained"``: WordPiece ids; ``"transformer"``: the preprocessor's dict.
        """
        x = (
            self.words[split]
            if kind == "lstm"
            else self.wordpieces[split]["token_ids"]
            if kind == "lstm+pretrained"
            else self.wordpieces[split]
        )
        if idx is None:
            return x
        return {k: v[idx] for k, v in x.items()} if isinstance(x, dict) else x[idx]


def encoder_name(sizes: dict) -> str:
    """The encoder's name in the tables (:data:`ENCODER_NAMES`, else the preset's or folder's own name).

    ``sizes["backbone"]`` is a preset or a folder (default ``minilm-l6``).

    Example:
        >>> encoder_name({"backbone": "roberta_large_en"}), encoder_name({"backbone": "/models/my-bert/"})
        ('RoBERTa-Large', 'my-bert')
    """
    name = sizes.get("backbone", "minilm-l6")
    return ENCODER_NAMES.get(name, Path(name.rstrip("/")).name or name)


def family_name(sizes: dict) -> str:
    """The encoder's family, :func:`encoder_name` up to its first ``-`` (``MiniLM`` in ``LSTM-2-64 + MiniLM emb``)."""
    return encoder_name(sizes).split("-")[0]


def transformer_name(sizes: dict) -> str:
    """The transformer's name, e.g. ``MiniLM-L6 fine-tuned`` or ``MiniLM-L6 (bottom 3 layers) fine-tuned``.

    The bottom layers are named when ``encoder_layers`` is set and not the whole encoder (:data:`ENCODER_DEPTH`).
    """
    k = sizes.get("encoder_layers")
    whole = k is None or k == ENCODER_DEPTH.get(sizes.get("backbone", "minilm-l6"))
    return f"{encoder_name(sizes)} fine-tuned" if whole else f"{encoder_name(sizes)} (bottom {k} layers) fine-tuned"


def transformer_of(model_specs: dict) -> str:
    """The name of the transformer among :func:`models`' ``{name: (kind, n_layers, cells)}``."""
    return next(name for name, spec in model_specs.items() if spec[0] == "transformer")


def models(sizes: dict) -> dict:
    """The scale's models: its LSTM-n-k, the LSTM with the pretrained table, the transformer.

    ``{name: (kind, n_layers, cells)}``; the transformer's ``n_layers`` is ``encoder_layers`` (its bottom layers; None:
    all), its cells None (the encoder's own width).
    """
    out = {f"LSTM-{n}-{k}": ("lstm", n, k) for n, k in sizes["lstm_sizes"]}
    n, k = sizes["lstm_plus_pretrained"]
    out[f"LSTM-{n}-{k} + {family_name(sizes)} emb"] = ("lstm+pretrained", n, k)
    out[transformer_name(sizes)] = ("transformer", sizes.get("encoder_layers"), None)
    return out


def recipes(sizes: dict) -> dict:
    """The paper's two recipes: LSTMs with Adam at a constant rate, the transformer with AdamW decayed linearly to 0.

    ``{"lstm": ..., "transformer": ...}`` of :class:`kit.train.FitRecipe` fields from ``sizes``' ``lstm_*`` and
    ``transformer_*`` (a table's rows: :func:`recipe_of` makes the recipe).
    """
    return {
        "lstm": dict(
            learning_rate=sizes["lstm_lr"],
            epochs=sizes["lstm_epochs"],
            batch_size=sizes["lstm_batch"],
            schedule="constant",
            min_steps=sizes["lstm_min_steps"],
            patience=sizes["lstm_patience"],
        ),
        "transformer": dict(
            learning_rate=sizes["transformer_lr"],
            epochs=sizes["transformer_epochs"],
            batch_size=sizes["transformer_batch"],
            schedule="linear",
            min_steps=sizes["transformer_min_steps"],
        ),
    }


def recipe_of(kind: str, sizes: dict) -> FitRecipe:
    """The :class:`kit.train.FitRecipe` of a model of ``kind`` (both LSTMs train alike).

    Example:
        >>> from kit.papers.pretrain_or_not.pretrain_or_not_sizes import DEFAULTS, SCALES
        >>> r = recipe_of("lstm", {**DEFAULTS, **SCALES["smoke"]})
        >>> r.schedule, r.batch_size
        ('constant', 64)
    """
    return FitRecipe(**recipes(sizes)["transformer" if kind == "transformer" else "lstm"])


def plan(model_specs: dict, train_sizes: list, sizes: dict) -> list[dict]:
    """Every model at every training size for every seed of its kind: dicts ``model, train_examples, seed, steps``."""
    out = []
    for name, (kind, _, _) in model_specs.items():
        r = recipe_of(kind, sizes)
        seeds = sizes["transformer_seeds"] if kind == "transformer" else sizes["lstm_seeds"]
        out += [
            dict(
                model=name,
                train_examples=n,
                seed=s,
                steps=planned_steps(n, r.epochs, r.batch_size, r.min_steps),
            )
            for n in train_sizes
            for s in seeds
        ]
    return out


def correct_per_example(model: keras.Model, x, y, batch_size: int = 128) -> np.ndarray:
    """1 where ``model``'s argmax is the label, else 0: int8, one per example (their mean: the accuracy)."""
    logits = model.predict(x, batch_size=batch_size, verbose=0)
    return (np.argmax(logits, axis=-1) == np.asarray(y)).astype(np.int8)


class Experiment(base.Experiment):
    """Notebook 01's runs on one data set: :meth:`make_model`, :meth:`correct`, :meth:`run_one`.

    Each run's 1/0 per test example is saved with it (``predictions/<run>.npz``, key ``correct``: every run shares one
    test set, so the verdicts pair them example by example); the largest transformer run's model (first seed) is kept
    in ``out/best_model/``.
    """

    KEYS = KEYS
    GROUP = "model"  # the models differ in cost per step: the ETA fits each alone

    def __init__(self, ds, sizes: dict, inputs: Inputs, token_table, encoder, out, train_sizes):
        self.ds, self.sizes, self.inputs, self.token_table, self.encoder = ds, sizes, inputs, token_table, encoder
        self.train_sizes = list(train_sizes)
        self.largest = self.train_sizes[-1]
        self.models = models(sizes)
        fingerprinted = {**sizes, "scale": config.scale(), "data": ds.name, "data_sizes": ds.sizes()}
        super().__init__(out, {**fingerprinted, "precision": config.precision()})

    def plan(self) -> list[dict]:
        """Every model at every training size for every seed of its kind (:func:`plan`)."""
        return plan(self.models, self.train_sizes, self.sizes)

    def make_model(self, spec: tuple) -> keras.Model:
        """A fresh model of ``spec`` (``(kind, n_layers, cells)``, one of :func:`models`).

        The transformer: pretrained weights, bottom ``n_layers`` kept (:func:`kit.models.truncate.truncate_backbone`),
        read via [CLS] or the mean token state (``transformer_pooling``).
        """
        kind, n, k = spec
        if kind == "lstm":
            return build_lstm_classifier(
                len(self.inputs.vocab),
                self.ds.num_classes,
                n_layers=n,
                cells=k,
                embedding_dim=self.sizes["embedding_dim"],
            )
        if kind == "lstm+pretrained":
            return build_lstm_classifier(
                self.token_table.shape[0],
                self.ds.num_classes,
                n_layers=n,
                cells=k,
                embedding_dim=self.sizes["embedding_dim"],
                pretrained=TokenTable(self.token_table, self.encoder.tokenizer.pad_token_id),
            )
        fresh = load_backbone(self.encoder.name, sequence_length=self.sizes["sequence_length"])
        return build_classifier(
            truncate_backbone(fresh.backbone, n),
            num_classes=self.ds.num_classes,
            dropout=0.1,
            pooling=self.sizes.get("transformer_pooling", "cls"),
        )

    def correct(self, model: keras.Model, run: dict) -> np.ndarray:
        """``model``'s 1/0 per test example (:func:`correct_per_example`); ``run``'s model kind picks the inputs."""
        return correct_per_example(model, self.inputs.of(self.models[run["model"]][0], "test"), self.ds.test.y)

    def run_one(self, run: dict) -> RunResult:
        """Train ``run`` (a row of :func:`plan`) on the first ``train_examples`` of the fixed order, and score it.

        Its :class:`kit.results.RunResult`: ``test_accuracy``, ``dev_accuracy``, ``train_seconds``; epochs and steps
        trained; the 1/0 per test example (``correct``); the model.
        """
        start = time.perf_counter()
        keras.backend.clear_session()  # the previous run's models go; then the seed, before any weight is made
        kind, idx = self.models[run["model"]][0], self.inputs.order[: run["train_examples"]]
        config.set_seed(run["seed"])
        model = self.make_model(self.models[run["model"]])
        fit = fit_classifier(
            model,
            (self.inputs.of(kind, "train", idx), self.ds.train.y[idx]),
            (self.inputs.of(kind, "dev"), self.ds.dev.y),
            recipe_of(kind, self.sizes),
            seed=run["seed"],
        )
        correct = self.correct(model, run)
        metrics = {"test_accuracy": float(correct.mean()), "dev_accuracy": fit.best_dev_accuracy}
        metrics["train_seconds"] = fit.seconds
        return RunResult(
            metrics,
            seconds=time.perf_counter() - start,
            trained=fit.trained,
            predictions={"correct": correct},
            model=model,
        )

    def keep(self, run: dict, result: RunResult) -> None:
        """Save the largest transformer run's model (first seed) as ``out/best_model/`` (a bundle)."""
        kind = self.models[run["model"]][0]
        first = self.sizes["transformer_seeds"][0]
        if kind == "transformer" and run["train_examples"] == self.largest and run["seed"] == first:
            save_bundle(
                self.out / "best_model",
                result.model,
                preprocessor=self.encoder.preprocessor,
                label_names=self.ds.label_names,
                info={
                    "notebook": "01",
                    "data": self.ds.name,
                    "train_examples": run["train_examples"],
                    "test_accuracy": result.metrics["test_accuracy"],
                },
            )


def time_models(experiment: Experiment, repeats: int, batch_sizes: list, sequence_length: int):
    """The paper's Table 3 on this machine: the paper's model sizes beside the transformer, at every batch size.

    LSTM-2-256, LSTM-4-256 and LSTM-4-256 + the pretrained table (fresh weights: speed does not depend on training) and
    the transformer (all its layers), on real test texts repeated to fill ``sequence_length``, ``repeats`` timed calls
    each. One row per model and batch size, with the speed-up over the transformer (``speed-up vs MiniLM``, or the
    encoder's family at full scale).
    """
    import pandas as pd

    vocab, table, enc = experiment.inputs.vocab, experiment.token_table, experiment.encoder
    top, family = encoder_name(experiment.sizes), family_name(experiment.sizes)

    def lstm(n_layers, pretrained=None):
        rows = len(vocab) if pretrained is None else table.shape[0]
        return lambda: build_lstm_classifier(
            rows, 2, n_layers=n_layers, cells=256, embedding_dim=300, pretrained=pretrained
        )

    builders = {
        "LSTM-2-256": ("lstm", lstm(2)),
        "LSTM-4-256": ("lstm", lstm(4)),
        f"LSTM-4-256 + {family} emb": (
            "lstm+pretrained",
            lstm(4, TokenTable(table, enc.tokenizer.pad_token_id)),
        ),
        top: (
            "transformer",
            lambda: build_classifier(load_backbone(enc.name, sequence_length=sequence_length).backbone, 2),
        ),
    }
    texts = [" ".join([t] * 20) for t in experiment.ds.test.texts[: max(batch_sizes)]]  # long enough to fill it
    word, subwords = vocab.encode(texts, sequence_length), BertPreprocessor(enc.tokenizer, sequence_length)(texts)
    rows = []
    for name, (kind, build) in builders.items():
        model = build()
        for b in batch_sizes:
            x = (
                subwords["token_ids"][:b]
                if kind == "lstm+pretrained"
                else {k: v[:b] for k, v in subwords.items()}
                if kind == "transformer"
                else word[:b]
            )
            rows.append(time_inference(model, x, repeats=repeats, name=name))
            print(f"{name:<26} batch {b}: {rows[-1]['median_ms']:8.1f} ms", flush=True)
        keras.backend.clear_session()
    timing = pd.DataFrame(rows)
    top_ms = timing[timing.model == top].set_index("batch_size").median_ms
    timing[f"speed-up vs {family}"] = timing.apply(lambda r: top_ms[r.batch_size] / r.median_ms, axis=1).round(1)
    return timing


def timing_view(timing):
    """:func:`time_models`' columns worth reading: model, backend, device, shape, compiled, median ms, speed-ups."""
    return timing[
        [
            "model",
            "backend",
            "device",
            "batch_size",
            "sequence_length",
            "compiled",
            "median_ms",
            *[c for c in timing.columns if c.startswith("speed-up vs ")],
        ]
    ]


def record_timing(sweep, timing, params: dict, names, sequence_length: int) -> None:
    """The timing and parameter counts into ``results.csv`` too, as runs with ``train_examples=0, seed=-1``.

    ``params``: ``{name: parameters without the embedding table}``; metrics named ``inference_ms_b<batch>_L<length>``.
    """
    for name in names:
        row = {
            f"inference_ms_b{r.batch_size}_L{sequence_length}": r.median_ms
            for r in timing[timing.model == name].itertuples()
        }
        sweep.record(
            dict(model=name, train_examples=0, seed=-1),
            row | ({"params_without_embeddings": params[name]} if name in params else {}),
        )
