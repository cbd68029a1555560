"""Notebook 01's verdicts: every run's 1/0 per test example is saved and read back, every comparison goes through one
verdict table (Holm across all its rows), and the printed sentences and Table 2 say what that table says."""

import numpy as np
import pandas as pd
import pytest

import kit
from kit.papers.experiment import predictions_path, save_predictions
from kit.papers.pretrain_or_not import pretrain_or_not_report as report
from kit.papers.pretrain_or_not import pretrain_or_not_runs as runs

pytestmark = pytest.mark.one_backend  # a notebook's plumbing (kit/papers): no Keras model is trained here

SPECS = {
    "LSTM-2-64": ("lstm", 2, 64),
    "LSTM-2-64 + MiniLM emb": ("lstm+pretrained", 2, 64),
    "T": ("transformer", 3, None),
}
SIZES = [250, 2250]
EXAMPLES = 400


def _correct(rate: float, seed: int) -> np.ndarray:
    """Right on the examples easier than ``rate`` (the same for every model: easy examples are easy), 3% flipped."""
    easy = np.random.default_rng(0).random(EXAMPLES) < rate
    flip = np.random.default_rng(seed).random(EXAMPLES) < 0.03
    return (easy ^ flip).astype(np.int8)


def _runs(tmp_path):
    """Saved predictions: T 90% right everywhere; both LSTMs 70% at 250 and 80% at 2,250 (the gap shrinks)."""
    rate = {
        "T": {250: 0.9, 2250: 0.9},
        "LSTM-2-64": {250: 0.7, 2250: 0.8},
        "LSTM-2-64 + MiniLM emb": {250: 0.7, 2250: 0.8},
    }
    plan = [dict(model=m, train_examples=n, seed=s) for m in SPECS for n in SIZES for s in range(3)]
    rows = []
    for i, r in enumerate(plan):
        correct = _correct(rate[r["model"]][r["train_examples"]], i)
        save_predictions(tmp_path, r, runs.KEYS, {"correct": correct})
        rows.append({**r, "metric": "test_accuracy", "value": float(correct.mean())})
    return plan, pd.DataFrame(rows)


def test_the_verdict_table_holds_every_comparison_and_the_sentences_quote_it(tmp_path):
    plan, results = _runs(tmp_path)
    correct = report.load_correct(tmp_path, plan)
    trained = {(m, n): {"steps": 100.0, "epochs": 3.0} for m in SPECS for n in SIZES}
    trained[("LSTM-2-64 + MiniLM emb", 2250)] = {"steps": 200.0, "epochs": 6.0}  # it trained twice as long
    table = report.verdicts(correct, SPECS, SIZES, trained)
    verdict, rows = table.set_index("comparison").verdict, table.set_index("comparison")
    assert len(table) == 4 + 2 + 2  # 2 gaps x 2 sizes, 2 shrinks, the pretrained table at 2 sizes
    assert verdict[report.gap_name("T", "LSTM-2-64", 250)] == "found (recipe comparison)"  # each model its recipe
    assert verdict[report.shrink_name("T", "LSTM-2-64", 250, 2250)] == "found (recipe comparison)"
    pair = report.pair_name("LSTM-2-64 + MiniLM emb", "LSTM-2-64", 250)
    assert verdict[pair] == "too few seeds to tell" and rows.loc[pair].effect == pytest.approx(0.66)  # the paper's
    assert rows.loc[report.pair_name("LSTM-2-64 + MiniLM emb", "LSTM-2-64", 2250)].design == "budgets differ"
    shrink = rows.loc[report.shrink_name("T", "LSTM-2-64", 250, 2250)]
    assert 5 < shrink.delta < 15  # points: 20 at 250 minus 10 at 2,250
    assert (table.p_holm >= table.p).all()  # Holm across the table
    timing = pd.DataFrame(
        {"model": ["LSTM-2-256", "T"], "batch_size": [32, 32], "median_ms": [10.0, 40.0], "device": ["CPU"] * 2}
    ).assign(backend="torch", **{"speed-up vs T": [4.0, 1.0]})
    lines = report.sentences(table, SPECS, SIZES, timing, 128)
    assert "(found (recipe comparison);" in lines[0] and lines[0].count("found") == 3  # both gaps and the shrink
    pre = next(line for line in lines if line.startswith("LSTM-2-64 + MiniLM emb - LSTM-2-64") and "250" in line)
    assert "(too few seeds to tell;" in pre and "found" not in pre and "could find ±" in pre
    stats = report.accuracy_stats(results)
    t2 = report.table2(stats, table, SPECS, {m: 1 for m in SPECS}, 2250)
    assert t2.loc["LSTM-2-64", "Δ to transformer (points)"].endswith("(found (recipe comparison))")
    rows = [("LSTM-2-64", 250, s, "trained_steps", 10.0 + s) for s in range(3)]
    got = report.budgets(pd.DataFrame(rows, columns=["model", "train_examples", "seed", "metric", "value"]))
    assert got == {("LSTM-2-64", 250): {"steps": 11.0}}
    checks = report.checks(results, stats, report.gaps(stats, SPECS, SIZES), plan, SPECS, 2, correct)
    assert checks["every run's saved test predictions give its test accuracy"]


def test_the_data_check_reads_the_lstms_mean(tmp_path):
    """One LSTM a point down over the sizes (seed noise at smoke) passes when the LSTMs' mean rises; no rise fails."""
    plan, results = _runs(tmp_path)
    correct = report.load_correct(tmp_path, plan)
    claim = "the LSTMs score higher at the largest size than at the smallest (their mean)"

    def check(shift):  # shift each LSTM's accuracy at the largest size by shift[model] points
        moved = results.copy()
        for m, d in shift.items():
            moved.loc[(moved.model == m) & (moved.train_examples == 2250), "value"] += d / 100
        stats = report.accuracy_stats(moved)
        return report.checks(moved, stats, report.gaps(stats, SPECS, SIZES), plan, SPECS, 2, correct)[claim]

    assert check({})  # both LSTMs 70% -> 80%
    assert check({"LSTM-2-64": -11})  # one LSTM 70% -> 69%, the other 70% -> 80%
    assert not check({"LSTM-2-64": -15, "LSTM-2-64 + MiniLM emb": -15})  # both LSTMs lose 5 points


def test_a_run_without_saved_predictions_is_refused(tmp_path):
    plan, _ = _runs(tmp_path)
    predictions_path(tmp_path, plan[4], runs.KEYS).unlink()
    with pytest.raises(FileNotFoundError, match="no saved test predictions"):
        report.load_correct(tmp_path, plan)


def test_medium_has_a_plain_lstm_of_the_pretrained_ones_size():
    medium = kit.papers.sizes("pretrain_or_not", "medium")
    specs = runs.models(medium)
    assert list(specs) == ["LSTM-2-256", "LSTM-2-256 + MiniLM emb", "MiniLM-L6 fine-tuned"]
    assert report.table_pairs(specs)[0] == ("LSTM-2-256 + MiniLM emb", "LSTM-2-256", "the pretrained table, same depth")
    smoke = runs.models(kit.papers.sizes("pretrain_or_not", "smoke"))
    assert report.table_pairs(smoke)[0][:2] == ("LSTM-2-64 + MiniLM emb", "LSTM-2-64")
