"""Attention maps out of the backbone, and TLM's positional/vertical head rule."""

import keras
import numpy as np
import pytest

from kit.analysis import attention_maps, classify_heads, head_statistics
from tests.helpers import tiny_inputs


def test_maps_are_probabilities_and_reproduce_the_backbone(tiny_bert):
    x = tiny_inputs(batch=3, seq=10)
    probs = attention_maps(tiny_bert, x)
    assert probs.shape == (2, 3, 2, 10, 10)  # layers, batch, heads, query, key
    np.testing.assert_allclose(probs.sum(-1), 1.0, atol=1e-5)
    assert probs[..., 7:].max() < 1e-6  # padding keys (last 3) get no attention
    # the layer-by-layer pass is the backbone's own computation
    from kit.models.backbone_parts import split_backbone

    parts = split_backbone(tiny_bert)
    h = parts.embeddings({"token_ids": x["token_ids"], "segment_ids": x["segment_ids"]})
    for layer in tiny_bert.transformer_layers:
        h = layer(h, padding_mask=keras.ops.convert_to_tensor(x["padding_mask"]))
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(h), keras.ops.convert_to_numpy(tiny_bert(x)["sequence_output"]), atol=1e-5
    )


def _probs(matrix, layers=1, heads=1):
    return np.broadcast_to(matrix, (layers, 1, heads) + matrix.shape).copy()


def test_rule_positional_vertical_other():
    n = 6
    ids = np.array([[101, 5, 6, 7, 1012, 102]])  # [CLS] a b c . [SEP]
    mask = np.ones((1, n), int)
    prev = np.eye(n, k=-1)
    prev[0, 1] = 1.0
    to_cls = np.zeros((n, n))
    to_cls[:, 0] = 1.0
    uniform = np.full((n, n), 1 / n) + np.eye(n) * 0.01  # argmax = self: neither
    probs = np.concatenate([_probs(prev), _probs(to_cls), _probs(uniform)], axis=2)
    labels = classify_heads(probs, ids, mask, special_ids=[101, 102, 1012])
    assert labels.tolist() == [["positional", "vertical", "other"]]
    pos, vert = head_statistics(probs, ids, mask, [101, 102, 1012])
    assert pos[0, 0] == 1.0 and vert[0, 1] == 1.0 and pos[0, 2] == 0.0


def test_rule_threshold_and_padding():
    n = 10
    ids = np.array([[101] + [5] * 8 + [102]])
    mask = np.ones((1, n), int)
    m = np.eye(n, k=-1)
    m[0, 1] = 1.0
    m[5] = 0.0
    m[5, 5] = 1.0  # one of ten tokens looks at itself: 90% adjacent, exactly the threshold
    assert classify_heads(_probs(m), ids, mask, [101, 102]).item() == "positional"
    m[6] = 0.0
    m[6, 6] = 1.0  # 80%: no longer positional
    assert classify_heads(_probs(m), ids, mask, [101, 102]).item() == "other"
    with pytest.raises(ValueError, match="expected"):
        classify_heads(np.zeros((2, 2)), ids, mask, [101])


# -- one layer's attention as the encoder computed it (notebook 00's self-attention view) ----------------------


def test_trace_records_the_forward_pass_of_one_layer(tiny_bert):
    from kit.analysis import trace_attention
    from kit.models.backbone_parts import split_backbone

    x = tiny_inputs(batch=2, seq=8)
    for layer in (0, 1):
        trace = trace_attention(tiny_bert, x, layer=layer)
        assert trace.weights.shape == (2, 2, 8, 8) and trace.output.shape == trace.inputs.shape == (2, 8, 16)
        np.testing.assert_allclose(trace.weights, attention_maps(tiny_bert, x)[layer], atol=1e-6)
        assert trace.weights[..., 5:].max() == 0.0  # the padding keys
        np.testing.assert_array_equal(trace.padding_mask, x["padding_mask"])
        assert "call" not in vars(trace.attention)  # the wrapper is gone after the pass
    first = split_backbone(tiny_bert).embeddings({"token_ids": x["token_ids"], "segment_ids": x["segment_ids"]})
    np.testing.assert_allclose(trace_attention(tiny_bert, x, 0).inputs, keras.ops.convert_to_numpy(first), atol=1e-6)
    mha = tiny_bert.transformer_layers[1]._self_attention_layer
    out = mha(query=trace.inputs, value=trace.inputs, attention_mask=x["padding_mask"][:, None, :].astype(bool))
    np.testing.assert_allclose(trace.output, keras.ops.convert_to_numpy(out), atol=1e-5)


def test_trace_leaves_the_backbone_as_it_was_and_refuses_a_missing_layer(tiny_bert):
    from kit.analysis import trace_attention

    x = tiny_inputs(batch=1, seq=6)
    before = keras.ops.convert_to_numpy(tiny_bert(x)["sequence_output"])
    trace_attention(tiny_bert, x, layer=1)
    np.testing.assert_array_equal(keras.ops.convert_to_numpy(tiny_bert(x)["sequence_output"]), before)
    with pytest.raises(ValueError, match="layers 0 to 1"):
        trace_attention(tiny_bert, x, layer=2)


def test_draw_attention_labels_both_axes_and_adds_a_colorbar():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from kit.analysis import draw_attention

    tokens = ["[CLS]", "a", "fine", "film", "[SEP]"]
    maps = np.stack([np.eye(6), np.full((6, 6), 1 / 6)])  # one padding position more than tokens: cut off
    fig = draw_attention(maps, tokens, titles=["itself", "even"])
    heat = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in heat] == ["itself", "even"]
    assert len(fig.axes) == 4  # two maps, a colorbar each
    for ax in heat:
        assert [t.get_text() for t in ax.get_xticklabels()] == tokens == [t.get_text() for t in ax.get_yticklabels()]
        assert ax.get_xlabel() and ax.get_ylabel() and ax.images[0].get_array().shape == (5, 5)
    assert all("{" not in ax.get_title() for ax in fig.axes)
    plt.close(fig)
    with pytest.raises(ValueError, match="covering 5 tokens"):
        draw_attention(np.eye(3), tokens)
    with pytest.raises(ValueError, match="1 titles for 2 maps"):
        draw_attention(maps, tokens, titles=["one"])
