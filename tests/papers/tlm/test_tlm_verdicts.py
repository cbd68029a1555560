"""Notebook 02's plumbing: per-example predictions on disk, the verdict table the sentences quote, the rho1 sweep,
the capped retrieval and the paper's BERT-base shape."""

import pathlib
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from kit.papers import sizes as paper_sizes
from kit.papers.experiment import load_predictions, save_predictions
from kit.papers.tlm import tlm_report as report
from kit.papers.tlm import tlm_runs as runs
from kit.retrieval.external import ExternalSelection

N_TEST = 200


def _sizes():
    z = paper_sizes("tlm", "smoke")
    z["tasks"] = {"news": "news"}
    z["ablation_task"] = "news"
    return z


def _task(seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, N_TEST)
    return SimpleNamespace(test=SimpleNamespace(y=y), train=SimpleNamespace(y=y), num_classes=2)


def _runs(out: pathlib.Path, z: dict, y: np.ndarray, right: dict) -> pd.DataFrame:
    """A runs table of every planned run and the baseline, each run's predictions right on ``right[setting]``."""
    rng = np.random.default_rng(1)
    tasks = {"news": SimpleNamespace(train=[0] * 64)}
    rows = runs.plan(runs.settings(z), z, tasks) + runs.baseline_plan(z, tasks)
    table = []
    for r in rows:
        key = "baseline" if r["experiment"] != "tlm" else (r["retrieval"], r["K"], r["rho1"], r["rho2"])
        p_final, p_stage1 = right.get(key, 0.7), 0.6
        pred = lambda p: np.where(rng.random(N_TEST) < p, y, 1 - y)  # noqa: E731
        preds = (
            {"final": pred(p_final)} if r["experiment"] != "tlm" else {"final": pred(p_final), "stage1": pred(p_stage1)}
        )
        save_predictions(out, r, runs.KEYS, preds)
        acc, acc1 = float((preds["final"] == y).mean()), float((preds.get("stage1", y) == y).mean())
        table.append({**r, "test_accuracy": acc, "stage1_test_accuracy": acc1, "test_macro_f1": acc,
                      "stage1_test_macro_f1": acc1, "flops": 1e9, "mlm_accuracy": 0.05, "trained_steps": 12,
                      "trained_stage1_steps": 8 if r["experiment"] == "tlm" else None})  # fmt: skip
    return pd.DataFrame(table)


def test_predictions_round_trip_through_a_results_table_row(tmp_path):
    run = dict(experiment="tlm", task="news", retrieval="bm25", K=8, rho1=3, rho2=20, seed=2)
    save_predictions(tmp_path, run, runs.KEYS, {"final": [0, 1, 1], "stage1": [1, 1, 0]})
    row = pd.DataFrame([{**run, "K": 8.0, "rho1": 3.0, "rho2": 20.0}]).iloc[0]  # pandas' floats, as read back
    got = load_predictions(tmp_path, runs.plain_run(row), runs.KEYS)
    assert got["final"].tolist() == [0, 1, 1] and got["stage1"].tolist() == [1, 1, 0]
    with pytest.raises(FileNotFoundError, match="its predictions file is gone"):
        load_predictions(tmp_path, {**run, "seed": 9}, runs.KEYS)


def test_verdict_table_has_every_comparison_and_the_sentences_quote_its_verdicts(tmp_path):
    z, task = _sizes(), _task()
    right = {("bm25", 8, 3, 20): 0.9, ("random", 8, 3, 20): 0.9, ("none", 0, 0, 20): 0.5, "baseline": 0.9}
    table = _runs(tmp_path, z, task.test.y, right)
    tlm, base, main = report.split_runs(table, z)
    v = report.verdicts(tmp_path, tlm, base, main, {"news": task}, z)
    names = list(v.comparison)
    assert names == [
        "news: BM25 vs random retrieval", "news: K=8 vs K=0 (task data alone)", "news: rho1=3 vs rho1=1",
        "news: rho2=20 vs rho2=0 (final score)", "news: with vs without stage 2",
        f"news: TLM vs {report.baseline_name(z)}",
    ]  # fmt: skip
    verdict = dict(zip(v.comparison, v.verdict))
    assert verdict["news: K=8 vs K=0 (task data alone)"] == "found"  # 0.9 vs 0.5 on 200 examples x 3 seeds
    assert verdict["news: BM25 vs random retrieval"] == "too few seeds to tell"  # both 0.9; the paper's +0.75 points
    assert verdict["news: with vs without stage 2"] == "needs a budget-matched control"  # 0.9 vs 0.6, 12 vs 8 steps
    rows = v.set_index("comparison")
    assert rows.loc["news: with vs without stage 2", "budget_b"] == "8 steps"  # from the runs' records
    assert rows.loc[f"news: TLM vs {report.baseline_name(z)}", "design"] == "recipe comparison"
    assert v.loc[1, "delta"] > 30 and v.loc[1, "examples_a"] == N_TEST and v.loc[1, "seeds_a"] == 3
    heads = pd.DataFrame({"positional %": [0.0, 2.8], "vertical %": [0.0, 8.3]})
    lines = report.sentences(v, tlm, base, main, {"news": task}, z, {"news": 0.06}, heads)
    said = [line for line in lines if "K=8 vs K=0" in line]
    assert len(said) == 1 and said[0].endswith(": found")
    assert any("BM25 vs random" in line and "could find ±" in line and "too few seeds to tell (paper" in line
               for line in lines)  # fmt: skip
    assert not any("larger" in line or "smaller" in line for line in lines)


def test_mlm_lines_compare_each_task_with_its_own_guess():
    tlm = pd.DataFrame({"task": ["a"] * 3 + ["b"] * 3, "mlm_accuracy": [0.05, 0.04, 0.06, 0.08, 0.09, 0.07]})
    lines = report.mlm_lines(tlm, np.ones(6, bool), {"a": 0.061, "b": 0.057})
    assert "a: " in lines[0] and "at or below" in lines[0] and "0.061" in lines[0]
    assert "b: " in lines[1] and "above" in lines[1] and "0.057" in lines[1]


def test_the_rho1_sweep_runs_at_smoke_and_table5_holds_only_rho1_rows(tmp_path):
    z, task = _sizes(), _task()
    assert z["rho1_ablation"] and all(r not in (0, z["rho1"]) for r in z["rho1_ablation"])
    table = _runs(tmp_path, z, task.test.y, {})
    tlm, _, main = report.split_runs(table, z)
    ours, _ = report.ablation_tables(tlm, main, z)["table5_rho1"]
    assert sorted(ours.index) == sorted([z["rho1"], *z["rho1_ablation"]])  # no K=0 run under rho1=0
    assert set(ours.seeds) == {len(z["seeds"])}


def test_cap_selection_keeps_the_best_ranked_passages():
    sel = ExternalSelection(
        np.array([3, 5, 7, 9]), np.array([1, 0, 0, 2]), np.zeros(4, int), np.array([9.0, 2.0, 5.0, 8.0])
    )
    cut = runs.cap_selection(sel, 3)
    assert cut.doc_ids.tolist() == [3, 5, 7] and cut.best_rank.tolist() == [1, 0, 0]
    assert runs.cap_selection(sel, None) is sel and runs.cap_selection(sel, 4) is sel
    assert paper_sizes("tlm", "medium")["max_corpus_share"] <= 0.05


@pytest.mark.one_backend  # a shape's arithmetic; tlm_backbone itself is built and trained on every backend
def test_bert_base_option_builds_the_papers_model_shape(monkeypatch):
    monkeypatch.setenv("KIT_SIZES", '{"tlm": {"model": "bert_base"}}')
    z = runs.with_model(paper_sizes("tlm", "full"))
    assert (z["num_layers"], z["num_heads"], z["hidden_dim"], z["intermediate_dim"]) == (12, 12, 768, 3072)
    from kit.models import tlm_backbone

    backbone = tlm_backbone(30522, z["num_layers"], z["num_heads"], z["hidden_dim"], z["intermediate_dim"],
                            max_sequence_length=z["sequence_length"])  # fmt: skip
    params = backbone.count_params()
    assert 105e6 < params < 112e6  # BERT-base: ~109M (the paper, Table 2)
    flops = runs.stage1_flops({**z, "stage1_steps": 100_000, "batch_size": 256}, params)
    assert 2.0e18 < flops < 2.3e18  # ~2.1e18 for AGNews (Table B.1)
    with pytest.raises(ValueError, match="Unknown TLM model"):
        runs.with_model({**z, "model": "bert_huge"})
