"""Dev-gated ensembling: averages unrounded predictions, rejects a model that would lower the dev score, per task."""

import numpy as np
import pytest

from kit.train.ensemble import dev_gated_ensemble, ensemble_table

KINDS = {"sst": "classification", "qqp": "binary", "sts": "regression"}


def probs(rows):
    p = np.asarray(rows, "float64")
    return p / p.sum(-1, keepdims=True)


Y = {"sst": np.array([0, 1, 2, 1]), "qqp": np.array([1, 0, 1, 0]), "sts": np.array([0.0, 1.0, 2.0, 3.0])}
PREDS = {
    # sst: a is right on 3/4, b on 3/4 (a different one), averaging fixes both; c is confidently wrong
    "a": {
        "sst": probs([[0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.5, 0.1, 0.4], [0.3, 0.6, 0.1]]),
        "qqp": np.array([0.9, 0.2, 0.4, 0.3]),
        "sts": np.array([0.1, 1.2, 1.9, 2.7]),
    },
    "b": {
        "sst": probs([[0.4, 0.5, 0.1], [0.1, 0.8, 0.1], [0.1, 0.3, 0.6], [0.2, 0.7, 0.1]]),
        "qqp": np.array([0.8, 0.4, 0.8, 0.6]),
        "sts": np.array([-0.1, 0.8, 2.1, 3.3]),
    },
    "c": {
        "sst": probs([[0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]]),
        "qqp": np.array([0.1, 0.9, 0.1, 0.9]),
        "sts": np.array([3.0, 0.5, 1.0, 0.0]),
    },
    "sst_only": {"sst": probs([[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.2, 0.3, 0.5], [0.2, 0.5, 0.3]])},
}


def score(kind, y, p):
    from kit.metrics.task_scores import task_score

    return task_score(kind, y, p)


def test_gate_per_task_with_hand_made_predictions():
    ens = dev_gated_ensemble(PREDS, Y, KINDS)
    # sst: sst_only is perfect alone and starts; a and b keep it perfect (ties are kept); c would drop it
    assert ens["sst"].members == ["sst_only", "a", "b"] and ens["sst"].dev_score == 1.0
    # qqp: a (3/4, first of the tie) starts, b lifts the average to 4/4; c would lower it -> rejected
    assert ens["qqp"].members == ["a", "b"]
    # sts: a and b err in opposite directions (their mean is exact); the anti-correlated model is rejected
    assert sorted(ens["sts"].members) == ["a", "b"] and ens["sts"].dev_score == pytest.approx(1.0)
    for task, e in ens.items():
        # the reported score is the score of the members' averaged, unrounded predictions
        avg = e.average({m: p[task] for m, p in PREDS.items() if task in p})
        assert score(KINDS[task], Y[task], avg) == pytest.approx(e.dev_score)
        # never below the best single model, and a rejected model would have lowered the score
        assert e.dev_score >= max(r["alone"] for r in e.trace)
    rejected = [r for r in ensemble_table(ens) if not r["accepted"]]
    assert {(r["task"], r["model"]) for r in rejected} == {("sst", "c"), ("qqp", "c"), ("sts", "c")}
    for r in rejected:  # each rejection really would have lowered that task's score at that point
        trace = ens[r["task"]].trace
        prior = [row for row in trace[: trace.index(r)] if row["accepted"]]
        assert r["with"] < prior[-1]["with"]


def test_averaging_is_unweighted_and_on_unrounded_predictions():
    y = np.array([1, 1, 0])
    preds = {"a": {"qqp": np.array([0.9, 0.45, 0.2])}, "b": {"qqp": np.array([0.3, 0.65, 0.1])}}
    # rounded votes would tie; the averaged probabilities (0.6, 0.55, 0.15) get all three right
    ens = dev_gated_ensemble(preds, {"qqp": y}, {"qqp": "binary"}, order="given")
    assert ens["qqp"].members == ["a", "b"] and ens["qqp"].dev_score == 1.0
    np.testing.assert_allclose(ens["qqp"].average({"a": preds["a"]["qqp"], "b": preds["b"]["qqp"]}), [0.6, 0.55, 0.15])


def test_order_and_errors():
    ens = dev_gated_ensemble(PREDS, {"qqp": Y["qqp"]}, KINDS, order="given")
    assert [r["model"] for r in ens["qqp"].trace] == ["a", "b", "c"]
    with pytest.raises(ValueError, match="order must be"):
        dev_gated_ensemble(PREDS, Y, KINDS, order="random")
    with pytest.raises(ValueError, match="No model has predictions for task 'mnli'"):
        dev_gated_ensemble(PREDS, {"mnli": Y["qqp"]}, {"mnli": "classification"})
    with pytest.raises(ValueError, match="differ in shape"):
        dev_gated_ensemble({"a": {"qqp": np.zeros(4)}, "b": {"qqp": np.zeros(3)}}, {"qqp": Y["qqp"]}, KINDS)
    with pytest.raises(ValueError, match="Unknown task kind"):
        dev_gated_ensemble(PREDS, {"qqp": Y["qqp"]}, {"qqp": "accuracy"})
    with pytest.raises(ValueError, match="are missing"):
        dev_gated_ensemble(PREDS, Y, KINDS)["sst"].average({"a": PREDS["a"]["sst"]})
