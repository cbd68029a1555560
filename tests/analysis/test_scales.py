"""This run beside the committed medium run (kit/analysis/scales.py): settings of either scale, "not run" marked."""

import matplotlib
import pandas as pd
import pytest

from kit.analysis import scales

matplotlib.use("Agg")
pytestmark = pytest.mark.one_backend


def _long(rows):
    return pd.DataFrame(rows, columns=["model", "seed", "metric", "value"])


def test_settings_of_either_scale_with_their_seeds():
    smoke = _long([("a", 0, "acc", 0.5), ("a", 1, "acc", 0.7), ("b", 0, "acc", 0.9), ("b", 0, "loss", 1.0)])
    medium = _long([("a", s, "acc", 0.8 + s / 100) for s in range(5)] + [("c", 0, "acc", 0.4)])
    table = scales.scale_table(smoke, medium, ["model"], "acc")
    assert table.setting.tolist() == ["a", "b", "c"]  # this run's order, then medium's own
    assert table.smoke_seeds.tolist() == [2, 1, 0] and table.medium_seeds.tolist() == [5, 0, 1]
    assert table.loc[0, "smoke_mean"] == pytest.approx(0.6) and table.loc[0, "medium_mean"] == pytest.approx(0.82)
    assert table.smoke_se.isna().tolist() == [False, True, True]  # one seed: no spread
    with pytest.raises(ValueError, match="no metric 'f1'"):
        scales.scale_table(smoke, medium, ["model"], "f1")
    ax = scales.plot_scales(table, metric_label="accuracy (%)", guess={"smoke": 0.5, "medium": 0.45}, title="t")
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("not run at medium") == 1 and texts.count("not run at smoke") == 1
    assert "5 seeds" in texts and [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c"]
    labels = ax.get_legend_handles_labels()[1]
    assert "constant guess (medium)" in labels and "medium (mean ± SE)" in labels


def test_the_committed_medium_results_are_found():
    for notebook in ("01", "02_tlm", "03", "04"):
        frame = scales.medium_results(notebook)
        assert frame is not None and {"seed", "metric", "value"} <= set(frame.columns), notebook
    assert scales.medium_results("09") is None
