"""Notebook 03's verdict table: per-example results from the saved predictions, budgets, the paper's column."""

import numpy as np
import pytest

from kit.metrics.tagging_scores import entity_scores, token_accuracy
from kit.papers.experiment import save_predictions
from kit.papers.stack_and_finetune.stack_and_finetune_report import paper_comparison, verdict_lines
from kit.papers.stack_and_finetune.stack_and_finetune_runs import KEYS, MATCHED, PAD, TaskData, plan
from kit.papers.stack_and_finetune.stack_and_finetune_verdicts import (
    budgets,
    entity_f1_of_counts,
    plan_comparisons,
    ratio_of_sums,
    sentence_counts,
    verdict_table,
)

TAGS = ["O", "B-NP", "I-NP"]
SIZES = {"phase1_epochs": 4, "phase2_epochs": 2}
PAPER = [
    {
        "experiment": "B",
        "section": "classification",
        "metric": "accuracy",
        "a": ("rich", "stack_and_finetune"),
        "b": ("light", "finetune_only"),
        "paper": 0.72,
        "says": "+0.72%",
        "direction": 1,
    }
]


def _tagging(n=60, seed=0):
    rng = np.random.default_rng(seed)
    gold = [list(rng.choice([0, 0, 1, 2], size=rng.integers(3, 9))) for _ in range(n)]
    gold = [[t if t != 2 or i and g[i - 1] else 1 for i, t in enumerate(g)] for g in gold]  # no I- after O
    return TaskData("e", "tagging", TAGS, {}, {}, {"test": [[int(t) for t in g] for g in gold]})


def _noisy_words(task, right, seed):
    """Saved word predictions (``word_array``'s form): each gold tag kept with probability ``right``, one word cut."""
    rng = np.random.default_rng(seed)
    gold = task.words["test"]
    out = np.full((len(gold), max(map(len, gold))), PAD, "int32")
    for i, g in enumerate(gold):
        out[i, : len(g)] = [t if rng.random() < right else int(rng.integers(0, 3)) for t in g]
    out[0, len(gold[0]) - 1] = -1  # cut by the sequence length: wrong
    return out


def test_sentence_counts_give_token_accuracy_and_entity_f1_exactly():
    task = _tagging()
    words = _noisy_words(task, 0.7, seed=1)
    right, n, entities = sentence_counts(task, words)
    gold = task.words["test"]
    pred = [[int(t) if t >= 0 else 0 for t in row[: len(g)]] for g, row in zip(gold, words)]
    as_tags = lambda seqs: [[TAGS[t] for t in s] for s in seqs]  # noqa: E731
    whole = entity_scores(as_tags(gold), as_tags(pred))
    assert entity_f1_of_counts(entities[:, :2], entities[:, 2]) == pytest.approx(whole["f1"])
    assert entities[:, 2].sum() == whole["n_true"] and entities[:, 1].sum() == whole["n_pred"]
    cut = [[int(t) for t in row[: len(g)]] for g, row in zip(gold, words)]
    assert ratio_of_sums(right, n) == pytest.approx(token_accuracy(gold, cut))
    assert entity_f1_of_counts(np.zeros((2, 2)), np.zeros(2)) == 0.0


def _save(out, task, model, strategy, outputs_by_seed):
    for seed, outputs in outputs_by_seed.items():
        save_predictions(out, dict(task=task, model=model, strategy=strategy, seed=seed), KEYS, {"test": outputs})


def _logits(y, right, seed):
    """Logits that pick the true class of ``y`` with probability ``right``."""
    rng = np.random.default_rng(seed)
    pred = np.where(rng.random(len(y)) < right, y, 1 - y)
    return np.eye(2, dtype="float32")[pred]


def _classification(tmp_path, matched: bool, trained=None):
    y = np.random.default_rng(0).integers(0, 2, 400)
    task = TaskData("t", "classification", ["a", "b"], {}, {"test": y})
    arms = {("light", "finetune_only"): 0.6, ("rich", "stack_only"): 0.93, ("rich", "stack_and_finetune"): 0.94}
    if matched:
        arms[("light", MATCHED)] = 0.6
    for k, (arm, right) in enumerate(arms.items()):
        _save(tmp_path, "t", *arm, {s: _logits(y, right, 10 * k + s) for s in range(3)})
    ran = {("t", *arm) for arm in arms}
    specs, models = {"t": {"section": "classification"}}, {"t": ["light", "rich"]}
    rows = plan_comparisons({"t": task}, specs, models, ran, SIZES, PAPER, {"classification": "t"})
    return verdict_table(tmp_path, {"t": task}, rows, [0, 1, 2], {"t": ["rich"]}, trained)


def test_a_large_gain_over_a_shorter_finetune_only_needs_a_budget_matched_control(tmp_path):
    table = _classification(tmp_path, matched=False).set_index("comparison")
    row = table.loc["t accuracy: rich stack_and_finetune - light finetune_only"]
    assert row.delta > 25 and row.p_holm < 0.05
    assert row.verdict == "needs a budget-matched control" and "6 vs 2 epochs" in row.note
    assert table.loc["t accuracy: rich stack_and_finetune - rich stack_only"].verdict == "noise"
    side = paper_comparison(table.reset_index(), PAPER, {"classification": "t"})
    assert side["ours vs the paper"].tolist() == ["the paper's direction, needs a budget-matched control"]


def test_with_the_matched_control_the_gain_is_compared_at_equal_epochs_and_found(tmp_path):
    table = _classification(tmp_path, matched=True)
    names = list(table.comparison)
    assert "t accuracy: rich stack_and_finetune - light finetune_only" not in names
    row = table.set_index("comparison").loc[f"t accuracy: rich stack_and_finetune - light {MATCHED}"]
    assert row.verdict == "found" and row.seeds_a == 3 and row.examples_a == 400
    side = paper_comparison(table, PAPER, {"classification": "t"})
    assert side["ours vs the paper"].tolist() == ["same direction, found"]
    assert side["our comparison"].tolist() == [f"t accuracy: rich stack_and_finetune - light {MATCHED}"]
    lines = verdict_lines(table)
    assert lines[1].startswith("  found (1): t accuracy: rich stack_and_finetune - light finetune_only_matched +")


def test_budgets_come_from_what_the_runs_trained_when_phase_1_stops_early(tmp_path):
    """Equal planned epochs, but phase 1 stopped after 2 of its 4: stack-and-finetune trained 4 epochs against 6."""
    import pandas as pd

    rows = [("t", "rich", "stack_and_finetune", s, "trained_epochs", 4.0) for s in range(3)]
    rows += [("t", "rich", "stack_and_finetune", s, "trained_steps", 40.0) for s in range(3)]
    rows += [
        ("t", "light", MATCHED, s, m, v) for s in range(3) for m, v in (("trained_epochs", 6), ("trained_steps", 60))
    ]
    rows += [("t", "rich", "stack_only", s, "trained_epochs", 4.0) for s in range(3)]
    results = pd.DataFrame(rows, columns=["task", "model", "strategy", "seed", "metric", "value"])
    trained = budgets(results, {"t": ["rich"]})
    assert trained[("t", "ensemble", "stack_only")] == {"epochs": 4.0}  # its one member's
    table = _classification(tmp_path, matched=True, trained=trained).set_index("comparison")
    row = table.loc[f"t accuracy: rich stack_and_finetune - light {MATCHED}"]
    assert row.verdict == "needs a budget-matched control" and row.design == "budgets differ"
    assert row.budget_a == "4 epochs, 40 steps" and row.budget_b == "6 epochs, 60 steps"
    assert "up to 6 epochs each" in row.note  # what was planned, beside what each trained


def test_entity_rows_are_scored_per_sentence(tmp_path):
    task = _tagging(n=80)
    good = {s: _noisy_words(task, 0.95, 100 + s) for s in range(2)}
    bad = {s: _noisy_words(task, 0.95, 200 + s) for s in range(2)}  # the same skill: noise
    _save(tmp_path, "e", "bilstm", "stack_and_finetune", good)
    _save(tmp_path, "e", "light", MATCHED, bad)
    rows = [
        dict(task="e", metric=m, a=("bilstm", "stack_and_finetune"), b=("light", MATCHED), budget_matched=True, note="")
        for m in ("entity_f1", "token_accuracy")
    ]
    table = verdict_table(tmp_path, {"e": task}, rows, [0, 1], {})

    def f1(words):
        return entity_f1_of_counts(sentence_counts(task, words)[2][:, :2], sentence_counts(task, words)[2][:, 2])

    expected = 100 * (np.mean([f1(w) for w in good.values()]) - np.mean([f1(w) for w in bad.values()]))
    assert table.delta[0] == pytest.approx(expected) and table.examples_a[0] == 80
    assert list(table.verdict) == ["noise", "noise"]


def test_a_comparison_with_one_seed_is_left_out_and_named(tmp_path):
    y = np.array([0, 1] * 20)
    task = TaskData("t", "classification", ["a", "b"], {}, {"test": y})
    _save(tmp_path, "t", "light", "finetune_only", {0: _logits(y, 0.6, 0), 1: _logits(y, 0.6, 1)})
    _save(tmp_path, "t", "rich", "stack_only", {0: _logits(y, 0.6, 2)})
    _save(tmp_path, "t", "rich", "stack_and_finetune", {0: _logits(y, 0.7, 3), 1: _logits(y, 0.7, 4)})
    rows = plan_comparisons(
        {"t": task},
        {"t": {"section": "pairs"}},
        {"t": ["light", "rich"]},
        {("t", "light", "finetune_only"), ("t", "rich", "stack_only"), ("t", "rich", "stack_and_finetune")},
        SIZES,
        [],
        {},
    )
    table = verdict_table(tmp_path, {"t": task}, rows, [0, 1, 2], {})
    assert table.attrs["left_out"] == ["t accuracy: rich stack_and_finetune - rich stack_only"]
    assert len(table) == 1


def test_a_matched_plan_fine_tunes_the_bilstm_alone_for_both_phases():
    class T:
        def steps_per_epoch(self, batch_size):
            return 10

    sizes = {
        "seeds": [0],
        "batch_size": 8,
        "rich_head_finetune": True,
        "matched_budget": True,
        "rich_head_matched": ["bilstm"],
        **SIZES,
    }
    rows = plan({"pos": ["light", "bilstm"], "bbc": ["light", "densenet"]}, sizes, {"pos": T(), "bbc": T()})
    runs = {(r["task"], r["model"], r["strategy"]): r["steps"] for r in rows}
    assert runs[("pos", "bilstm", MATCHED)] == 60 and ("bbc", "densenet", MATCHED) not in runs
    from kit.papers import sizes as paper_sizes

    assert not paper_sizes("stack_and_finetune", "smoke")["rich_head_matched"]
    assert not paper_sizes("stack_and_finetune", "medium")["rich_head_matched"]  # out of ~10 minutes (kit.papers.costs)
