"""TLM: dynamic masking, the compact vocabulary, the rho1/rho2 stream, the two-output model, stage 1 training."""

import math

import keras
import numpy as np
import pytest

from kit.models import TLMModel, tlm_backbone
from kit.testing import run_layer_test
from kit.text import CompactVocabulary, MLMMasker
from kit.train import Stage1Recipe, TLMBatches, evaluate_mlm, set_mlm_prior, train_stage1, unigram_log_prior

PAD, UNK, CLS, SEP, MASK = 0, 1, 2, 3, 4
SPECIALS = [PAD, UNK, CLS, SEP]


def make_inputs(n=64, seq=12, vocab=40, seed=0, pad_from=None):
    rng = np.random.default_rng(seed)
    ids = rng.integers(5, vocab, (n, seq)).astype("int32")
    ids[:, 0] = CLS
    lengths = rng.integers(4, seq + 1, n) if pad_from is None else np.full(n, pad_from)
    mask = (np.arange(seq)[None, :] < lengths[:, None]).astype("int32")
    ids[np.arange(n), lengths - 1] = SEP
    ids = ids * mask
    return {"token_ids": ids, "segment_ids": np.zeros_like(ids), "padding_mask": mask}


def masker(vocab=40, seq=12, **kw):
    return MLMMasker(vocab, MASK, SPECIALS, sequence_length=seq, **kw)


# --- dynamic masking -------------------------------------------------------------------------------------------


def test_masker_rates_and_targets():
    x = make_inputs(n=4000, seq=40, vocab=500)
    m = masker(vocab=500, seq=40, max_predictions=12)
    out = m(x["token_ids"], x["padding_mask"], np.random.default_rng(0))
    rows = np.arange(len(x["token_ids"]))[:, None]
    chosen = out["mask_weights"] > 0
    # targets are the original tokens, never specials or padding
    np.testing.assert_array_equal(out["mask_ids"][chosen], x["token_ids"][rows, out["mask_positions"]][chosen])
    assert not np.isin(out["mask_ids"][chosen], SPECIALS + [MASK]).any()
    assert (x["padding_mask"][rows, out["mask_positions"]][chosen] == 1).all()
    # 15% of the real non-special tokens per sequence (at least one)
    n_real = ((x["padding_mask"] == 1) & ~np.isin(x["token_ids"], SPECIALS)).sum(1)
    np.testing.assert_array_equal(chosen.sum(1), np.minimum(np.maximum(1, np.round(0.15 * n_real)), 12))
    # positions within a row are distinct
    for r in range(50):
        p = out["mask_positions"][r][chosen[r]]
        assert len(set(p.tolist())) == len(p)
    # 80% [MASK], 10% random, 10% unchanged
    new = out["token_ids"][rows, out["mask_positions"]][chosen]
    orig = out["mask_ids"][chosen]
    share_mask = (new == MASK).mean()
    share_same = (new == orig).mean()
    assert abs(share_mask - 0.8) < 0.01, share_mask
    assert abs(share_same - 0.1) < 0.015, share_same  # unchanged (+ the rare random draw of the same id)
    # nothing else in the input changes
    untouched = np.ones_like(x["token_ids"], bool)
    untouched[np.broadcast_to(rows, chosen.shape)[chosen], out["mask_positions"][chosen]] = False
    np.testing.assert_array_equal(out["token_ids"][untouched], x["token_ids"][untouched])


def test_masker_is_seeded_and_dynamic():
    x = make_inputs()
    m = masker()
    a = m(x["token_ids"], x["padding_mask"], np.random.default_rng(1))
    b = m(x["token_ids"], x["padding_mask"], np.random.default_rng(1))
    c = m(x["token_ids"], x["padding_mask"], np.random.default_rng(2))
    np.testing.assert_array_equal(a["mask_positions"], b["mask_positions"])
    assert not np.array_equal(a["mask_positions"], c["mask_positions"])


def test_masker_errors():
    with pytest.raises(ValueError, match="mask_rate"):
        masker(mask_rate=1.5)
    with pytest.raises(ValueError, match="max_predictions or sequence_length"):
        MLMMasker(40, MASK, SPECIALS)
    with pytest.raises(ValueError, match="outside the vocabulary"):
        MLMMasker(40, 99, SPECIALS, max_predictions=2)
    with pytest.raises(ValueError, match=r"\(batch, sequence\)"):
        masker()(np.ones(5, "int32"), np.ones(5, "int32"), np.random.default_rng(0))


def test_masker_for_tokenizer_and_compact_vocabulary(minilm):
    tok = minilm.tokenizer
    ids = minilm.preprocessor(["a fine film about nothing", "the cat sat on the mat."])
    specials = [tok.token_to_id(t) for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")]
    vocab = CompactVocabulary.for_tokenizer(tok, [ids["token_ids"]], 30)
    by_hand = CompactVocabulary.fit([ids["token_ids"]], 30, specials, tok.token_to_id("[UNK]"), tok.vocabulary_size())
    np.testing.assert_array_equal(vocab.old_ids, by_hand.old_ids)
    m = MLMMasker.for_tokenizer(tok, 40, vocabulary=vocab)
    assert m.vocabulary_size == vocab.size and m.mask_token_id == 4
    assert m.special_token_ids == [0, 1, 2, 3, 4]
    small = vocab(ids)
    np.testing.assert_array_equal(vocab.decode(small["token_ids"]), ids["token_ids"])  # all kept: lossless
    assert vocab.coverage(ids["token_ids"], ids["padding_mask"]) == 1.0
    full = MLMMasker.for_tokenizer(tok, 40)
    assert full.vocabulary_size == 30522 and full.mask_token_id == tok.token_to_id("[MASK]")


# --- compact vocabulary ----------------------------------------------------------------------------------------


def test_compact_vocabulary_keeps_the_most_frequent():
    ids = np.array([[2, 50, 50, 50, 60, 60, 70, 3]])
    v = CompactVocabulary.fit([ids], max_size=6, special_ids=[0, 1, 2, 3], unk_id=1, original_size=100)
    assert v.old_ids.tolist() == [0, 1, 2, 3, 50, 60]
    assert v.encode(ids).tolist() == [[2, 4, 4, 4, 5, 5, 1, 3]]
    assert v.decode(v.encode([50, 60])).tolist() == [50, 60]
    assert v.coverage(ids) == pytest.approx(7 / 8)
    with pytest.raises(ValueError, match="leaves no room"):
        CompactVocabulary.fit([ids], max_size=4, special_ids=[0, 1, 2, 3], unk_id=1)
    with pytest.raises(ValueError, match="unk_id must be one of"):
        CompactVocabulary.fit([ids], max_size=8, special_ids=[0, 2, 3], unk_id=1)
    with pytest.raises(ValueError, match="No token ids"):
        CompactVocabulary.fit([np.zeros((0,), "int32")], max_size=8, special_ids=[0, 1], unk_id=1)


# --- the rho1 / rho2 stream ------------------------------------------------------------------------------------


@pytest.mark.parametrize("rho1,expected", [(0, "IIIIII"), (1, "IEIEIE"), (3, "IEEEIE"), (math.inf, "EEEEEE")])
def test_stream_interleaves_rho1_external_batches(rho1, expected):
    x = make_inputs()
    recipe = Stage1Recipe(rho1=rho1, rho2=20, steps=6, batch_size=8)
    s = TLMBatches((x, np.zeros(64, int)), x, masker(), recipe)
    assert "".join(s.kind(i)[0].upper() for i in range(6)) == expected
    # chunks continue the same stream
    tail = TLMBatches((x, np.zeros(64, int)), x, masker(), recipe, steps=3, start=3)
    assert [tail.kind(i) for i in range(3)] == [s.kind(i) for i in range(3, 6)]
    np.testing.assert_array_equal(tail[1][0]["token_ids"], s[4][0]["token_ids"])


@pytest.mark.parametrize("normalize,w_mlm,w_task", [(True, 20 / 21, 1 / 21), (False, 20.0, 1.0)])
def test_stream_weights(normalize, w_mlm, w_task):
    x = make_inputs()
    y = np.arange(64) % 3
    s = TLMBatches(
        (x, y), x, masker(), Stage1Recipe(rho1=1, rho2=20, steps=4, batch_size=8, normalize_internal=normalize)
    )
    (xi, yi, wi), (_, _, we) = s[0], s[1]
    assert set(xi) == {"token_ids", "segment_ids", "padding_mask", "mask_positions"}
    np.testing.assert_allclose(wi["task"], w_task, rtol=1e-6)
    np.testing.assert_allclose(we["task"], 0.0)
    for w, scale in ((wi["mlm"], w_mlm), (we["mlm"], 1.0)):  # mean over the masked tokens, times the weight
        assert w.sum() / w.size == pytest.approx(scale, rel=1e-5)
        assert (w[w > 0] == w[w > 0][0]).all()
    assert yi["task"].dtype == y.dtype and set(yi["task"].tolist()) <= {0, 1, 2}


def test_stream_visits_every_internal_example_and_masks_afresh():
    x = make_inputs(n=24, pad_from=12)  # 10 maskable tokens per row, 2 masked
    y = np.arange(24)
    s = TLMBatches((x, y), None, masker(), Stage1Recipe(rho1=0, rho2=1, steps=6, batch_size=8))
    first_pass = np.concatenate([s[i][1]["task"] for i in range(3)])
    assert sorted(first_pass.tolist()) == list(range(24))  # one pass = a permutation
    second_pass = np.concatenate([s[i][1]["task"] for i in range(3, 6)])
    assert sorted(second_pass.tolist()) == list(range(24))
    # an example seen twice is masked afresh: most of the 24 get other positions the second time
    first = {int(r): set(p.tolist()) for i in range(3) for r, p in zip(s[i][1]["task"], s[i][0]["mask_positions"])}
    second = {int(r): set(p.tolist()) for i in range(3, 6) for r, p in zip(s[i][1]["task"], s[i][0]["mask_positions"])}
    assert sum(first[r] != second[r] for r in range(24)) >= 18


def test_stream_errors():
    x = make_inputs()
    y = np.zeros(64, int)
    recipe = Stage1Recipe(rho1=1, rho2=20, steps=4, batch_size=8)
    with pytest.raises(ValueError, match="no external data was given"):
        TLMBatches((x, y), None, masker(), Stage1Recipe(rho1=3, rho2=20, steps=4, batch_size=8))
    with pytest.raises(ValueError, match="an integer or math.inf"):
        Stage1Recipe(rho1=2.5, rho2=20, steps=4, batch_size=8)
    with pytest.raises(ValueError, match="labels for 64"):
        TLMBatches((x, y[:10]), x, masker(), recipe)
    with pytest.raises(ValueError, match="internal.*empty"):
        empty = {k: v[:0] for k, v in x.items()}
        TLMBatches((empty, y[:0]), x, masker(), recipe)
    with pytest.raises(ValueError, match="preprocessor's dict"):
        TLMBatches(({"token_ids": x["token_ids"]}, y), x, masker(), recipe)
    with pytest.raises(ValueError, match="rho1 and rho2 must be >= 0"):
        Stage1Recipe(rho1=1, rho2=-1, steps=4, batch_size=8)
    with pytest.raises(ValueError, match="batch_size and steps must be >= 1"):
        Stage1Recipe(rho1=1, rho2=20, steps=0, batch_size=8)
    with pytest.raises(ValueError, match="schedule must be one of"):
        Stage1Recipe(rho1=1, rho2=20, steps=4, batch_size=8, schedule="linear")


# --- the model -------------------------------------------------------------------------------------------------


def small_model(vocab=40, seq=12, classes=3, p=2, dropout=0.0, pooling="cls"):
    bb = tlm_backbone(
        vocab, num_layers=1, num_heads=2, hidden_dim=16, intermediate_dim=32, max_sequence_length=seq, dropout=dropout
    )
    return TLMModel(bb, num_classes=classes, max_predictions=p, dropout=dropout, pooling=pooling)


def test_tlm_model_layer_contract():
    x = make_inputs(n=4, seq=12)
    x["mask_positions"] = np.ones((4, 2), "int32")
    bb = tlm_backbone(40, num_layers=1, num_heads=2, hidden_dim=16, intermediate_dim=32, max_sequence_length=12)
    run_layer_test(
        TLMModel,
        {"backbone": bb, "num_classes": 3, "max_predictions": 2},
        x,
        expected_output_shape={"task": (4, 3), "mlm": (4, 2, 40)},
    )


def test_tlm_model_ties_mlm_output_to_token_embedding_and_round_trips(tmp_path):
    model = small_model()
    assert model.mlm_head.token_embedding is model.backbone.token_embedding
    vocab_tables = [w for w in model.weights if len(w.shape) == 2 and 40 in tuple(w.shape)]
    assert len(vocab_tables) == 1  # the output projection reuses the embedding table, no second 40 x 16
    x = make_inputs(n=4)
    x["mask_positions"] = np.array([[1, 2]] * 4, "int32")
    before = model.predict(x, verbose=0)
    path = tmp_path / "tlm.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    after = loaded.predict(x, verbose=0)
    for key in ("task", "mlm"):
        np.testing.assert_allclose(after[key], before[key], atol=1e-5)
    assert loaded.mlm_head.token_embedding is loaded.backbone.token_embedding
    assert len(loaded.weights) == len(model.weights)


def test_classifier_view_shares_weights():
    model = small_model()
    clf = model.classifier()
    x = make_inputs(n=4)
    before = clf.predict(x, verbose=0)
    x2 = dict(x, mask_positions=np.ones((4, 2), "int32"))
    np.testing.assert_allclose(model.predict(x2, verbose=0)["task"], before, atol=1e-5)
    emb = model.backbone.token_embedding.embeddings
    emb.assign(np.full(tuple(emb.shape), 0.5, "float32"))
    assert not np.allclose(clf.predict(x, verbose=0), before)
    assert {id(w) for w in clf.weights} <= {id(w) for w in model.weights}


def test_compiled_loss_is_the_documented_objective():
    """Keras' total loss on one batch equals w_mlm * mean CE over masked tokens + w_task * mean task CE."""
    keras.utils.set_random_seed(0)
    model = small_model()
    x = make_inputs()
    y = np.arange(64) % 3
    s = TLMBatches((x, y), x, masker(), Stage1Recipe(rho1=1, rho2=5, steps=2, batch_size=8, normalize_internal=True))
    from kit.train.tlm_training import compile_stage1

    compile_stage1(model, learning_rate=1e-3, steps=10)
    for i, (w_mlm, w_task) in enumerate([(5 / 6, 1 / 6), (1.0, 0.0)]):
        xb, yb, wb = s[i]
        got = model.evaluate(xb, yb, sample_weight=wb, verbose=0, return_dict=True)["loss"]
        out = model.predict(xb, verbose=0)

        def ce(logits, target):
            logits = logits.astype("float64") - logits.max(-1, keepdims=True)
            logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
            return -np.take_along_axis(logp, target[..., None].astype("int64"), -1)[..., 0]

        masked = wb["mlm"] > 0
        want = w_mlm * ce(out["mlm"], yb["mlm"])[masked].mean() + w_task * ce(out["task"], yb["task"]).mean()
        assert got == pytest.approx(want, rel=1e-4), (i, got, want)


# --- training --------------------------------------------------------------------------------------------------


def test_stage1_trains_and_counts():
    """A skewed token distribution is learnable in a few dozen steps: the MLM loss must fall."""
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = make_inputs(n=96, seq=12, vocab=40, pad_from=12)
    x["token_ids"][:, 1:-1] = rng.choice([5, 6, 7, 8, 9, 20], size=(96, 10), p=[0.5, 0.2, 0.1, 0.1, 0.05, 0.05])
    y = (x["token_ids"][:, 1] == 5).astype("int64")
    model = small_model(p=2)
    seen = []
    recipe = Stage1Recipe(
        rho1=1,
        rho2=1,
        steps=60,
        batch_size=16,
        learning_rate=1e-2,
        chunks=3,
        mlm_prior="zero",  # from log |V|: the fall is the head learning the skew (the prior would start there)
    )
    r = train_stage1(
        model, (x, y), x, masker(max_predictions=2), recipe, progress=lambda done, total, logs: seen.append(done)
    )
    assert seen == [20, 40, 60]
    assert (r.internal_batches, r.external_batches) == (30, 30)
    assert r.tokens == 60 * 16 * 12
    assert r.curve["step"] == [20, 40, 60] and len(r.curve["loss"]) == 3
    assert r.curve["mlm_loss"][-1] < r.curve["mlm_loss"][0] - 0.3, r.curve
    ev = evaluate_mlm(model, x, masker(max_predictions=2))
    assert ev["mlm_accuracy"] > 0.4 and ev["masked_tokens"] == 96 * 2  # the majority token is 50%; chance 1/40
    assert evaluate_mlm(model, x, masker(max_predictions=2)) == ev  # fixed masking: repeatable


def test_stage1_learns_the_task():
    """Notebook 02's bug: stage 1 left the classifier at the majority class. The task is which of two
    words a text holds; after stage 1 (rho1=3, rho2=20, MLM on external batches too) the task head
    must clearly beat the majority class."""
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(1)
    x = make_inputs(n=256, seq=12, vocab=40, pad_from=12)
    y = rng.integers(0, 2, 256)
    x["token_ids"][:, 1:-1] = rng.integers(12, 40, (256, 10))
    x["token_ids"][np.arange(256), rng.integers(1, 11, 256)] = np.where(y == 1, 5, 6)  # the label's word
    ext = make_inputs(n=256, seq=12, vocab=40, seed=2, pad_from=12)
    model = small_model(classes=2, pooling="mean")
    recipe = Stage1Recipe(rho1=3, rho2=20, steps=400, batch_size=32, learning_rate=5e-3, chunks=2)
    train_stage1(model, (x, y), ext, masker(max_predictions=2), recipe)
    acc = float((model.classifier().predict(x, verbose=0).argmax(-1) == y).mean())
    # the majority class is ~0.5 (256 texts: one standard error is 0.03). On torch, seeds 0-2: 0.88-0.93 with the
    # MLM bias at 0, 0.79-0.88 with the unigram prior (the default). Here the label words are the two most frequent,
    # and a zero bias lets the MLM enlarge exactly their embeddings, which the mean head then reads
    assert acc > 0.75, acc


# --- the MLM head's unigram prior ---------------------------------------------------------------------------------


def test_unigram_log_prior_counts_real_tokens_only():
    x = make_inputs(n=50, seq=12, vocab=40)
    logp = unigram_log_prior([x, None], vocabulary_size=40, special_token_ids=SPECIALS + [MASK])
    real = x["token_ids"][(x["padding_mask"] == 1) & ~np.isin(x["token_ids"], SPECIALS)]
    counts = np.bincount(real, minlength=40) + 0.5
    np.testing.assert_allclose(logp, np.log(counts / counts.sum()), rtol=1e-5)
    assert logp.dtype == np.float32 and abs(np.exp(logp).sum() - 1) < 1e-5
    assert logp[CLS] == logp[MASK] == logp[PAD] == logp.min()  # never counted: the smoothing alone
    with pytest.raises(ValueError, match="outside the vocabulary of 30"):
        unigram_log_prior([x], vocabulary_size=30)
    with pytest.raises(ValueError, match="smoothing must be > 0"):
        unigram_log_prior([x], vocabulary_size=40, smoothing=0)
    only_specials = {"token_ids": np.full((2, 4), CLS), "padding_mask": np.ones((2, 4), int)}
    with pytest.raises(ValueError, match="no token to count"):
        unigram_log_prior([only_specials], vocabulary_size=40, special_token_ids=SPECIALS)


def test_mlm_prior_starts_the_loss_at_the_unigram_entropy():
    """With the prior the untrained model's MLM loss is the unigram cross-entropy (not log |V|): the head knows
    the frequencies before the first step, so the encoder need not learn them (kit.train.mlm_prior)."""
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = make_inputs(n=256, seq=12, vocab=40, pad_from=12)
    x["token_ids"][:, 1:-1] = rng.choice([5, 6, 7, 8, 9, 20], size=(256, 10), p=[0.5, 0.2, 0.1, 0.1, 0.05, 0.05])
    model, m = small_model(), masker(max_predictions=2)
    before = evaluate_mlm(model, x, m)["mlm_loss"]
    logp = unigram_log_prior([x], 40, m.special_token_ids)
    set_mlm_prior(model, logp)
    after = evaluate_mlm(model, x, m)["mlm_loss"]
    real = x["token_ids"][:, 1:-1].ravel()
    cross_entropy = -float(logp[real].mean())  # the unigram's loss on these tokens
    assert abs(before - np.log(40)) < 0.1, before
    assert abs(after - cross_entropy) < 0.1, (after, cross_entropy)
    with pytest.raises(ValueError, match="shape"):
        set_mlm_prior(model, logp[:30])
    with pytest.raises(ValueError, match="no built `mlm_head`"):
        set_mlm_prior(model.classifier(), logp)


@pytest.mark.parametrize("prior", ["unigram", "zero"])
def test_stage1_sets_the_prior_it_is_asked_for(prior):
    x = make_inputs(n=64, seq=12, pad_from=12)
    ext = make_inputs(n=64, seq=12, seed=3, pad_from=12)
    model, m = small_model(), masker(max_predictions=2)
    recipe = Stage1Recipe(rho1=1, rho2=1, steps=2, batch_size=16, learning_rate=0.0, chunks=1, mlm_prior=prior)
    train_stage1(model, (x, np.arange(64) % 3), ext, m, recipe)
    bias = keras.ops.convert_to_numpy([w for w in model.mlm_head.weights if w.path.endswith("output_bias")][0])
    expected = unigram_log_prior([x, ext], 40, m.special_token_ids) if prior == "unigram" else np.zeros(40)
    np.testing.assert_allclose(bias, expected, atol=1e-6)  # learning rate 0: what stage 1 started from
    with pytest.raises(ValueError, match="mlm_prior must be one of"):
        Stage1Recipe(rho1=1, rho2=1, steps=2, batch_size=16, mlm_prior="bert")
    with pytest.raises(TypeError, match="recipe must be a kit.train.Stage1Recipe"):
        train_stage1(model, (x, np.arange(64) % 3), ext, m, {"rho1": 1, "rho2": 1, "steps": 2, "batch_size": 16})


def test_mean_pooling_head_round_trips(tmp_path):
    model = small_model(pooling="mean")
    x = make_inputs(n=4, seq=12)
    x["mask_positions"] = np.ones((4, 2), "int32")
    path = tmp_path / "tlm.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert loaded.pooling == "mean"
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(loaded(x)["task"]), keras.ops.convert_to_numpy(model(x)["task"]), atol=1e-5
    )
    with pytest.raises(ValueError, match="pooling must be one of"):
        small_model(pooling="max")


@pytest.mark.parametrize("policy", ["mixed_bfloat16", "mixed_float16"])
def test_stage1_under_mixed_precision(policy):
    if policy == "mixed_float16" and keras.backend.backend() == "jax":
        import jax

        if jax.default_backend() == "cpu":
            pytest.skip("XLA:CPU has no float16 matmul with float32 accumulation (kit.config refuses it there)")
    keras.config.set_dtype_policy(policy)
    try:
        model = small_model()
        x = make_inputs(n=64, seq=12, pad_from=12)
        recipe = Stage1Recipe(rho1=1, rho2=1, steps=8, batch_size=16, learning_rate=1e-3, chunks=2)
        r = train_stage1(model, (x, np.arange(64) % 3), x, masker(max_predictions=2), recipe)
        ev = evaluate_mlm(model, x, masker(max_predictions=2))
    finally:
        keras.config.set_dtype_policy("float32")
    assert np.isfinite(r.curve["loss"]).all() and np.isfinite(ev["mlm_loss"])
    assert model.backbone.compute_dtype == policy.split("_")[1]


def test_evaluate_mlm_memory_stays_small_with_the_full_vocabulary():
    """3,000 texts x 3 predictions x 30,522 words: 2.2 GB as one float64 array; scored batch by batch it is not."""
    import tracemalloc

    seq, vocab = 16, 30522
    bb = tlm_backbone(vocab, num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=16, max_sequence_length=seq)
    model = TLMModel(bb, num_classes=2, max_predictions=3)
    x = make_inputs(n=3000, seq=seq, vocab=vocab)
    m = MLMMasker(vocab, MASK, SPECIALS, max_predictions=3)
    tracemalloc.start()
    ev = evaluate_mlm(model, x, m, batch_size=64)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert ev["masked_tokens"] > 3000 and peak < 300e6, f"peak {peak / 1e6:.0f} MB"


def test_evaluate_mlm_rejects_empty_input():
    with pytest.raises(ValueError, match="no texts"):
        evaluate_mlm(small_model(), {k: v[:0] for k, v in make_inputs().items()}, masker())


def test_topic_nearness_finds_bm25_nearer_than_random():
    from kit.data import Split, TextDataset
    from kit.papers.tlm.tlm_report import topic_nearness
    from kit.retrieval import random_retrieval, select_external

    rng = np.random.default_rng(0)
    cats = ["cat", "kitten", "purr", "whiskers", "meow", "litter", "feline"]
    cars = ["car", "engine", "wheel", "brake", "fuel", "garage", "driver"]
    other = ["river", "mountain", "poem", "history", "music", "bread", "winter"]

    def text(words, n=8):
        return " ".join(rng.choice(words, n))

    texts = [text(cats) for _ in range(30)] + [text(cars) for _ in range(30)]
    labels = [0] * 30 + [1] * 30
    split = Split(texts=texts, labels=labels)
    ds = TextDataset("toy", "classification", {"train": split, "dev": split, "test": split}, ["cats", "cars"])
    corpus = [text(cats) for _ in range(100)] + [text(cars) for _ in range(100)] + [text(other) for _ in range(800)]
    sel = select_external(texts, corpus, k=3)
    selections = {("toy", "random", 3): random_retrieval(len(corpus), len(sel), seed=0)}
    t = topic_nearness({"toy": ds}, {("toy", 3): sel}, selections, corpus, k=3)
    row = t.loc["toy"]
    assert row["classifier dev accuracy"] == 1.0
    assert row["BM25: near"] > 0.9 and row["random: near"] < 0.7, t


@pytest.mark.one_backend
def test_table7_names_both_stages():
    """Table 7 puts the two-stage score beside the score without stage 2, under readable names (not raw keys)."""
    import pandas as pd

    from kit.papers.tlm.tlm_report import ablation_tables

    rows = [
        {
            "task": t,
            "rho1": 3,
            "rho2": 20,
            "K": 8,
            "retrieval": "bm25",
            "seed": s,
            "test_accuracy": 0.8 + s / 100,
            "stage1_test_accuracy": 0.6,
            "test_macro_f1": 0.7,
            "stage1_test_macro_f1": 0.5,
        }
        for t in ("bbc", "rt")
        for s in (0, 1, 2)
    ]
    tlm = pd.DataFrame(rows)
    sizes = {"ablation_task": "bbc", "rho1": 3, "rho2": 20, "k": 8}
    ours, _ = ablation_tables(tlm, tlm.rho1 == 3, sizes)["table7_stage2"]
    assert list(ours.columns) == [
        "two-stage (acc)",
        "without stage 2 (acc)",
        "two-stage (F1)",
        "without stage 2 (F1)",
        "seeds",
    ]
    assert ours.loc["bbc", "without stage 2 (acc)"].startswith("0.600")
