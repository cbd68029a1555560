"""The keras-hub (and Keras) internals the kit relies on are still there.

keras-hub has no public API for these, so a new keras-hub could rename them. This test names each one, what the
kit uses it for, and the fix, so an upgrade fails here with a clear message instead of somewhere deep in a notebook.
pyproject.toml caps keras-hub below 1.0 for the same reason.
"""

import keras
import keras_hub
import pytest

from tests.helpers import tiny_backbone

BACKBONE_ATTRS = {  # attribute: what the kit uses it for
    "token_embedding": "SMART's embedding split, TLM's tied MLM head, the LSTM's pretrained token table",
    "position_embedding": "kit.models.split_backbone (SMART adds its noise after the embeddings)",
    "segment_embedding": "kit.models.split_backbone",
    "embeddings_add": "kit.models.split_backbone",
    "embeddings_layer_norm": "kit.models.split_backbone",
    "embeddings_dropout": "kit.models.split_backbone",
    "transformer_layers": "split_backbone, attention maps, layer-wise LR decay, CerBERTus' per-task copies",
    "pooled_dense": "split_backbone and CerBERTus' per-task poolers",
    "cls_token_index": "split_backbone's pooled output",
}
FIX = (
    "the kit was written against keras-hub 0.32; install keras-hub>=0.32,<1 (pip install 'keras-hub<1') or update "
    "the kit where this attribute is used"
)


@pytest.fixture(scope="module")
def backbone():
    return tiny_backbone(vocabulary_size=30, hidden_dim=8, max_sequence_length=8)


@pytest.mark.parametrize("attr", sorted(BACKBONE_ATTRS))
def test_bert_backbone_attributes(backbone, attr):
    assert hasattr(backbone, attr), (
        f"keras-hub {keras_hub.__version__}: BertBackbone has no {attr!r}, which the kit "
        f"uses for {BACKBONE_ATTRS[attr]}; {FIX}."
    )


def test_transformer_layer_internals(backbone):
    layer = backbone.transformer_layers[0]
    assert isinstance(layer, keras_hub.layers.TransformerEncoder), (
        f"keras-hub {keras_hub.__version__}: BERT's layers are no longer TransformerEncoder; {FIX}."
    )
    dense = getattr(layer, "_feedforward_intermediate_dense", None)
    assert dense is not None and hasattr(dense, "activation"), (
        f"keras-hub {keras_hub.__version__}: TransformerEncoder._feedforward_intermediate_dense is gone; the kit sets "
        f"its activation to the exact GELU that HuggingFace checkpoints need (kit.models.BertBackbone); {FIX}."
    )
    assert dense.activation is keras.activations.gelu  # the fix took effect
    import inspect

    assert "return_attention_scores" in inspect.signature(layer.call).parameters, (
        f"keras-hub {keras_hub.__version__}: TransformerEncoder.call lost return_attention_scores, which "
        f"kit.analysis.attention_maps uses; {FIX}."
    )


def test_preset_utils():
    from keras_hub.src.utils import preset_utils

    for name in ("TOKENIZER_ASSET_DIR", "get_file", "load_json"):
        assert hasattr(preset_utils, name), (
            f"keras-hub {keras_hub.__version__}: keras_hub.src.utils.preset_utils.{name} is gone; "
            f"kit.models.backbones.preset_tokenizer reads keras-hub presets' vocabularies with it; {FIX}."
        )


def test_masked_lm_head_ties_to_an_embedding(backbone):
    head = keras_hub.layers.MaskedLMHead(vocabulary_size=30, token_embedding=backbone.token_embedding)
    assert head.token_embedding is backbone.token_embedding, (
        f"keras-hub {keras_hub.__version__}: MaskedLMHead no longer keeps the token embedding it is tied to "
        f"(kit.models.TLMModel relies on it); {FIX}."
    )


def test_keras_layer_walk():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    assert hasattr(model, "_flatten_layers"), (
        f"Keras {keras.__version__}: Layer._flatten_layers is gone; the freeze scheduler, SMART and "
        "count_params_without_embeddings walk sublayers with it. Install keras>=3.15,<4 or update the kit."
    )
