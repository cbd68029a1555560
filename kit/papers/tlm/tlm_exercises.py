"""Notebook 02's exercises: the shared set-up of a small TLM experiment, so each solution shows only its experiment.

Exercises 2-4 each train a few TLM models on the ablation task. :func:`small_setup` loads that task, retrieves its
external passages and encodes both (at smoke scale a tiny version: 200 texts x 32 tokens, 2,000 ids, SOTU as the
general corpus); :func:`new_tlm` builds a seeded model from scratch on it and :func:`stage1` trains its stage 1.

>>> import kit
>>> setup = small_setup(kit.session.start("exercises_02", "tlm", verbose=False))  # doctest: +SKIP
>>> model = new_tlm(setup, seed=0)                                                  # doctest: +SKIP
>>> s1 = stage1(setup, model, rho1=3, rho2=20, seed=0, steps=8)                    # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from ... import analysis, data, models, retrieval, text, train
from . import tlm_runs as runs

#: What :func:`small_setup` shrinks at smoke scale (a few seconds a stage 1 on one CPU thread).
SMOKE = dict(max_train=200, max_eval=100, sequence_length=32, vocabulary_size=2000, batch_size=16, stage1_steps=48)


def small_setup(session) -> SimpleNamespace:
    """The ablation task, its BM25 passages and both encoded: what exercises 2-4 train on.

    At smoke scale the sizes shrink (:data:`SMOKE`) and the general corpus is the State of the Union speeches alone;
    at other scales the scale's own sizes and general corpus (:func:`tlm_runs.load_corpus`).

    Args:
        session: :func:`kit.session.start`'s session (its ``sizes`` and ``scale``).

    Returns:
        A namespace: ``Z`` (the sizes used), ``smoke``, ``task``, ``ds`` (the data set), ``x`` (its encoded
        train/dev/test inputs), ``external`` (the retrieved passages' inputs), ``tokens`` (:class:`tlm_runs.Tokens`),
        ``seeds`` (one at smoke) and ``guess`` (the constant guess's test accuracy).
    """
    Z, smoke = dict(session.sizes), session.scale == "smoke"
    if smoke:
        Z.update(SMOKE)
    task = Z["ablation_task"]
    ds = data.load(task, max_train=Z["max_train"], max_eval=Z["max_eval"], seed=0)
    corpus = data.load("sotu").splits["all"].texts if smoke else runs.load_corpus()[0]
    found = retrieval.select_external(ds.train.texts, corpus, k=Z["k"], exclude_texts=ds.dev.texts + ds.test.texts)
    tok = text.WordPieceTokenizer.from_folder(models.backbones.minilm_path())  # MiniLM's WordPiece
    preprocessor = text.BertPreprocessor(tok, sequence_length=Z["sequence_length"])
    tokens = runs.Tokens.prepare({task: ds}, corpus, {"bm25": found.doc_ids}, preprocessor, Z["vocabulary_size"])
    return SimpleNamespace(
        Z=Z,
        smoke=smoke,
        task=task,
        ds=ds,
        x=tokens.x[task],
        external=tokens.external(found.doc_ids),
        tokens=tokens,
        seeds=Z["seeds"][:1] if smoke else Z["seeds"],
        guess=analysis.constant_guess(ds.train.y, ds.test.y),
    )


def new_tlm(setup: SimpleNamespace, seed: int, pooling: str | None = None):
    """A TLM model from scratch (BERT + task head + tied MLM head) on ``setup``'s vocabulary, seeded first.

    Args:
        setup: :func:`small_setup`'s namespace.
        seed: the seed set before the weights are made.
        pooling: where the task head reads (``"mean"`` or ``"cls"``); None: the sizes' ``pooling``.

    Returns:
        A :class:`kit.models.TLMModel`.
    """
    return runs.new_tlm_model(setup.Z, setup.tokens, setup.ds.num_classes, seed, pooling)


def stage1(setup: SimpleNamespace, model, rho1: float, rho2: float, seed: int, steps: int | None = None, **options):
    """TLM's stage 1 on ``setup``: one task batch, then ``rho1`` retrieved ones, repeated (``train_stage1``).

    Args:
        setup: :func:`small_setup`'s namespace.
        model: a :class:`kit.models.TLMModel` (:func:`new_tlm`).
        rho1: retrieved batches per task batch (0: task data only; ``math.inf``: retrieved data only).
        rho2: the weight of the task texts' MLM loss against the task loss.
        seed: the stream's seed.
        steps: the optimizer steps (None: the sizes' ``stage1_steps``).
        **options: other fields of its :class:`kit.train.Stage1Recipe` (e.g. ``normalize_internal=False``).

    Returns:
        ``train_stage1``'s :class:`kit.train.Stage1Result`.
    """
    recipe = runs.stage1_recipe(setup.Z, rho1, rho2, chunks=1 if setup.smoke else 4)
    recipe = dataclasses.replace(recipe, steps=steps or recipe.steps, **options)
    task, external = (setup.x["train"], setup.ds.train.y), setup.external if rho1 else None
    return train.train_stage1(model, task, external, setup.tokens.masker, recipe, seed=seed)
