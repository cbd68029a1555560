"""Notebook 02's experiment through the shared contract: a TLM run and a baseline run, recorded with their
predictions, what they trained and the models section 7 reads."""

import numpy as np
import pytest

import kit
from kit.data.dataset import Split, TextDataset
from kit.papers.tlm import tlm_runs as runs


def _task(name, rng, n):
    words = {0: ["goal", "match", "team", "score"], 1: ["bank", "market", "shares", "profit"]}

    def split(k):
        y = rng.integers(0, 2, k)
        return Split([" ".join(rng.choice(words[int(c)], 6)) for c in y], y)

    splits = {"train": split(n), "dev": split(16), "test": split(16)}
    return TextDataset(name, "classification", splits, label_names=["sport", "business"])


pytestmark = pytest.mark.one_backend  # a notebook's plumbing: stage 1 and fit_classifier run on every backend


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    rng = np.random.default_rng(0)
    tasks = {"toy": _task("toy", rng, 32)}
    z = kit.papers.sizes("tlm", "smoke") | dict(
        tasks={"toy": "news"}, ablation_task="toy", sequence_length=12, vocabulary_size=200, num_layers=1,
        num_heads=2, hidden_dim=16, intermediate_dim=32, k=2, stage1_steps=8, batch_size=8, stage2_epochs=1,
        baseline_epochs=1, baseline_layers=1, seeds=[0, 1], rho1_ablation=[], rho2_ablation=[],
    )  # fmt: skip
    corpus = [f"the {w} of the day" for w in ("goal", "market", "team", "profit", "rain", "song")] * 4
    selections, _ = runs.retrieve(tasks, corpus, z)
    enc = kit.models.load_backbone("minilm-l6", sequence_length=12)
    tokens = runs.Tokens.prepare(tasks, corpus, selections, enc.preprocessor, z["vocabulary_size"])
    return runs.Experiment(z, tasks, tokens, selections, enc, tmp_path_factory.mktemp("out"))


def test_a_tlm_run_and_a_baseline_run_land_whole(experiment):
    plan, base = experiment.plan(), experiment.baseline_plan()
    assert {r["experiment"] for r in plan} == {"tlm"} and {r["experiment"] for r in base} == {"minilm_finetuned"}
    first, baseline = plan[0], base[0]
    for run in (first, baseline):
        experiment.record(run, experiment.run_one(run))
    got = experiment.sweep.results([first]).set_index("metric").value
    assert got["trained_stage1_steps"] == 8 and got["trained_steps"] == 8 + 4  # 32 texts / 8 a batch, 1 epoch
    saved = experiment.predictions(first)
    assert set(saved) == {"final", "stage1"} and len(saved["final"]) == 16
    assert got["test_accuracy"] == np.mean(saved["final"] == experiment.tasks["toy"].test.y)
    assert (experiment.out / "tlm_toy.keras").exists() and (experiment.out / "best_model" / "bundle.json").exists()
    assert (experiment.out / "minilm_finetuned_toy.keras").exists()
    row = experiment.sweep.results([baseline]).set_index("metric").value
    assert row["trained_epochs"] == 1 and set(experiment.predictions(baseline)) == {"final"}
    assert [r for r in experiment.sweep.pending([first, baseline])] == []  # both count as done


def test_full_scale_runs_each_task_at_the_papers_own_settings():
    # Table B.1 (small scale): AG News K=50, rho1=1, rho2=100; IMDB K=500, rho1=19, rho2=100
    full = kit.papers.sizes("tlm", "full")
    main = {task: setting for task, setting in runs.settings(full) if setting["retrieval"] == "bm25"}
    assert runs.main_setting(full, "ag_news") == {"retrieval": "bm25", "K": 50, "rho1": 1, "rho2": 100}
    assert runs.main_setting(full, "imdb") == {"retrieval": "bm25", "K": 500, "rho1": 19, "rho2": 100}
    random = [(t, s) for t, s in runs.settings(full) if s["retrieval"] == "random"]
    assert random == [("ag_news", {**runs.main_setting(full, "ag_news"), "retrieval": "random"}),
                      ("imdb", {**runs.main_setting(full, "imdb"), "retrieval": "random"})]  # fmt: skip
    ablations = [s for t, s in runs.settings(full) if t == "ag_news" and s["retrieval"] == "bm25"]
    assert {(s["K"], s["rho1"], s["rho2"]) for s in ablations} == {(50, 1, 100), (5, 1, 100), (50, 3, 100), (50, 1, 20)}
    assert set(main) == {"ag_news", "imdb"}  # every task has its main setting
    # smoke, without per-task settings, keeps one setting for every task
    smoke = kit.papers.sizes("tlm", "smoke")
    assert {runs.main_setting(smoke, t)["K"] for t in smoke["tasks"]} == {smoke["k"]}
