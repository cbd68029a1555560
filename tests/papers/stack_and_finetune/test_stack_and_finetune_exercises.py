"""Notebook 03's exercise set-up: the pieces each solution takes from ``stack_and_finetune_exercises``."""

import pytest

from kit.data import Split, TextDataset
from kit.papers import sizes
from kit.papers.stack_and_finetune import stack_and_finetune_exercises as ex
from kit.papers.stack_and_finetune.stack_and_finetune_runs import build_model, encode_task
from kit.text import BertPreprocessor, WordPieceTokenizer
from kit.train.freeze_helpers import ReusableBackbone
from tests.helpers import tiny_backbone

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "good", "bad", "film", "a", "play", "##s"]


def _setup():
    """An ExerciseSetup on a 1-layer BERT and 16 toy texts, as classification_setup would give it."""
    bert = tiny_backbone(
        0, vocabulary_size=len(VOCAB), num_layers=1, hidden_dim=8, hidden_activation="gelu_approximate"
    )
    s = Split(["a good film", "a bad film", "good plays", "bad plays"] * 4, [1, 0, 1, 1] * 4)
    ds = TextDataset("toy", "classification", {"train": s, "dev": s, "test": s}, ["neg", "pos"])
    task = encode_task(ds, BertPreprocessor(WordPieceTokenizer(VOCAB), sequence_length=8))
    return ex.ExerciseSetup(sizes("stack_and_finetune", "smoke"), True, "toy", task, bert, ReusableBackbone(bert),
                            0.75, [0])  # fmt: skip


def test_the_setup_gives_the_notebooks_rule_a_bert_adam_per_phase_and_the_test_accuracy():
    setup = _setup()
    assert setup.divergence() == {
        "threshold": setup.sizes["divergence_threshold"],
        "patience": setup.sizes["divergence_patience"],
    }
    make = setup.optimizer("stack_and_finetune", 2, 1)
    assert make(1e-3) is not make(1e-3)  # a fresh optimizer for every phase
    model = build_model(setup.encoder.fresh(), setup.task, pooling="mean")
    assert 0.0 <= setup.test_accuracy(model) <= 1.0
    assert setup.header("light head").startswith("toy: {'train': 16, 'dev': 16, 'test': 16}, light head, seeds [0]")
    assert setup.header("x").endswith("constant guess 75.0%")


def test_the_embedding_layers_it_fixes_are_the_backbones():
    bert = _setup().backbone
    assert all(bert.get_layer(name) is not None for name in ex.EMBEDDINGS)


def test_an_unknown_choice_of_fixed_layers_is_refused_before_anything_loads():
    with pytest.raises(ValueError, match="fixed"):
        ex.classification_setup(fixed="none")
