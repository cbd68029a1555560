"""Entity-level precision/recall/F1 (conlleval / seqeval default-mode spans) and token accuracy, hand-worked."""

import pytest

from kit.metrics.tagging_scores import (
    entity_f1,
    entity_scores,
    get_entities,
    token_accuracy,
)

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend


@pytest.mark.parametrize(
    "tags,spans",
    [
        (["B-PER", "I-PER", "O", "B-LOC"], [("PER", 0, 1), ("LOC", 3, 3)]),  # BIO, entity at the end
        (["O", "B-ORG", "I-ORG"], [("ORG", 1, 2)]),  # multi-word entity at the end
        (["I-PER", "I-PER", "B-PER", "O"], [("PER", 0, 1), ("PER", 2, 2)]),  # IOB1: B- only between neighbours
        (["O", "I-LOC", "I-LOC", "O"], [("LOC", 1, 2)]),  # I- without B- starts an entity
        (["B-PER", "I-LOC", "I-LOC"], [("PER", 0, 0), ("LOC", 1, 2)]),  # type change splits
        (["B-PER", "B-PER"], [("PER", 0, 0), ("PER", 1, 1)]),
        (["I-MISC", "O", "I-MISC"], [("MISC", 0, 0), ("MISC", 2, 2)]),
        (["S-PER", "B-LOC", "E-LOC", "O"], [("PER", 0, 0), ("LOC", 1, 2)]),  # IOBES
        (["B", "I", "O", "I"], [("_", 0, 1), ("_", 3, 3)]),  # untyped tags
        (["O", "O"], []),
    ],
)
def test_get_entities(tags, spans):
    assert get_entities(tags) == spans


def test_seqeval_documented_example():
    y_true = [["O", "O", "O", "B-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]
    y_pred = [["O", "O", "B-MISC", "I-MISC", "I-MISC", "I-MISC", "O"], ["B-PER", "I-PER", "O"]]
    s = entity_scores(y_true, y_pred)
    assert (s["precision"], s["recall"], s["f1"]) == (0.5, 0.5, 0.5)
    assert s["per_type"]["MISC"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 1}
    assert s["per_type"]["PER"]["f1"] == 1.0
    assert token_accuracy(y_true, y_pred) == pytest.approx(0.8)


def test_asymmetric_precision_and_recall():
    # true: PER(0-1), LOC(3), ORG(5-6); pred: PER(0-1) right, LOC(3-4) wrong boundary
    y_true = [["B-PER", "I-PER", "O", "B-LOC", "O", "B-ORG", "I-ORG"]]
    y_pred = [["B-PER", "I-PER", "O", "B-LOC", "I-LOC", "O", "O"]]
    s = entity_scores(y_true, y_pred)
    assert (s["n_true"], s["n_pred"], s["n_correct"]) == (3, 2, 1)
    assert s["precision"] == 0.5 and s["recall"] == pytest.approx(1 / 3)
    assert s["f1"] == pytest.approx(0.4)


def test_type_mismatch_and_boundaries_score_zero():
    assert entity_f1([["B-PER", "I-PER"]], [["B-LOC", "I-LOC"]]) == 0.0
    assert entity_f1([["B-MISC", "I-MISC", "I-MISC"]], [["B-MISC", "I-MISC", "O"]]) == 0.0
    # IOB1 and BIO spellings of the same spans score perfectly against each other
    assert entity_f1([["I-PER", "I-PER", "O", "I-LOC"]], [["B-PER", "I-PER", "O", "B-LOC"]]) == 1.0


def test_sentences_never_join():
    y = [["O", "B-PER"], ["I-PER", "O"]]
    s = entity_scores(y, [["O", "B-PER"], ["B-PER", "O"]])
    assert s["n_true"] == 2 and s["f1"] == 1.0  # the I-PER opens a new entity in sentence 2


def test_ids_with_label_names_and_empty_cases():
    names = ["O", "B-PER", "I-PER"]
    assert entity_f1([[1, 2, 0]], [[1, 2, 0]], label_names=names) == 1.0
    s = entity_scores([["O", "O"]], [["O", "O"]])
    assert (s["precision"], s["recall"], s["f1"]) == (0.0, 0.0, 0.0)
    assert token_accuracy([[1, 2, -100]], [[1, 0, 5]], ignore=-100) == 0.5


def test_clear_errors():
    with pytest.raises(ValueError, match=r"tag 'NP' is not a chunk tag"):
        entity_f1([["NP", "O"]], [["O", "O"]])
    with pytest.raises(ValueError, match="y_pred\\[0\\], position 1"):
        entity_f1([["O", "O"]], [["O", "PER"]])
    with pytest.raises(ValueError, match="sentence 0: 2 true tags but 1 predicted"):
        entity_f1([["O", "O"]], [["O"]])
    with pytest.raises(ValueError, match="2 true sequences but 1 predicted"):
        token_accuracy([["O"], ["O"]], [["O"]])
    with pytest.raises(TypeError, match="label_names"):
        entity_f1([[0, 1]], [[0, 1]])
