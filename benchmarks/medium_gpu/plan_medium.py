"""Notebooks 01-04's medium plans: what each costs on one GPU and what each can detect; ``python plan_medium.py``.

Three parts, each printed as the Markdown tables of README.md's "Sizing medium" section:

1. **The cost model checked** (``kit.analysis.cost``): every logged run of this folder (``NN_run.log``: its seconds
   from the progress lines) beside what its paper's ``MEDIUM_COSTS`` predict for it, per kind; the constants of the
   logged kinds refitted here (``fit``) beside the stored ones.
2. **The plans' minutes** before and after the sizing (``kit.papers.costs.medium_minutes``; ``BEFORE``: the medium
   sizes the sizing changed, as they were), and what each part of the sized plans costs.
3. **What each verdict row can detect at medium** (``kit.analysis.power``): per row of each notebook's verdict table
   at medium, the paper's effect, the arms' spread over seeds (measured at medium where a run was logged, else
   assumed: ``ARMS``), the test set's part (``example_variance``, the arms' per-example results correlated by
   ``CORRELATION``), the seeds it needs and what the chosen seeds detect at Holm's strictest level.

The runs were measured with four notebooks sharing the GPU; "alone" divides by ``kit.analysis.cost.CONTENTION``.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from kit.analysis.cost import RunCost, fit, plan_cost, read_progress  # noqa: E402
from kit.analysis.power import MOST_SEEDS, detectable_with, example_variance, seeds_needed  # noqa: E402
from kit.papers import costs, sizes  # noqa: E402

NOTEBOOKS = {"01": "pretrain_or_not", "02": "tlm", "03": "stack_and_finetune", "04": "serbertus"}
KEYS = {
    "01": ["model", "train_examples", "seed"],
    "02": ["experiment", "task", "retrieval", "K", "rho1", "rho2", "seed"],
    "03": ["task", "model", "strategy", "seed"],
    "04": ["experiment", "setting", "task", "seed"],
}
#: How much the two arms' per-example results move together on a shared test set (planning; README says why).
CORRELATION = (0.3, 0.5, 0.7)
#: Token accuracy's words are clustered in sentences: the words count as this many times fewer examples.
WORDS_DESIGN_EFFECT = 2.0


# -- 1. the cost model against the logged runs ---------------------------------------------------------------------
def logged(nb: str) -> pd.DataFrame:
    """The logged runs of notebook ``nb``: keys, ``seconds`` (from the log), ``steps`` and the kit's run dict."""
    runs = pd.DataFrame(read_progress((HERE / f"{nb}_run.log").read_text(encoding="utf-8").splitlines()))
    d = pd.read_csv(HERE / f"{nb}_results.csv")
    res = d.pivot_table(index=KEYS[nb], columns="metric", values="value", sort=False).reset_index()
    for k in KEYS[nb]:
        res[k] = res[k].map(lambda v: str(int(v)) if isinstance(v, float) else str(v))
    out = runs.merge(res, on=KEYS[nb], suffixes=("", "_recorded"))
    if nb == "02":
        out["steps"] = 1084  # 1,000 stage-1 steps and 3 epochs of 28 batches (the log's plan: 34,586 for 29 runs)
    return out


def _run(nb: str, row) -> dict:
    """A logged row as the kit's plan row (the keys ``cost_kind`` and ``cost_programs`` read)."""
    run = {k: row[k] for k in KEYS[nb]}
    if nb == "02":
        run.update(rho1=int(run["rho1"]), rho2=int(run["rho2"]))
    if nb == "04":
        run["architecture"] = None
    return run


def predicted(nb: str) -> pd.DataFrame:
    """Each logged run's seconds beside the prediction of its paper's stored ``MEDIUM_COSTS`` (compiles included)."""
    table = costs.sizes_module(NOTEBOOKS[nb])
    runs, seen, rows = logged(nb), set(), []
    for _, row in runs.iterrows():
        run = _run(nb, row)
        kind, progs = table.cost_kind(run), table.cost_programs(run)
        new = [p for p in progs if p not in seen] if int(row["seed"]) == 0 or nb == "04" else []
        if nb == "04" and row["setting"] == "lambda_s=1" and row["seed"] == "1":
            new = list(progs)  # its seed 0 was the run by hand: seed 1 compiled in the sweep
        seen.update(progs)
        c = RunCost(*table.MEDIUM_COSTS[kind])
        rows.append(dict(nb=nb, kind=kind, steps=row["steps"], seconds=row["seconds"],
                         first=bool(new), predicted=c.seconds(row["steps"], len(new) / len(progs))))  # fmt: skip
    return pd.DataFrame(rows)


def check_table() -> pd.DataFrame:
    """Per notebook and kind: runs, measured and predicted seconds (sums), the mean absolute relative error."""
    frame = pd.concat([predicted(nb) for nb in NOTEBOOKS], ignore_index=True)
    frame["error"] = (frame.predicted - frame.seconds).abs() / frame.seconds
    return frame.groupby(["nb", "kind"]).agg(
        runs=("seconds", "size"), measured=("seconds", "sum"), predicted=("predicted", "sum"), error=("error", "mean")
    )


def refit() -> dict:
    """The logged kinds' constants fitted again here (what ``MEDIUM_COSTS`` stores, for the tests to compare)."""
    out = {}
    for nb in ("01", "03", "04"):
        frame = predicted(nb)
        for kind, g in frame.groupby("kind"):
            if nb == "03" and kind.startswith("bilstm"):
                continue  # the BiLSTM's phases are fitted jointly (the sizes' comment)
            out[(nb, kind)] = fit(g.steps, g.seconds, g["first"])
    return out


# -- 2. the plans' minutes -----------------------------------------------------------------------------------------
#: The medium sizes this sizing changed, as they were before it (the kit at f916e45).
BEFORE = {
    "pretrain_or_not": {"lstm_sizes": [[2, 256], [4, 256]], "lstm_plus_pretrained": [4, 256],
                        "lstm_seeds": [0, 1, 2, 3, 4], "transformer_seeds": [0, 1, 2, 3, 4]},
    "tlm": {"seeds": [0, 1, 2, 3, 4]},
    "stack_and_finetune": {"seeds": [0, 1, 2, 3, 4], "rich_head_finetune": True, "rich_head_matched": ["bilstm"],
                           "tasks": "with brown_pos"},
    "serbertus": {"seeds": [0, 1, 2, 3, 4], "cerbertus_k": [1, 2, 3], "joint_triple": True},
}  # fmt: skip


def before(paper: str) -> dict:
    """The medium sizes before this sizing (:data:`BEFORE` over today's)."""
    now = sizes(paper, "medium")
    out = {**now, **BEFORE[paper]}
    if out.get("tasks") == "with brown_pos":
        from kit.papers.stack_and_finetune.stack_and_finetune_sizes import _TAGGING

        out["tasks"] = {"brown_pos": _TAGGING, **now["tasks"]}
    return out


def minutes_table() -> pd.DataFrame:
    """Per notebook, before and after: runs, planned steps, shared minutes by part, minutes alone (central, range)."""
    rows = []
    for nb, paper in NOTEBOOKS.items():
        for label, s in (("before", before(paper)), ("after", sizes(paper, "medium"))):
            cost, outside = costs.medium_cost(paper, s)
            slow, central, fast = costs.medium_minutes(paper, s)
            rows.append(dict(notebook=nb, plan=label, runs=cost.runs, steps=cost.steps_planned,
                             fixed=cost.fixed / 60, per_step=cost.steps / 60, compiles=cost.first / 60,
                             outside=outside / 60, shared=(cost.total + outside) / 60, alone=central,
                             alone_range=f"{fast:.1f}-{slow:.1f}"))  # fmt: skip
    return pd.DataFrame(rows)


def savings_table() -> pd.DataFrame:
    """After the sizing, per notebook: minutes alone (central) of each part, what removing a fixed cost saves."""
    rows = []
    for nb, paper in NOTEBOOKS.items():
        table, s = costs.sizes_module(paper), sizes(paper, "medium")
        plan = costs.medium_plan(paper, s)
        cost, outside = costs.medium_cost(paper, s)
        parts = {"compiles": lambda c: RunCost(0, 0, c.first, c.contention),
                 "fixed": lambda c: RunCost(c.fixed, 0, 0, c.contention),
                 "steps": lambda c: RunCost(0, c.per_step, 0, c.contention)}  # fmt: skip
        row = dict(notebook=nb, alone=cost.alone / 60 + outside / 120)
        for name, part in parts.items():
            only = {k: part(RunCost(*v)) for k, v in table.MEDIUM_COSTS.items()}
            row[name] = plan_cost(plan, only, table.cost_kind, table.cost_programs).alone / 60
        row["outside"] = outside / 120
        rows.append(row)
    return pd.DataFrame(rows)


# -- 3. what each verdict row can detect ---------------------------------------------------------------------------
def _arm(score, sd, source="medium"):
    """An arm's test score and its standard deviation over seeds (fractions), and where they come from."""
    return dict(score=score, sd=sd, source=source)


#: The arms' scores and spreads over seeds at medium: measured (benchmarks/medium_gpu, 5 seeds; medium_h100, 3 seeds
#: for the transformer of 01 and the baseline of 02) or assumed where no medium run was logged ("assumed").
ARMS = {
    "01": {
        ("transformer", 300): _arm(0.767, 0.0157, "medium_h100"),
        ("transformer", 1000): _arm(0.804, 0.0020, "medium_h100"),
        ("transformer", 3000): _arm(0.838, 0.0076, "medium_h100"),
        ("transformer", 8454): _arm(0.865, 0.0011, "medium_h100"),
        ("lstm-2", 300): _arm(0.612, 0.0069),
        ("lstm-2", 1000): _arm(0.679, 0.0100),
        ("lstm-2", 3000): _arm(0.737, 0.0150),
        ("lstm-2", 8454): _arm(0.782, 0.0089),
        ("lstm-4+table", 300): _arm(0.683, 0.0033),
        ("lstm-4+table", 1000): _arm(0.743, 0.0109),
        ("lstm-4+table", 3000): _arm(0.768, 0.0150, "assumed: 2 seeds logged; the sd of LSTM-2-256 at 3,000"),
        ("lstm-4+table", 8454): _arm(0.79, 0.0089, "assumed: the sd of LSTM-2-256 at 8,454"),
        **{
            ("lstm-2+table", n): _arm(a["score"], a["sd"], "assumed: LSTM-4-256 + MiniLM emb's")
            for n, a in [
                (300, _arm(0.683, 0.0033)),
                (1000, _arm(0.743, 0.0109)),
                (3000, _arm(0.768, 0.0150)),
                (8454, _arm(0.79, 0.0089)),
            ]
        },
    },
    "02": {
        ("tlm", "bbc_news"): _arm(0.96, 0.0153, "medium: the 4 BM25 runs whose stage 1 learned"),
        ("tlm", "rt_snippets"): _arm(0.80, 0.0153, "assumed: the BBC spread"),
        ("minilm_finetuned", "bbc_news"): _arm(0.973, 0.0045, "medium_h100"),
        ("minilm_finetuned", "rt_snippets"): _arm(0.859, 0.0030, "medium_h100"),
    },
    "03": {
        ("brown_pos", "token_accuracy"): _arm(0.945, 0.001, "medium: the POS runs' spread (0.06-0.3 points)"),
        ("brown_entities", "token_accuracy"): _arm(0.98, 0.001, "assumed: the POS runs' spread (0.06-0.3 points)"),
        ("brown_entities", "entity_f1"): _arm(0.75, 0.01, "assumed"),
        ("bbc_business_politics", "accuracy"): _arm(0.95, 0.015, "assumed"),
        ("bbc_business_politics", "macro_f1"): _arm(0.95, 0.015, "assumed"),
        ("wordnet_pairs", "accuracy"): _arm(0.71, 0.0099, "assumed: 04's baseline on the same pairs"),
    },
    "04": {
        ("baseline", "sst"): _arm(0.647, 0.0082),
        ("baseline", "qqp"): _arm(0.711, 0.0099),
        ("baseline", "sts"): _arm(0.428, 0.0038),
    },
}
TEST = {
    "01": {"rt_snippets": 1057},
    "02": {"bbc_news": 222, "rt_snippets": 1057},
}


def _row(name, effect, a, b, examples, metric="accuracy", var_examples=None) -> dict:
    """One verdict row's planning numbers: the paper's effect, both arms, the test set's part at each correlation."""
    ve = var_examples or [example_variance(a["score"], b["score"], examples, r, metric) for r in CORRELATION]
    return dict(comparison=name, effect=effect, sd_a=a["sd"], sd_b=b["sd"], var_examples=ve,
                sources="; ".join(sorted({a["source"], b["source"]})))  # fmt: skip


def _arm01(model: str, n: int) -> dict:
    """Notebook 01's arm ``model`` at ``n`` examples (:data:`ARMS`; a plain LSTM-4-256 as the one with a table)."""
    from kit.papers.pretrain_or_not.pretrain_or_not_sizes import cost_kind

    kind = cost_kind({"model": model})
    return ARMS["01"][("lstm-4+table" if kind.startswith("lstm-4") else kind, n)]


def _shrink(top: str, model: str, lo: int, hi: int) -> dict:
    """Notebook 01's row "the gap to ``model`` at ``lo`` minus at ``hi``": per-seed differences, both test-set parts."""
    diff = {x: _arm(0, math.hypot(_arm01(top, x)["sd"], _arm01(model, x)["sd"]), _arm01(model, x)["source"])
            for x in (lo, hi)}  # fmt: skip
    ve = [sum(example_variance(_arm01(top, x)["score"], _arm01(model, x)["score"], 1057, r) for x in (lo, hi))
          for r in CORRELATION]  # fmt: skip
    return _row(f"gap shrink {lo:,} -> {hi:,}, {model}", None, diff[lo], diff[hi], 1057, var_examples=ve)


def rows_01(s: dict) -> list[dict]:
    """Notebook 01's verdict rows at medium (pretrain_or_not_report.verdicts): gaps, shrinks, table and depth."""
    from kit import config
    from kit.papers.pretrain_or_not import pretrain_or_not_paper as paper
    from kit.papers.pretrain_or_not import pretrain_or_not_runs as runs

    specs, n = runs.models(s), config.train_sizes(s["train_sizes"], 8454)
    top, fx = runs.transformer_of(specs), paper.EFFECTS
    others = [m for m in specs if specs[m][0] != "transformer"]
    rows = [_row(f"{top} - {m}, {x:,}", fx["gap"], _arm01(top, x), _arm01(m, x), 1057) for m in others for x in n]
    rows += [{**_shrink(top, m, n[0], n[-1]), "effect": fx["shrink"]} for m in others]
    pre = next(m for m in specs if specs[m][0] == "lstm+pretrained")
    plain = [m for m in specs if specs[m][0] == "lstm"]
    pairs = [(pre, plain[-1], fx["pretrained table"])] + [(p, q, fx["depth"]) for q, p in zip(plain, plain[1:])]
    for a, b, effect in pairs:
        rows += [_row(f"{a} - {b}, {x:,}", effect, _arm01(a, x), _arm01(b, x), 1057) for x in n]
    return rows


def rows_02(s: dict) -> list[dict]:
    """Notebook 02's verdict rows at medium (tlm_report._comparisons)."""
    from kit.papers.tlm import tlm_paper as paper

    fx, a, arms = paper.EFFECTS, s["ablation_task"], ARMS["02"]
    role = s["tasks"]
    tlm = lambda t: arms[("tlm", t)]  # noqa: E731
    rows = [_row(f"{t}: BM25 vs random", fx["retrieval"], tlm(t), tlm(t), TEST["02"][t]) for t in s["tasks"]]
    rows.append(_row(f"{a}: K={s['k']} vs K=0", fx["K"], tlm(a), tlm(a), TEST["02"][a]))
    for key in ("rho1", "rho2"):
        rows += [
            _row(f"{a}: {key}={s[key]} vs {r}", fx[key], tlm(a), tlm(a), TEST["02"][a]) for r in s[f"{key}_ablation"]
        ]
    rows += [_row(f"{t}: with vs without stage 2", fx["stage 2"][role[t]], tlm(t), tlm(t), TEST["02"][t])
             for t in s["tasks"]]  # fmt: skip
    rows += [_row(f"{t}: TLM vs MiniLM", fx["baseline"][role[t]], tlm(t), arms[("minilm_finetuned", t)], TEST["02"][t])
             for t in s["tasks"]]  # fmt: skip
    return rows


class _Task:
    """A stand-in for notebook 03's TaskData: its kind and whether its tags are entities."""

    def __init__(self, kind: str, entities: bool = False):
        self.kind, self.is_entity_task = kind, entities


def rows_03(s: dict) -> list[dict]:
    """Notebook 03's verdict rows at medium (stack_and_finetune_verdicts.plan_comparisons over the plan's runs)."""
    from kit.papers.stack_and_finetune import stack_and_finetune_paper as paper
    from kit.papers.stack_and_finetune import stack_and_finetune_verdicts as verdicts
    from kit.papers.stack_and_finetune.stack_and_finetune_sizes import MEDIUM_DATA

    specs = s["tasks"]
    tasks = {n: _Task(spec["section"], spec.get("labels") == "entities") for n, spec in specs.items()}
    models = {n: ["light"] + s["section_heads"][spec["section"]] for n, spec in specs.items()}
    ran = {(r["task"], r["model"], r["strategy"]) for r in costs.medium_plan("stack_and_finetune", s)}
    sections = {sec: [n for n in specs if specs[n]["section"] == sec] for sec in ("tagging", "classification", "pairs")}
    for n in sections["classification"]:
        ran |= {(n, "ensemble", st) for st in ("stack_only", "stack_and_finetune")}
    entity = next((n for n in sections["tagging"] if tasks[n].is_entity_task), (sections["tagging"] or [None])[0])
    task_of = {"tagging": entity, "classification": sections["classification"][0], "pairs": sections["pairs"][0]}
    rows = []
    for c in verdicts.plan_comparisons(tasks, specs, models, ran, s, paper.COMPARISONS, task_of):
        data, metric = MEDIUM_DATA[c["task"]], c["metric"]
        arm = ARMS["03"].get((c["task"], metric)) or ARMS["03"][("brown_entities", "token_accuracy")]
        n = {"token_accuracy": data.get("words", 0) / WORDS_DESIGN_EFFECT, "entity_f1": data.get("entities")}
        rows.append(_row(f"{c['task']} {metric}: {' '.join(c['a'])} - {' '.join(c['b'])}",
                         c["effect"], arm, arm, int(n.get(metric) or data["test"])))  # fmt: skip
    return rows


def rows_04(s: dict) -> list[dict]:
    """Notebook 04's verdict rows at medium (serbertus_report.comparison_plan)."""
    from kit.papers.serbertus import serbertus_report as report
    from kit.papers.serbertus.serbertus_sizes import MEDIUM_DATA

    rows = []
    for name, x, _y, t, key, _m, _note in report.comparison_plan(s, list(s["tasks"])):
        base = ARMS["04"][("baseline", t)]
        effect = report._effect(key, t, x)
        metric = "pearson" if t == "sts" else "accuracy"
        rows.append(_row(f"{name} ({t})", effect, base, base, MEDIUM_DATA[t]["test"], metric))
    return rows


ROWS = {"01": rows_01, "02": rows_02, "03": rows_03, "04": rows_04}


def power_table(nb: str, s: dict | None = None) -> pd.DataFrame:
    """Per verdict row at medium: the paper's effect, the seeds it needs and what the plan's seeds detect (points)."""
    paper = NOTEBOOKS[nb]
    s = s or sizes(paper, "medium")
    rows = ROWS[nb](s)
    alpha = 0.05 / len(rows)
    seeds = len(s.get("seeds") or s["lstm_seeds"])
    out = []
    for r in rows:
        effect = r["effect"]
        need = [seeds_needed(effect, r["sd_a"], r["sd_b"], ve, alpha) if effect else None for ve in r["var_examples"]]
        found = [detectable_with(seeds, r["sd_a"], r["sd_b"], ve, alpha) for ve in r["var_examples"]]
        floor = detectable_with(MOST_SEEDS, r["sd_a"], r["sd_b"], r["var_examples"][1], alpha)
        out.append(dict(
            comparison=r["comparison"], effect=100 * effect if effect else np.nan,
            seeds_needed="/".join("-" if n is None else str(n) for n in need) if effect else "",
            detectable=100 * found[1], detectable_range=f"{100 * found[2]:.1f}-{100 * found[0]:.1f}",
            detectable_20_seeds=100 * floor, sources=r["sources"],
        ))  # fmt: skip
    frame = pd.DataFrame(out)
    frame.attrs.update(alpha=alpha, rows=len(rows), seeds=seeds)
    return frame


def main() -> None:
    pd.set_option("display.width", 250)
    pd.set_option("display.max_colwidth", 80)
    pd.set_option("display.max_rows", 200)
    print(check_table().round(2).to_markdown())
    print()
    print(minutes_table().round(1).to_markdown(index=False))
    print()
    print(savings_table().round(1).to_markdown(index=False))
    for nb in NOTEBOOKS:
        t = power_table(nb)
        print(f"\n{nb}: {t.attrs['rows']} rows, alpha/m = {t.attrs['alpha']:.4f}, {t.attrs['seeds']} seeds")
        print(t.round(1).to_markdown(index=False))


if __name__ == "__main__":
    main()
