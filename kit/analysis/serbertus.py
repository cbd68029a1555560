"""Reading notebook 04's ``results.csv``: scores per setting and task over seeds, the mean of the tasks, verdicts.

The CSV is long (``experiment, setting, task, seed, metric, value``, written by
:func:`kit.train.serbertus.record`). :func:`scores` keeps one metric as a
column ``value`` per (experiment, setting, task, seed); :func:`add_task_mean`
adds each run's mean over the tasks (the paper's headline "avg"), only where a
setting has a score for every task; :func:`table` shows mean ± standard error
over seeds, one column per task; :func:`compare` is the difference of two
settings on one task with its standard error and a verdict
(:func:`kit.analysis.difference`).

>>> import pandas as pd
>>> rows = [("baseline", "single-task", t, s, "test_score", v) for t, s, v in
...         [("sst", 0, 0.40), ("sst", 1, 0.44), ("sts", 0, 0.20), ("sts", 1, 0.30)]]
>>> rows += [("architecture", "multi-BERT", t, s, "test_score", v) for t, s, v in
...          [("sst", 0, 0.42), ("sst", 1, 0.42), ("sts", 0, 0.10), ("sts", 1, 0.14)]]
>>> long = pd.DataFrame(rows, columns=["experiment", "setting", "task", "seed", "metric", "value"])
>>> s = add_task_mean(scores(long), ["sst", "sts"])
>>> [str(v) for v in table(s, ["sst", "sts"]).loc[("architecture", "multi-BERT")]]
['42.0 ± 0.0', '12.0 ± 2.0', '27.0 ± 1.0', '2']
>>> compare(s, ("architecture", "multi-BERT"), ("baseline", "single-task"), "mean").text(100, " points")
'-6.5 ± 3.6 points (within the noise, 2 seeds each)'
"""

from __future__ import annotations

import numpy as np

from .spread import difference, format_mean_se, summarize

MEAN = "mean"


def scores(long, metric: str = "test_score"):
    """Rows ``experiment, setting, task, seed, value`` of one metric."""
    out = long[long.metric == metric][["experiment", "setting", "task", "seed", "value"]]
    return out.reset_index(drop=True)


def add_task_mean(frame, tasks, label: str = MEAN):
    """``frame`` plus, per (experiment, setting, seed) that scored every task in ``tasks``, a row ``task=label``
    with the mean of those scores."""
    import pandas as pd

    tasks = list(tasks)
    part = frame[frame.task.isin(tasks)]
    g = part.groupby(["experiment", "setting", "seed"], sort=False)
    full = g.task.nunique() == len(tasks)
    means = g.value.mean()[full].reset_index()
    means["task"] = label
    return pd.concat([frame, means[frame.columns]], ignore_index=True)


def table(frame, tasks, index=("experiment", "setting"), scale: float = 100.0, digits: int = 1):
    """Mean ± standard error over seeds: one row per ``index``, one column per task (and ``mean`` when present),
    and the number of seeds."""
    import pandas as pd

    index = list(index)
    cols = list(tasks) + ([MEAN] if (frame.task == MEAN).any() else [])
    s = summarize(frame[frame.task.isin(cols)], index + ["task"])
    text = {key: format_mean_se(r["mean"], r["se"], scale, digits) for key, r in s.iterrows()}
    rows = {}
    for key in dict.fromkeys(tuple(k[:-1]) for k in text):
        rows[key if len(key) > 1 else key[0]] = {c: text.get(key + (c,), "-") for c in cols}
        rows[key if len(key) > 1 else key[0]]["seeds"] = int(s.loc[[k for k in text if k[:-1] == key], "seeds"].max())
    out = pd.DataFrame.from_dict(rows, orient="index")
    if len(index) > 1:
        out.index = pd.MultiIndex.from_tuples(out.index, names=index)
    else:
        out.index.name = index[0]
    return out


def summary(frame, setting: tuple, task: str):
    """``summarize`` row (mean, se, std, seeds) of one (experiment, setting) on one task."""
    e, s = setting
    part = frame[(frame.experiment == e) & (frame.setting == s) & (frame.task == task)]
    if part.empty:
        raise KeyError(f"No scores for {setting} on task {task!r}.")
    return summarize(part.assign(key=0), "key").iloc[0]


def compare(frame, a: tuple, b: tuple, task: str):
    """``a - b`` on ``task`` (settings as ``(experiment, setting)``): a :class:`kit.analysis.spread.Difference`."""
    return difference(summary(frame, a, task), summary(frame, b, task))


def finite(values) -> bool:
    """True when every value is a finite number."""
    return bool(np.isfinite(np.asarray(values, dtype="float64")).all())
