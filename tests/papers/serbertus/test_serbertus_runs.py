"""Notebook 04's plumbing: one SerBERTus run, its rows and predictions on disk, per-seed ensembles, the compact
token table, the results tables."""

import json
import zipfile

import keras
import numpy as np
import pandas as pd
import pytest

import kit
from kit.data import Split, TextDataset
from kit.metrics.task_scores import task_score
from kit.models.bundle import uncompiled_copy
from kit.models.compact_backbone import compact_backbone
from kit.papers.experiment import save_predictions
from kit.papers.serbertus import serbertus_report as report
from kit.papers.serbertus import serbertus_runs as serbertus
from kit.text import CompactVocabulary
from kit.train import SmartNoise, Sweep, predict_tasks
from tests.helpers import tiny_backbone

KINDS = {"sst": "classification", "qqp": "binary", "sts": "regression"}
HEADS = {"sst": 5, "qqp": 1, "sts": 1}
VOCAB, SEQ = 40, 8


def tiny(seed=0, vocab=VOCAB, dropout=0.0):
    return tiny_backbone(seed, vocabulary_size=vocab, hidden_dim=8, max_sequence_length=SEQ, dropout=dropout,
                         hidden_activation="gelu_approximate")  # fmt: skip


def inputs(n, seed, low=4, high=VOCAB):
    ids = np.random.default_rng(seed).integers(low, high, (n, SEQ)).astype("int32")
    ids[:, 0], ids[:, -1] = 2, 3
    return {"token_ids": ids, "segment_ids": np.zeros_like(ids), "padding_mask": np.ones_like(ids)}


def task_data(n=8):
    out = {}
    for i, t in enumerate(KINDS):
        splits = {}
        for j, s in enumerate(("train", "dev", "test")):
            x = inputs(n, 10 * i + j)
            first = x["token_ids"][:, 1]
            y = {"sst": first % 5, "qqp": (first % 2).astype(int), "sts": first / 8.0}[t]
            splits[s] = (x, y)
        out[t] = splits
    return out


@pytest.mark.one_backend  # the notebook's runner; test_run_setting_in_mixed_bfloat16 runs it on every backend
def test_run_setting_single_task_with_epochs_keeps_the_best_dev_epoch():
    data = {"sst": task_data()["sst"]}
    recipe = serbertus.Recipe(learning_rate=1e-3, epochs=2, batch_size=4)
    r = serbertus.run_setting(tiny(), data, KINDS, HEADS, serbertus.Setting(architecture="single"), recipe, seed=1)
    assert r.architecture == "single-task" and r.steps == 4 and r.smart_loss is None and r.mlm_curve is None
    assert "dev_mean" in r.history and len(r.history["dev_mean"]) == 2
    # the dev score is the kept epoch's, and matches the stored predictions
    assert r.dev["sst"] == pytest.approx(max(r.history["dev_mean"]))
    again = predict_tasks(r.model, {"sst": data["sst"]["dev"][0]}, KINDS)
    np.testing.assert_allclose(again["sst"], r.dev_predictions["sst"], atol=1e-5)
    assert r.test["sst"] == task_score("classification", data["sst"]["test"][1], r.test_predictions["sst"])
    assert set(r.summary()) == {"params", "steps", "seconds"}


@pytest.mark.one_backend  # the notebook's runner; test_run_setting_in_mixed_bfloat16 runs it on every backend
def test_run_setting_multitask_with_smart_decay_and_mlm():
    from kit.text import MLMMasker

    bb = tiny()
    before = keras.ops.convert_to_numpy(bb.transformer_layers[0]._self_attention_layer._query_dense.kernel).copy()
    masker = MLMMasker(VOCAB, mask_token_id=1, special_token_ids=[0, 2, 3], max_predictions=2)
    setting = serbertus.Setting(architecture="cerbertus", k=1, lambda_s=1.0, decay=0.8, mlm_steps=3)
    recipe = serbertus.Recipe(learning_rate=1e-3, epochs=1, batch_size=4, smart=SmartNoise(sigma=1e-3))
    r = serbertus.run_setting(bb, task_data(), KINDS, HEADS, setting, recipe, masker=masker, seed=0)
    assert r.architecture == "CerBERTus k=1" and r.steps == 6 and r.smart_loss > 0
    assert sorted(r.dev) == sorted(KINDS) and r.dev_predictions["sst"].shape == (8, 5)
    assert (
        r.dev_predictions["qqp"].shape == (8,)
        and ((0 <= r.dev_predictions["qqp"]) & (r.dev_predictions["qqp"] <= 1)).all()
    )
    summary = r.summary()
    assert {"smart_loss", "mlm_loss_first", "mlm_loss_last"} <= set(summary)
    assert len([k for k in summary if k.startswith("mlm_loss_step")]) == len(r.mlm_curve["loss"]) == 3
    after = keras.ops.convert_to_numpy(bb.transformer_layers[0]._self_attention_layer._query_dense.kernel)
    assert not np.allclose(before, after)  # the shared encoder was trained (MLM, then the tasks)


def test_run_setting_in_mixed_bfloat16():
    """The whole recipe (further MLM, CerBERTus, SMART, layer-wise decay) runs in bfloat16 with float32 weights."""
    from kit.text import MLMMasker

    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy("mixed_bfloat16")
    try:
        bb = tiny()
        masker = MLMMasker(VOCAB, mask_token_id=1, special_token_ids=[0, 2, 3], max_predictions=2)
        setting = serbertus.Setting(architecture="cerbertus", k=1, lambda_s=1.0, decay=0.8, mlm_steps=2)
        recipe = serbertus.Recipe(learning_rate=1e-3, epochs=2, batch_size=4, smart=SmartNoise(sigma=1e-3))
        r = serbertus.run_setting(bb, task_data(), KINDS, HEADS, setting, recipe, masker=masker, seed=0)
        assert r.smart_loss > 0 and np.isfinite(r.smart_loss)
        assert all(np.isfinite(v) for v in r.history["loss"]) and np.isfinite(r.mlm_curve["loss"]).all()
        assert all(np.isfinite(r.dev[t]) and np.isfinite(r.test[t]) for t in KINDS)
        assert all(np.isfinite(p).all() for p in r.test_predictions.values())
        assert {w.dtype for w in r.model.trainable_weights} == {"float32"}
        out = r.model(task_data()["sst"]["dev"][0])
        assert keras.backend.standardize_dtype(out["sst"].dtype) == "bfloat16"
    finally:
        keras.config.set_dtype_policy(previous)


def test_run_setting_errors():
    data = task_data()
    with pytest.raises(ValueError, match="lacks the split"):
        serbertus.run_setting(tiny(), {"sst": {"train": data["sst"]["train"]}}, KINDS, HEADS)
    with pytest.raises(ValueError, match="needs masker"):
        serbertus.run_setting(tiny(), {"sst": data["sst"]}, KINDS, HEADS, serbertus.Setting(mlm_steps=2))
    with pytest.raises(ValueError, match="decay must be"):
        serbertus.Setting(decay=1.5)
    with pytest.raises(ValueError, match="fewer training examples than one batch"):
        serbertus.run_setting(tiny(), {"sst": data["sst"]}, KINDS, HEADS, recipe=serbertus.Recipe(batch_size=16))
    with pytest.raises(TypeError, match="setting must be a serbertus_runs.Setting"):
        serbertus.run_setting(tiny(), {"sst": data["sst"]}, KINDS, HEADS, {"decay": 0.9})
    with pytest.raises(TypeError, match="recipe must be a serbertus_runs.Recipe"):
        serbertus.run_setting(tiny(), {"sst": data["sst"]}, KINDS, HEADS, recipe={"epochs": 1})
    with pytest.raises(ValueError, match="one task"):
        serbertus.build_model(tiny(), HEADS, "single")
    with pytest.raises(ValueError, match="k >= 1"):
        serbertus.build_model(tiny(), HEADS, "cerbertus", k=0)
    with pytest.raises(ValueError, match="Unknown architecture"):
        serbertus.build_model(tiny(), HEADS, "quadruple")


@pytest.mark.one_backend  # the notebook's files and ensembles; run_setting is tested on every backend
def test_rows_predictions_and_ensembles_on_disk(tmp_path):
    data = task_data()
    sweep = Sweep(tmp_path / "results.csv", keys=serbertus.KEYS, log=lambda *a: None)
    runs = {}
    for seed in (0, 1):
        for arch in ("multi", "cerbertus"):
            run = {"experiment": "architecture", "setting": f"{arch} k/1", "task": "sst+qqp+sts", "seed": seed}
            setting, recipe = serbertus.Setting(architecture=arch, k=1), serbertus.Recipe(1e-3, batch_size=4)
            r = serbertus.run_setting(tiny(seed), data, KINDS, HEADS, setting, recipe, seed=seed)
            result = serbertus.to_run_result(r)
            path = save_predictions(tmp_path, run, serbertus.KEYS, result.predictions)
            sweep.record(run, result)
            assert path.name == f"architecture__{arch}_k_1__sst_qqp_sts__{seed}.npz"
            back = serbertus.load_predictions(tmp_path, run)
            for t in KINDS:
                np.testing.assert_array_equal(back["test"][t], r.test_predictions[t])
            runs[(arch, seed)] = back
    long = sweep.results()
    assert set(long.task) == {"sst", "qqp", "sts", "sst+qqp+sts"}
    assert set(long[long.task == "sst"].metric) == {"dev_score", "test_score", "train_score"}
    own = set(long[long.task == "sst+qqp+sts"].metric)
    assert {"dev_mean", "test_mean", "params", "trained_steps", "trained_epochs", "seconds"} <= own
    labels = {s: {t: data[t][s][1] for t in KINDS} for s in ("dev", "test")}
    rows = serbertus.seed_ensembles(runs, labels, KINDS)
    assert len(rows) == 6 and {r["candidates"] for r in rows} == {2}
    for r in rows:
        best = max(
            runs,
            key=lambda key: (
                key[1] == r["seed"],
                task_score(KINDS[r["task"]], labels["dev"][r["task"]], runs[key]["dev"][r["task"]]),
            ),
        )
        assert r["best_single_dev"] == pytest.approx(
            task_score(KINDS[r["task"]], labels["dev"][r["task"]], runs[best]["dev"][r["task"]])
        )
        assert r["dev_score"] >= r["best_single_dev"] and 1 <= r["members"] <= 2
    with pytest.raises(FileNotFoundError, match="predictions file is gone"):
        serbertus.load_predictions(tmp_path, {**run, "seed": 7})


def test_task_kinds_slots_and_inputs():
    s = Split(["a", "b", "c"], [0, 1, 1], texts_b=["x", "y", "z"])
    pairs = TextDataset("p", "pairs", {"train": s}, label_names=["no", "yes"])
    three = TextDataset(
        "p3", "pairs", {"train": Split(["a", "b", "c"], [0, 1, 2], ["x", "y", "z"])}, label_names=["a", "b", "c"]
    )
    texts = TextDataset("t", "classification", {"train": Split(["a", "b"], [0, 1])}, label_names=["n", "p"])
    scores = TextDataset("r", "regression", {"train": Split(["a", "b"], [0.5, 2.0])})
    assert [serbertus.task_kind(d) for d in (pairs, three, texts, scores)] == [
        "binary",
        "classification",
        "classification",
        "regression",
    ]
    assert [serbertus.task_outputs(d) for d in (pairs, three, texts, scores)] == [1, 3, 2, 1]
    assert [serbertus.slot_for(d) for d in (pairs, texts, scores)] == ["qqp", "sst", "sts"]
    tagging = TextDataset("g", "tagging", {"train": Split([["a"]], [[0]])}, label_names=["x"])
    with pytest.raises(ValueError, match="tagging"):
        serbertus.task_kind(tagging)

    def pre(x):
        a, b = x if isinstance(x, tuple) else (x, None)
        ids = np.array([[2, len(t), 3] for t in a], "int32")
        return {"token_ids": ids, "segment_ids": 0 * ids, "padding_mask": np.ones_like(ids)}

    vocab = CompactVocabulary.fit([np.array([[2, 1, 3]])], 10, special_ids=[0, 1, 2, 3], unk_id=1, original_size=10)
    out = serbertus.task_inputs(pairs, pre, vocab)
    assert out["train"][0]["token_ids"].tolist() == [[2, 1, 3]] * 3 and out["train"][1].tolist() == [0, 1, 1]


def test_uncompiled_copy_saves_without_the_optimizer(tmp_path):
    data = {"sts": task_data()["sts"]}
    r = serbertus.run_setting(
        tiny(), data, KINDS, HEADS, serbertus.Setting(decay=0.9), serbertus.Recipe(learning_rate=1e-3, batch_size=4)
    )
    assert r.model.compiled
    copy = uncompiled_copy(r.model)
    assert not copy.compiled
    copy.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as z:
        assert not json.loads(z.read("config.json")).get("compile_config")  # absent, None or {} (tensorflow)
    loaded = keras.saving.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(
        predict_tasks(loaded, {"sts": data["sts"]["test"][0]}, KINDS)["sts"], r.test_predictions["sts"], atol=1e-5
    )


def test_compact_backbone_trains_like_the_full_one():
    """Same outputs on kept ids, and one AdamW step (clipped, weight decay) leaves them the same."""
    full = tiny(dropout=0.0)
    x = inputs(6, 0, low=4, high=20)  # the texts use ids 2, 3 and 4..19 only
    vocab = CompactVocabulary.fit([x["token_ids"]], VOCAB, special_ids=[0, 1, 2, 3], unk_id=1, original_size=VOCAB)
    small = compact_backbone(full, vocab)
    assert small.vocabulary_size == vocab.size < VOCAB and small.count_params() < full.count_params()
    y = np.arange(6) % 3
    models = []
    for bb, feed in ((full, x), (small, vocab(x))):
        keras.utils.set_random_seed(5)  # the same fresh head in both
        m = serbertus.build_model(bb, {"sst": 3}, "single", dropout=0.0)
        m.compile(
            keras.optimizers.AdamW(1e-2, weight_decay=0.01, global_clipnorm=1.0),
            loss={"sst": keras.losses.SparseCategoricalCrossentropy(from_logits=True)},
        )
        before = keras.ops.convert_to_numpy(bb(feed)["pooled_output"])
        models.append((m, feed, before))
    np.testing.assert_allclose(models[0][2], models[1][2], atol=1e-5)
    for m, feed, _ in models:
        m.train_on_batch(feed, {"sst": y})
    after = [keras.ops.convert_to_numpy(m(feed)["sst"]) for m, feed, _ in models]
    np.testing.assert_allclose(after[0], after[1], atol=1e-4)
    with pytest.raises(ValueError, match="fitted for"):
        compact_backbone(tiny(vocab=50), vocab)


def test_task_mean_needs_every_task():
    long = pd.DataFrame(
        [
            ("e", "a", "sst", 0, "test_score", 0.5),
            ("e", "a", "sts", 0, "test_score", 0.3),
            ("e", "b", "sst", 0, "test_score", 0.4),
        ],
        columns=["experiment", "setting", "task", "seed", "metric", "value"],
    )
    s = report.add_task_mean(report.scores(long), ["sst", "sts"])
    means = s[s.task == report.MEAN]
    assert means.setting.tolist() == ["a"] and means.value.tolist() == [pytest.approx(0.4)]
    assert report.table(s, ["sst", "sts"]).loc[("e", "b"), "sts"] == "-"
    with pytest.raises(KeyError, match="No scores"):
        report.summary(s, ("e", "c"), "sst")


def _fake_sweep(tmp_path, llrd_moves=True, learns=True):
    """A results.csv and saved test predictions for every planned run of a small grid, without training: the
    ablation task's scores come from the predictions, so the report's Welch and bootstrap lines can be checked."""
    from kit.metrics.task_scores import task_score

    sizes = {
        "ablation_task": "sst",
        "smart_lambdas": [10.0],
        "llrd_decays": [0.8],
        "mlm_steps": [5],
        "cerbertus_k": [1],
        "joint_triple": False,
        "combined": None,
        "seeds": [0, 1, 2],
        "batch_size": 4,
        "epochs": 1,
    }
    rng = np.random.default_rng(0)
    y = {"sst": rng.integers(0, 2, 60), "qqp": rng.integers(0, 2, 60).astype("float32"), "sts": rng.normal(size=60)}
    data = {t: {"train": (None, v[:40]), "dev": (None, v), "test": (None, v)} for t, v in y.items()}
    kinds = {"sst": "classification", "qqp": "binary", "sts": "regression"}
    sweep = Sweep(tmp_path / "results.csv", keys=serbertus.KEYS, log=lambda *a: None)
    plan = serbertus.plan(serbertus.settings(sizes, list(y)), sizes, {t: {"train": (None, np.zeros(8))} for t in y})
    skill = {"baseline": 0.8, "smart": 0.8, "llrd": 0.75 if llrd_moves else 0.8, "mlm": 0.8, "architecture": 0.85}
    for run in plan:
        rs = np.random.default_rng(
            hash((run["setting"], run["seed"])) % 2**32
            if run["experiment"] != "llrd" or llrd_moves
            else hash(("single-task", run["seed"])) % 2**32
        )
        good = rs.random(60) < (skill[run["experiment"]] if learns else 0.5)
        preds = {
            "sst": np.eye(2)[np.where(good, y["sst"], 1 - y["sst"])],
            "qqp": np.where(good, y["qqp"], 1 - y["qqp"]) * 0.8 + 0.1,
            "sts": y["sts"] * (1 if learns else 0) + rs.normal(size=60),
        }
        tasks = run["task"].split("+")
        r = serbertus.SettingResult(
            None,
            "x",
            dev={t: 0.5 for t in tasks},
            test={t: task_score(kinds[t], y[t], preds[t]) for t in tasks},
            dev_predictions={t: preds[t] for t in tasks},
            test_predictions={t: preds[t] for t in tasks},
            params=10,
            steps=1,
            seconds=1.0,
            smart_loss=0.1 if run["experiment"] == "smart" else None,
            mlm_curve={"step": [1, 5], "loss": [5.0, 4.0]} if run["experiment"] == "mlm" else None,
            train={t: 0.95 for t in tasks},
        )
        result = serbertus.to_run_result(r, epochs=1, mlm_steps=run.get("mlm_steps", 0))
        save_predictions(tmp_path, run, serbertus.KEYS, result.predictions)
        sweep.record(run, result)
    serbertus.record_ensembles(sweep, serbertus.ensembles(plan, tmp_path, data, kinds))
    return sizes, plan, data, kinds, sweep


def test_report_sentences_name_their_tests_and_the_checks_can_fail(tmp_path):
    sizes, plan, data, kinds, sweep = _fake_sweep(tmp_path)
    long = sweep.results()
    test, _ = report.results(long, list(data))
    guesses = {"sst": 0.5, "qqp": 0.5, "sts": 0.0}
    table = report.verdicts(plan, tmp_path, data, kinds, sizes, trained=report.budgets(long))
    # 3 ablations, then per task multi vs triple, CerBERTus k=1 vs multi, the ensemble vs its best single model
    assert len(table) == 3 + 3 * 3 and set(table.examples_a) == {60} and set(table.seeds_a) == {3}
    assert (
        table.comparison[0] == "SMART lambda_s=10 vs none (sst)"
        and table.comparison[4] == "CerBERTus k=1 vs multi-BERT (sst)"
    )
    mlm = table[table.comparison.str.startswith("5 MLM steps")].iloc[0]
    assert mlm.note.startswith("5 extra MLM steps") and mlm.verdict != "found"  # an unmatched budget is never found
    assert mlm.design == "budgets differ" and mlm.budget_a == "1 epochs, 6 steps"  # from the runs' records
    ens = table[table.comparison.str.startswith("dev-gated ensemble")].iloc[0]
    assert ens.design == "recipe comparison" and ens.effect == pytest.approx(1.26)  # the paper's Table 7, points
    # the faked architectures are right on 85% of examples against the baseline's 80%: a verdict Holm may keep or not,
    # but each sentence carries its row's verdict, and the Pearson rows were recomputed from predictions
    lines = report.sentences(table, test, sizes, list(data), guesses)
    assert all(f": {v} (Holm-corrected p" in x for x, v in zip(lines, table.verdict)), lines
    assert len(lines) == len(table) + 3 and lines[-1].startswith("sts: the baseline scores")
    sts = table[table.comparison == "multi-BERT vs triple-BERT (sts)"].iloc[0]
    want = test[(test.task == "sts") & (test.setting == "multi-BERT")].value.mean()
    want -= test[(test.task == "sts") & (test.setting == "single-task")].value.mean()
    assert sts.delta == pytest.approx(100 * want)
    for name in (
        "table_baseline.csv",
        "table_smart.csv",
        "table_llrd.csv",
        "table_mlm.csv",
        "table6_architectures.csv",
        "table7_ensemble.csv",
        "ensembles.csv",
        "verdicts.csv",
        "serbertus_results.png",
    ):
        (tmp_path / name).write_text("x")
    ok = report.checks(long, test, plan, sweep.done(), sizes, guesses, list(data), tmp_path)
    assert all(ok.values()), ok
    # a layer decay that changes nothing, and models that do not learn, are caught
    sizes, plan, data, kinds, sweep = _fake_sweep(tmp_path / "broken", llrd_moves=False, learns=False)
    long = sweep.results()
    test, _ = report.results(long, list(data))
    bad = report.checks(long, test, plan, sweep.done(), sizes, guesses, list(data), tmp_path)
    assert not bad["every baseline beats its constant guess (10 points of accuracy, Pearson 0.3)"]
    assert not bad["layer decay changed the test scores (it is applied)"]


def test_tables_and_the_figure_name_your_data_not_its_slot(tmp_path):
    """With your data in SST's place, the tables' columns and the figure's titles carry its name (issue 19)."""
    import matplotlib

    matplotlib.use("Agg")
    sizes, plan, data, kinds, sweep = _fake_sweep(tmp_path)
    long = sweep.results()
    test, dev = report.results(long, list(data))
    own = TextDataset("my_reviews", "classification", {"train": Split(["good", "bad"], [0, 1])}, label_names=["n", "p"])
    labels = report.task_labels(list(data), own, serbertus.slot_for(own))
    assert labels == {"sst": "my_reviews (in sst's place)", "qqp": "qqp", "sts": "sts"}
    base = report.named(report.baseline_table(test, dev, list(data), {"sst": 0.5, "qqp": 0.5, "sts": 0.0}), labels)
    assert "my_reviews (in sst's place)" in base.columns and "sst" not in base.columns
    smart = report.named(report.ablation_tables(test, long, "sst")["smart"], labels)
    assert list(smart.columns)[0] == "my_reviews (in sst's place)"
    arch, size = report.architectures(test, long, 0)
    fig = report.figure(test, dev, (arch, size), long, "sst", label=labels["sst"])
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0] == "SMART on my_reviews (in sst's place) (the paper's Figure 4)" and "my_reviews" in titles[2]
    table = report.verdicts(plan, tmp_path, data, kinds, sizes, labels=labels)
    assert table.comparison[0] == "SMART lambda_s=10 vs none (my_reviews (in sst's place))"
    lines = report.sentences(table, test, sizes, list(data), {"sst": 0.5, "qqp": 0.5, "sts": 0.0}, labels=labels)
    assert lines[0].startswith("SMART lambda_s=10 vs none (my_reviews (in sst's place)): ")
    assert any(x.startswith("my_reviews (in sst's place): the baseline scores") for x in lines)
    assert not any("(sst)" in x or x.startswith("sst:") for x in lines)


@pytest.mark.one_backend  # the notebook's plumbing; run_setting is tested on every backend
def test_the_experiment_records_runs_whole_with_their_parts_and_predictions(tmp_path):
    """Notebook 04's experiment through the shared contract: single-task and multitask runs, one write each."""
    from kit.text import BertPreprocessor, WordPieceTokenizer

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "good", "bad", "film", "play", "a", "dull", "fun"]
    pre = BertPreprocessor(WordPieceTokenizer(words), sequence_length=SEQ)
    texts = ["a good film", "a bad play", "a dull film", "a fun play"] * 3
    one = Split(texts, [4, 0, 1, 3] * 3)
    pairs = Split(texts, [1, 0, 0, 1] * 3, texts_b=texts[::-1])
    scores = Split(texts, [4.5, 0.5, 1.0, 3.5] * 3, texts_b=texts[1:] + texts[:1])
    datasets = {
        "sst": TextDataset("toy_sst", "classification", {s: one for s in ("train", "dev", "test")}, [*"abcde"]),
        "qqp": TextDataset("toy_qqp", "pairs", {s: pairs for s in ("train", "dev", "test")}, ["no", "yes"]),
        "sts": TextDataset("toy_sts", "pair_regression", {s: scores for s in ("train", "dev", "test")}),
    }
    data = {t: serbertus.task_inputs(ds, pre) for t, ds in datasets.items()}
    sizes = kit.papers.sizes("serbertus", "smoke") | dict(
        ablation_task="sst", smart_lambdas=[1.0], llrd_decays=[], mlm_steps=[], cerbertus_k=[], joint_triple=False,
        combined=None, seeds=[0], batch_size=4, epochs=1,
    )  # fmt: skip
    make = lambda: tiny(vocab=len(words))  # noqa: E731
    experiment = serbertus.Experiment(sizes, datasets, data, make, None, tmp_path, preprocessor=pre)
    plan = experiment.plan()
    assert [r["experiment"] for r in plan] == ["baseline"] * 3 + ["smart", "architecture"]
    for run in experiment.sweep.pending(plan):
        experiment.record(run, experiment.run_one(run))
    long = experiment.sweep.results(plan)
    multi = long[long.experiment == "architecture"]
    assert set(multi.task) == {"sst", "qqp", "sts", "sst+qqp+sts"}  # the run's parts came with it
    assert multi[multi.metric == "trained_steps"].value.tolist() == [3 * 3]  # 12 examples / 4 a batch, 3 tasks
    saved = serbertus.load_predictions(tmp_path, plan[-1])
    assert set(saved["test"]) == {"sst", "qqp", "sts"} and (tmp_path / "best_model" / "bundle.json").exists()
    ens = serbertus.ensembles(plan, tmp_path, data, experiment.kinds)
    assert set(ens.task) == {"sst", "qqp", "sts"}
