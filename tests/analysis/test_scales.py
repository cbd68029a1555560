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


def test_labels_stand_apart_from_the_data_and_each_other():
    from tests.helpers import assert_readable, overlapping_texts

    smoke = _long([(m, s, "acc", v + s / 100) for m, v in (("a", 0.9), ("b", 0.2), ("c", 0.55)) for s in range(3)])
    medium = _long([("a", s, "acc", 0.3 + s / 50) for s in range(4)] + [("d", 0, "acc", 0.99)])
    table = scales.scale_table(smoke, medium, ["model"], "acc")
    runs = [("a", 0.25), ("a", 0.98)]  # each medium run of "a", beyond its mean ± SE
    ax = scales.plot_scales(table, metric_label="accuracy (%)", guess={"smoke": 0.15, "medium": 0.1}, runs=runs)
    assert overlapping_texts(ax) == []
    left, right = ax.get_xlim()
    notes = [t for t in ax.texts if t.get_text().startswith("not run")]
    points = [15, 10, 20, 98, 99]  # the lowest and highest things drawn: guesses, "b", a medium run, "d"
    assert left < min(points) - 0.25 * (right - left) and right > max(points) + 0.1 * (right - left)
    assert all(t.get_position()[0] < 0.05 for t in notes) and len(notes) == 3  # in the gutter, left of every point
    seeds = [t for t in ax.texts if "seed" in t.get_text()]
    assert all(t.get_position()[0] > 0.95 and t.get_ha() == "right" for t in seeds)  # right of every point
    assert [len(line.get_xdata()) for line in ax.lines if line.get_label() == "a medium run"] == [1]
    assert ax.get_ylim() == (-0.6, len(table) - 0.4)
    assert_readable(ax.figure, words=["not run at smoke", "4 seeds", "a medium run"])
