"""Notebook 03's run helpers: tasks for a BERT, light and rich heads, the encoder reset, one strategy run, scores."""

import keras
import numpy as np
import pandas as pd
import pytest

from kit.data import Split, TextDataset
from kit.metrics.classification import macro_f1
from kit.models import BertBackbone, TokenTaggerHead
from kit.optimizers import schedules
from kit.papers.stack_and_finetune.stack_and_finetune_report import (
    paper_comparison,
    phase1_story,
    plot_phase_curve,
    primary_metric,
    strategy_table,
)
from kit.papers.stack_and_finetune.stack_and_finetune_runs import (
    build_model,
    curve_rows,
    encode_task,
    score,
    train_strategy,
)
from kit.text import BertPreprocessor, WordPieceTokenizer
from kit.train.freeze import FreezeRecipe
from kit.train.freeze_helpers import (
    EncoderWatch,
    ReusableBackbone,
    optimizer_factory,
    planned_epochs,
)
from tests.helpers import tiny_backbone

VOCAB = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "good",
    "bad",
    "film",
    "a",
    "play",
    "##s",
    "mary",
    "went",
    "home",
    "to",
    "paris",
    ".",
]


def _pre(length=10):
    return BertPreprocessor(WordPieceTokenizer(VOCAB), sequence_length=length)


def _bert(seed=0, layers=1):
    return tiny_backbone(seed, vocabulary_size=len(VOCAB), num_layers=layers, hidden_dim=8)


def _classes():
    s = Split(["a good film", "a bad film", "good plays", "bad plays"] * 4, [1, 0, 1, 0] * 4)
    return TextDataset("toy", "classification", {"train": s, "dev": s, "test": s}, ["neg", "pos"])


def _pairs():
    s = Split(["a good film", "a bad play"] * 4, [1, 0] * 4, texts_b=["good", "bad film"] * 4)
    return TextDataset("toy_pairs", "pairs", {"train": s, "dev": s, "test": s}, ["different", "same"])


def _tags():
    sents = [["mary", "went", "to", "paris", "."], ["a", "good", "film", "."]] * 4
    labels = [[1, 0, 0, 1, 0], [0, 0, 0, 0]] * 4
    s = Split(sents, labels)
    return TextDataset("toy_ent", "tagging", {"train": s, "dev": s, "test": s}, ["O", "B-NP", "I-NP"])


def test_encode_task_kinds():
    c = encode_task(_classes(), _pre())
    assert c.kind == "classification" and c.sizes() == {"train": 16, "dev": 16, "test": 16} and c.num_labels == 2
    assert c.y["train"].dtype == np.int32 and c.words is None and not c.is_entity_task
    p = encode_task(_pairs(), _pre())
    assert p.x["train"]["segment_ids"].max() == 1
    t = encode_task(_tags(), _pre(8))
    assert t.is_entity_task and t.words["test"][0] == [1, 0, 0, 1, 0]
    assert t.y["train"][0].tolist()[:7] == [-100, 1, 0, 0, 1, 0, -100]
    assert t.info == {"train_truncated": 0, "dev_truncated": 0, "test_truncated": 0}
    assert t.steps_per_epoch(3) == 3 and t.sizes()["train"] == 8
    reg = TextDataset("r", "regression", {"train": Split(["a"], [0.5])})
    with pytest.raises(ValueError, match="regression"):
        encode_task(reg, _pre())


def test_light_and_rich_models():
    bert = _bert()
    task = encode_task(_classes(), _pre())
    light = build_model(bert, task, hidden_dim=4)
    assert light.get_layer("head").hidden_dim == 4 and bert.pooled_dense.trainable
    tags = encode_task(_tags(), _pre(8))
    tagger = build_model(bert, tags)
    head = tagger.get_layer("head")
    assert isinstance(head, TokenTaggerHead) and head.n_layers == 0 and head.hidden_dim == 8
    assert not bert.pooled_dense.trainable  # a token-state head: the pooler gets no gradient, so it is fixed
    assert tuple(tagger(tags.x["test"]).shape) == (8, 8, 3)


def test_reusable_backbone_resets_weights_and_flags():
    bert = _bert()
    before = [np.array(w) for w in bert.get_weights()]
    rb = ReusableBackbone(bert)
    task = encode_task(_classes(), _pre())
    recipe = FreezeRecipe(phase2_lr=1e-2, phase2_epochs=1, batch_size=8)
    run = train_strategy(build_model(rb.fresh(), task, hidden_dim=4), bert, task, "finetune_only", recipe)
    assert run.encoder_changed == [True]
    bert.token_embedding.trainable = False
    bert.pooled_dense.trainable = False
    assert not all(np.array_equal(a, b) for a, b in zip(before, bert.get_weights()))
    fresh = rb.fresh()
    assert fresh is bert and all(np.array_equal(a, b) for a, b in zip(before, bert.get_weights()))
    assert bert.token_embedding.trainable and bert.pooled_dense.trainable


def test_a_run_does_not_depend_on_what_ran_before():
    """Same seed, same outputs, even after another run used the shared backbone (dropout seeds are reset)."""
    from kit.config import set_seed

    rb = ReusableBackbone(_bert())
    task = encode_task(_classes(), _pre())

    def run(seed, epochs=2):
        set_seed(seed)
        model = build_model(rb.fresh(), task, hidden_dim=4, dropout=0.3)
        recipe = FreezeRecipe(phase2_lr=1e-2, phase2_epochs=epochs, batch_size=4)
        return train_strategy(model, rb.backbone, task, "finetune_only", recipe).test_outputs

    first = run(0)
    run(1, epochs=3)  # moves the backbone's dropout seed generators on
    np.testing.assert_allclose(run(0), first, rtol=1e-5, atol=1e-6)


def test_mean_pooling_light_head_builds_and_refuses_other_poolings():
    bert = _bert()
    task = encode_task(_classes(), _pre())
    model = build_model(bert, task, hidden_dim=4, pooling="mean")
    assert model.get_layer("mean_pool") is not None
    x = {k: np.array(v[:2]) for k, v in task.x["test"].items()}
    out = keras.ops.convert_to_numpy(model(x))
    assert out.shape == (2, 2) and np.isfinite(out).all()
    with pytest.raises(ValueError, match="pooling"):
        build_model(bert, task, pooling="max")


@pytest.mark.one_backend  # the notebook's runner; its Keras parts (freeze scheduler, EncoderWatch) are tested on
# every backend, and so is this runner under mixed_bfloat16 (the last test)
@pytest.mark.parametrize(
    "strategy,changed", [("finetune_only", [True]), ("stack_only", [False]), ("stack_and_finetune", [False, True])]
)
def test_train_strategy_watches_the_encoder(strategy, changed):
    bert = _bert()
    task = encode_task(_tags(), _pre(8))
    model = build_model(bert, task, TokenTaggerHead(3, cells=4, name="bilstm"))
    recipe = FreezeRecipe(
        phase1_lr=1e-2, phase2_lr=1e-3, phase1_epochs=2, phase2_epochs=1, batch_size=8, divergence=None
    )
    run = train_strategy(model, bert, task, strategy, recipe)
    assert run.encoder_changed == changed and run.test_outputs.shape == (8, 8, 3)
    summary = run.summary()
    assert summary["phase1_encoder_frozen"] == int(strategy != "finetune_only")
    assert summary["phase1_encoder_changed"] == int(strategy == "finetune_only")
    assert run.steps == sum(p.epochs for p in run.result.phases) * 1
    if strategy == "stack_and_finetune":
        assert summary["phase2_trainable_params"] > summary["phase1_trainable_params"]
    s = score(task, run.test_outputs)
    assert set(s) == {"token_accuracy", "entity_f1", "entity_precision", "entity_recall", "entities"}
    assert s["entities"] == 8


def test_encoder_watch_sees_one_changed_bit():
    d = keras.layers.Dense(2)
    d.build((None, 3))
    w = EncoderWatch(d)
    w.on_train_begin()
    w.on_train_end()
    w.on_train_begin()
    k = np.array(keras.ops.convert_to_numpy(d.kernel))
    k[0, 0] = np.nextafter(k[0, 0], np.float32(np.inf))
    d.kernel.assign(k)
    w.on_train_end()
    assert w.changed == [False, True]


def test_optimizers_one_per_phase_with_bert_schedule():
    make = optimizer_factory("stack_and_finetune", steps_per_epoch=5, phase1_epochs=4, phase2_epochs=2)
    a, b, _ = make(1e-3), make(2e-5), make(2e-5)  # a third phase-2 optimizer is made too
    assert isinstance(a, keras.optimizers.AdamW) and isinstance(b, keras.optimizers.AdamW)
    assert a._learning_rate.total_steps == 20 and a._learning_rate.peak == 1e-3  # phase 1: 4 epochs x 5 steps
    assert b._learning_rate.total_steps == 10 and b._learning_rate.peak == 2e-5  # phase 2: 2 epochs x 5 steps
    sched = schedules.WarmupLinearDecay(1e-3, total_steps=20, warmup_steps=2)
    assert schedules.WarmupLinearDecay(**sched.get_config()).get_config() == sched.get_config()
    values = [float(sched(i)) for i in range(21)]
    assert values[1] == pytest.approx(1e-3) and values[-1] == 0.0 and max(values) == pytest.approx(1e-3)
    assert all(x >= y for x, y in zip(values[1:], values[2:]))
    const = optimizer_factory("finetune_only", 5, 4, 2, schedule="constant")(3e-4)
    assert float(const.learning_rate) == pytest.approx(3e-4)
    with pytest.raises(ValueError, match="schedule"):
        optimizer_factory("finetune_only", 5, 4, 2, schedule="cosine")
    assert [planned_epochs(s, 3, 2) for s in ("finetune_only", "stack_only", "stack_and_finetune")] == [2, 3, 5]


# --- scoring and tables ---------------------------------------------------------------------------------


def test_scores_by_hand():
    task = encode_task(_classes(), _pre())
    logits = np.tile([[0.0, 1.0]], (16, 1))  # always "pos": half right
    s = score(task, logits)
    assert s["accuracy"] == 0.5 and s["macro_f1"] == pytest.approx((0 + 2 / 3) / 2)
    assert macro_f1([0, 1], [0, 1], 3) == 1.0 and primary_metric(task) == "accuracy"
    tags = encode_task(_tags(), _pre(8))
    assert primary_metric(tags) == "entity_f1"
    perfect = np.zeros((8, 8, 3), "float32")
    for i, a in enumerate(tags.aligned["test"].word_ids):
        for t, w in enumerate(a):
            if w >= 0:
                perfect[i, t, tags.words["test"][i][w]] = 1.0
    assert score(tags, perfect)["entity_f1"] == 1.0 and score(tags, perfect)["token_accuracy"] == 1.0
    short = encode_task(_tags(), _pre(5))  # "mary went to" fits, "paris ." are cut: wrong, never dropped
    s = score(short, np.zeros((8, 5, 3), "float32"))
    assert s["token_accuracy"] == pytest.approx((4 * 2 + 4 * 3) / (4 * 5 + 4 * 4))
    assert s["entity_f1"] == 0.0


def _results():
    rows = []
    for seed, (ft, so, sf) in enumerate([(0.80, 0.70, 0.84), (0.82, 0.72, 0.86)]):
        rows += [
            ("t", "light", "finetune_only", seed, "accuracy", ft),
            ("t", "rich", "stack_only", seed, "accuracy", so),
            ("t", "rich", "stack_and_finetune", seed, "accuracy", sf),
        ]
    return pd.DataFrame(rows, columns=["task", "model", "strategy", "seed", "metric", "value"])


def test_strategy_table_shows_scores_and_no_verdicts_and_the_paper_column_quotes_the_verdict_table():
    t = strategy_table(_results(), "accuracy")
    row = t.loc[("t", "rich")]
    assert row["finetune-only (light head)"] == "81.0 ± 1.0" and row["stack-and-finetune"] == "85.0 ± 1.0"
    assert row["stack-only"] == "71.0 ± 1.0"
    assert not any("noise" in str(v) or "larger" in str(v) for v in row.values)  # verdicts: the verdict table's only
    with pytest.raises(ValueError, match="No rich-head rows"):
        strategy_table(_results(), "f1")
    paper = [
        {
            "experiment": "X",
            "section": "classification",
            "metric": "accuracy",
            "a": ("rich", "stack_and_finetune"),
            "b": ("light", "finetune_only"),
            "paper": 0.72,
            "says": "+0.72%",
            "direction": 1,
        },
        {
            "experiment": "X",
            "section": "classification",
            "metric": "accuracy",
            "a": ("ensemble", "stack_only"),
            "b": ("light", "finetune_only"),
            "paper": None,
            "says": "?",
            "direction": 1,
        },
    ]
    verdicts = pd.DataFrame(
        {
            "comparison": ["t accuracy: rich stack_and_finetune - light finetune_only"],
            "delta": [4.0],
            "low": [-1.5],
            "high": [9.5],
            "verdict": ["noise"],
        }
    )
    side = paper_comparison(verdicts, paper, {"classification": "t"})
    assert side["ours (points, 95% interval)"].tolist() == ["+4.0 [-1.5, +9.5]", "not run"]
    assert side["paper (points)"].tolist() == ["+0.72", "(direction only)"]
    assert side["ours vs the paper"].tolist() == ["within the noise (the paper's sign)", "not run"]
    verdicts.loc[0, "verdict"] = "found"  # "found" there only where the table says found
    assert paper_comparison(verdicts, paper, {"classification": "t"})["ours vs the paper"][0] == "same direction, found"
    # the paper's own table: no "+nan" where it gives only a direction
    from kit.papers.stack_and_finetune.stack_and_finetune_paper import COMPARISONS

    ours = paper_comparison(verdicts, COMPARISONS, {"classification": "t"})
    assert not ours["paper (points)"].str.contains("nan").any()


def test_matched_budget_runs_finetune_only_for_both_phases():
    from kit.papers.stack_and_finetune.stack_and_finetune_runs import (
        MATCHED,
        plan,
        recipe_of,
    )

    class T:
        def steps_per_epoch(self, batch_size):
            return 10

    sizes = {
        "seeds": [0, 1, 2],
        "phase1_epochs": 4,
        "phase2_epochs": 2,
        "batch_size": 16,
        "rich_head_finetune": False,
        "matched_budget": True,
    }
    rows = plan({"t": ["light", "bimpm"]}, sizes, {"t": T()})
    steps = {(r["model"], r["strategy"]): r["steps"] for r in rows}
    assert steps == {
        ("light", "finetune_only"): 20,
        ("light", MATCHED): 60,
        ("bimpm", "stack_only"): 40,
        ("bimpm", "stack_and_finetune"): 60,
    }
    assert len(rows) == 4 * 3
    recipe = FreezeRecipe(phase1_epochs=4, phase2_epochs=2)
    assert recipe_of(MATCHED, recipe)[1].phase2_epochs == 6 and recipe_of("stack_only", recipe) == (
        "stack_only",
        recipe,
    )
    rows = _results()
    extra = pd.DataFrame(
        [("t", "light", MATCHED, seed, "accuracy", v) for seed, v in enumerate([0.83, 0.85])], columns=rows.columns
    )
    t = strategy_table(pd.concat([rows, extra]), "accuracy").loc[("t", "rich")]
    assert t["finetune-only, same epochs as S&F"] == "84.0 ± 1.0"


@pytest.mark.one_backend  # the notebook's curves and story; train_strategy is tested on every backend
def test_curves_and_the_phase1_story():
    bert = _bert()
    task = encode_task(_classes(), _pre())
    model = build_model(bert, task, hidden_dim=4)
    recipe = FreezeRecipe(
        1e-2, 1e-3, phase1_epochs=2, phase2_epochs=1, batch_size=8, divergence={"threshold": 0.0, "patience": 1}
    )
    run = train_strategy(model, bert, task, "stack_and_finetune", recipe)
    rows = curve_rows(run, task="t", seed=0)
    assert [r["phase"] for r in rows][-1] == "phase2" and rows[0]["task"] == "t"
    assert rows[0]["encoder_frozen"] and not rows[-1]["encoder_frozen"]
    story = phase1_story(rows)
    assert story.startswith("phase 1 ran") and ("stopped because" in story or "epoch cap" in story)
    hand = [{"phase": "phase1", "train": 0.9, "dev": 0.7, "stopped": ""}] * 2
    assert phase1_story(hand) == (
        "phase 1 ran 2 epochs (train 0.900, dev 0.700 at the end); it reached its epoch cap without diverging"
    )
    hand[-1] = {**hand[-1], "stopped": "train - dev > 0.05"}
    assert phase1_story(hand).endswith("; stopped because train - dev > 0.05")
    assert phase1_story([r for r in rows if r["phase"] == "phase2"]) == "no phase 1 (finetune-only)"
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    plot_phase_curve(ax, pd.DataFrame(rows), title="t")
    assert len(ax.lines) >= 2
    plt.close(fig)


def test_truncated_backbone_is_the_bottom_of_the_original():
    from kit.models.truncate import truncate_backbone

    bert = _bert(layers=3)
    x = _pre()(["a good film", "mary went to paris ."])
    assert truncate_backbone(bert, None) is bert and truncate_backbone(bert, 3) is bert
    one = truncate_backbone(bert, 1)
    assert one.num_layers == 1 and one.hidden_activation == "gelu" and isinstance(one, BertBackbone)
    for name in ("token_embedding", "transformer_layer_0", "pooled_dense"):
        for a, b in zip(one.get_layer(name).get_weights(), bert.get_layer(name).get_weights()):
            np.testing.assert_array_equal(a, b)
    # the copy computes what the original computes up to its first layer
    from kit.models.backbone_parts import split_backbone

    emb = split_backbone(bert).embeddings({"token_ids": x["token_ids"], "segment_ids": x["segment_ids"]})
    first = bert.transformer_layers[0](emb, padding_mask=x["padding_mask"])
    out1 = keras.ops.convert_to_numpy(one(x)["sequence_output"])
    np.testing.assert_allclose(out1, keras.ops.convert_to_numpy(first), atol=1e-6)
    assert not np.allclose(out1, keras.ops.convert_to_numpy(bert(x)["sequence_output"]))
    with pytest.raises(ValueError, match="between 1 and 3"):
        truncate_backbone(bert, 4)


@pytest.mark.parametrize("pooling", ["cls", "mean"])
def test_a_strategy_run_trains_under_mixed_bfloat16(pooling):
    """Stack-and-finetune under mixed precision: bfloat16 activations (the mean pool too), float32 weights, finite."""
    keras.mixed_precision.set_global_policy("mixed_bfloat16")
    try:
        bert = _bert()
        task = encode_task(_classes(), _pre())
        model = build_model(bert, task, hidden_dim=4, pooling=pooling)
        if pooling == "mean":
            assert model.get_layer("mean_pool").compute_dtype == "bfloat16"
        recipe = FreezeRecipe(phase1_lr=1e-2, phase2_lr=1e-3, phase1_epochs=1, phase2_epochs=1, batch_size=8)
        run = train_strategy(model, bert, task, "stack_and_finetune", recipe)
        assert run.encoder_changed == [False, True] and np.isfinite(run.test_outputs).all()
        assert all(w.dtype == "float32" for w in model.weights if "float" in str(w.dtype))
    finally:
        keras.mixed_precision.set_global_policy("float32")
