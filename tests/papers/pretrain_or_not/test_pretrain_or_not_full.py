"""Notebook 01 at full scale is the paper's setting: RoBERTa-Base on star-rated Yelp reviews. Its plumbing runs on a
RoBERTa (a tiny random one in $KIT_PRESET_DIR/roberta_base_en, the real one's layout): the models are named after
it, the transformer is the whole RoBERTa, the "+ RoBERTa emb" LSTM reads its token table, the timing table times it."""

import numpy as np
import pytest

import kit
from kit.data.dataset import Split, TextDataset
from kit.papers.pretrain_or_not import pretrain_or_not_runs as runs

pytestmark = pytest.mark.one_backend  # a notebook's plumbing (kit/papers): its layers are tested on every backend


def test_full_scale_names_roberta_and_star_rated_yelp():
    sizes = kit.papers.sizes("pretrain_or_not", "full")
    assert sizes["backbone"] == "roberta_base_en" and sizes["dataset"] == "yelp_full"
    assert "1-5 stars" in str(kit.data.registry.REGISTRY["yelp_full"])  # star ratings, not polarity
    assert list(runs.models(sizes)) == ["LSTM-2-256", "LSTM-4-256 + RoBERTa emb", "RoBERTa-Base fine-tuned"]
    assert runs.models(sizes)["RoBERTa-Base fine-tuned"] == ("transformer", None, None)  # every layer
    smoke = kit.papers.sizes("pretrain_or_not", "smoke")
    assert runs.transformer_of(runs.models(smoke)) == "MiniLM-L6 (bottom 3 layers) fine-tuned"


def test_the_runs_on_a_roberta(roberta_preset, tmp_path, monkeypatch):
    (tmp_path / "roberta_base_en").symlink_to(roberta_preset[0], target_is_directory=True)
    monkeypatch.setenv("KIT_PRESET_DIR", str(tmp_path))
    rng = np.random.default_rng(0)
    words = ["the", "film", "fine", "a", "in", "theatre", "dull", "bright"]

    def split(n):
        return Split([" ".join(rng.choice(words, 6)) for _ in range(n)], rng.integers(0, 5, n))

    ds = TextDataset(
        "stars",
        "classification",
        {"train": split(40), "dev": split(10), "test": split(10)},
        label_names=[f"{k} stars" for k in range(1, 6)],
    )
    sizes = kit.papers.sizes("pretrain_or_not", "full") | {
        "sequence_length": 16,
        "lstm_sizes": [[1, 8]],
        "lstm_plus_pretrained": [1, 8],
        "embedding_dim": 8,
        "lstm_epochs": 2,
        "lstm_min_steps": 0,
    }
    enc = kit.models.load_backbone(sizes["backbone"], sequence_length=16)
    inputs = runs.Inputs.prepare(ds, 40, 16, enc.preprocessor)
    table = kit.models.backbone_token_table(enc)
    experiment = runs.Experiment(ds, sizes, inputs, table, enc, tmp_path / "out", train_sizes=[40])
    model = experiment.make_model(experiment.models["RoBERTa-Base fine-tuned"])
    backbone = next(layer for layer in model.layers if isinstance(layer, kit.models.BertBackbone))
    assert backbone.num_layers == 2 and backbone.layer_norm_epsilon == 1e-5  # the whole (tiny) RoBERTa
    assert model(inputs.of("transformer", "test")).shape == (10, 5)
    lstm = experiment.make_model(experiment.models["LSTM-1-8 + RoBERTa emb"])
    assert lstm.get_layer("embedding").padding_id == enc.tokenizer.pad_token_id == 1  # RoBERTa's <pad>, not <s>
    timing = runs.time_models(experiment, repeats=1, batch_sizes=[2], sequence_length=16)
    assert list(timing.model) == ["LSTM-2-256", "LSTM-4-256", "LSTM-4-256 + RoBERTa emb", "RoBERTa-Base"]
    assert "speed-up vs RoBERTa" in runs.timing_view(timing).columns
    run = dict(model="LSTM-1-8", train_examples=40, seed=0, steps=2)  # one run through the sweep's contract
    result = experiment.run_one(run)
    assert result.trained["epochs"] == 2 and result.trained["steps"] == 2 * -(-40 // sizes["lstm_batch"])
    experiment.record(run, result)
    recorded = experiment.sweep.results([run]).set_index("metric").value
    assert recorded["test_accuracy"] == experiment.predictions(run)["correct"].mean() == result.metrics["test_accuracy"]
    assert recorded["trained_epochs"] == 2 and not list(experiment.sweep.pending([run]))
