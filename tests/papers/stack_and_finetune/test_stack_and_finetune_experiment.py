"""Notebook 03's experiment through the shared contract: runs recorded with their predictions and curves, what they
trained, the best classifier kept, the ensemble scored from the saved predictions."""

import numpy as np
import pytest

import kit
from kit.papers.stack_and_finetune import stack_and_finetune_runs as runs
from kit.train.freeze_helpers import ReusableBackbone

from .test_stack_and_finetune_runs import VOCAB, _bert, _classes, _pre


def _toy_experiment(tmp_path, **changes):
    """Notebook 03's experiment on a toy classification task: tiny heads, 2 seeds, phase 1 of 2 epochs, phase 2 of 1."""
    tasks = {"toy": runs.encode_task(_classes(), _pre())}
    specs = {"toy": {"section": "classification", "sequence_length": 10}}
    sizes = kit.papers.sizes("stack_and_finetune", "smoke") | {
        "seeds": [0, 1],
        "batch_size": 8,
        "phase1_epochs": 2,
        "phase2_epochs": 1,
        "light_hidden_dim": 8,
        "matched_budget": [],
        "divergence_threshold": 0.0,
        "divergence_patience": 1,
        **changes,
    }
    sizes["heads"] = {**sizes["heads"], "densenet": {"filters": 8, "growth": 4, "blocks": 1, "convs_per_block": 1}}
    sizes["heads"]["highway"] = {"n_layers": 1, "cells": 4}
    tokenizer = kit.text.WordPieceTokenizer(VOCAB)
    experiment = runs.Experiment(sizes, tasks, specs, ReusableBackbone(_bert()), tokenizer, tmp_path, backbone="tiny")
    return experiment, tasks


@pytest.mark.one_backend  # a notebook's plumbing; train_strategy and the heads are tested on every backend
def test_the_sweep_of_a_tiny_task_lands_whole(tmp_path):
    experiment, tasks = _toy_experiment(tmp_path)
    plan = experiment.plan()
    assert {(r["model"], r["strategy"]) for r in plan} >= {("light", "finetune_only"), ("densenet", "stack_only")}
    for run in experiment.sweep.pending(plan):
        experiment.record(run, experiment.run_one(run))
    results = experiment.sweep.results(plan)
    first = results[(results.model == "densenet") & (results.strategy == "stack_and_finetune") & (results.seed == 0)]
    got = first.set_index("metric").value
    assert got["trained_epochs"] == got["phase1_epochs"] + got["phase2_epochs"] <= 3  # phase 1 may stop early
    assert got["trained_steps"] == got["trained_epochs"] * 2  # 16 texts, batch 8
    saved = experiment.predictions(dict(task="toy", model="densenet", strategy="stack_and_finetune", seed=0))
    assert saved["test"].shape == (16, 2) and got["accuracy"] == np.mean(
        saved["test"].argmax(-1) == tasks["toy"].y["test"]
    )
    curves = experiment.curves()
    assert len(curves) == results[results.metric == "trained_epochs"].value.sum()  # one row per epoch trained
    assert (tmp_path / "curves.csv").exists() and (tmp_path / "best_model" / "bundle.json").exists()
    experiment.record_ensembles(["toy"])
    ensemble = experiment.sweep.results()
    assert len(ensemble[(ensemble.model == "ensemble") & (ensemble.metric == "accuracy")]) == 2 * 2  # 2 strategies


@pytest.mark.one_backend  # a notebook's plumbing; keep_stack_only itself is tested on every backend (tests/train)
def test_stack_only_runs_taken_from_stack_and_finetune_score_as_if_trained_alone(tmp_path, monkeypatch):
    """Phase 1 never stops early here: every stack-only run comes from its stack-and-finetune run, not trained again."""
    experiment, _ = _toy_experiment(tmp_path, divergence_threshold=1.0)  # a gap never above 1: phase 1 runs whole
    trained, train = [], runs.train_strategy
    monkeypatch.setattr(runs, "train_strategy", lambda *a, **k: trained.append(a[3]) or train(*a, **k))
    plan = experiment.plan()
    for run in experiment.sweep.pending(plan):
        experiment.record(run, experiment.run_one(run))
    alone = [r for r in plan if r["strategy"] == "stack_only"]
    assert len(alone) == 4 and "stack_only" not in trained and len(trained) == len(plan) - 4
    assert not experiment.shared  # each kept run was taken by its own place in the plan
    results = experiment.sweep.results(plan).set_index([*runs.KEYS, "metric"])["value"]
    for run in alone:  # the same run trained on its own now (nothing kept for it any more)
        again = experiment.run_one(run)
        assert np.array_equal(again.predictions["test"], experiment.predictions(run)["test"])
        key = tuple(run[k] for k in runs.KEYS)
        for metric in ("accuracy", "dev_best", "phase1_epochs", "trained_steps"):
            assert (
                results[(*key, metric)]
                == {**again.metrics, **{f"trained_{k}": v for k, v in again.trained.items()}}[metric]
            )
    assert trained.count("stack_only") == 4
