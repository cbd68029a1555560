"""Notebook 02's report: the external data, the paper's tables and figure for this run, the sentences and checks.

Covers where the external data comes from, Table 8's examples, Table 2 (with each model's compute), Tables 3-7's
ablations, the MLM's progress, the attention heads (Figure 3). The runs come one row per run (``runs``: ``results.csv``
pivoted, a column per metric); every table shows mean ± standard error over seeds (:func:`view`).
"""

from __future__ import annotations

import html
import math
from collections import Counter
from pathlib import Path

import numpy as np

from ...analysis import attention_maps, classify_heads, verdict_table
from ...analysis.baselines import constant_guess
from ...analysis.flops import format_flops
from ...analysis.pictures import arrow, box, canvas
from ...analysis.scales import plot_scales, scale_table
from ...analysis.spread import format_mean_se, summarize
from ...results import read_results
from ...retrieval import english_stopwords, word_tokenize
from ..experiment import load_predictions, predictions_path
from . import tlm_paper as paper
from .tlm_runs import KEYS, plain_run
from .tlm_sizes import task_sizes

#: The columns that name a TLM setting in the runs table.
SETTING = ["task", "retrieval", "K", "rho1", "rho2"]


def external_table(selections: dict, origin, corpus: list):
    """A row per selection (``{(task, retrieval, K): doc ids}``): passages, % of corpus, words, share of each origin."""
    import pandas as pd

    rows = []
    for (name, method, k), ids in selections.items():
        mix = Counter(origin[ids])
        rows.append(
            {
                "task": name,
                "retrieval": method,
                "K": k,
                "passages": len(ids),
                "% of corpus": round(100 * len(ids) / len(corpus), 1),
                "words": sum(len(corpus[i].split()) for i in ids),
                **{part: f"{100 * mix[part] / len(ids):.0f}%" for part in sorted(set(origin))},
            }
        )
    return pd.DataFrame(rows)


def topic_nearness(tasks: dict, found_by: dict, selections: dict, corpus: list, k: int, seed: int = 0):
    """How near the retrieved passages are to their queries' topics, BM25 against random, one row per task.

    A topic classifier (TF-IDF + logistic regression) trained on the task's training texts labels each passage BM25
    retrieved; it is near when that label is the label of the task text that retrieved it. For random retrieval each
    passage is paired with a random training text (``seed``). Columns ``BM25: near`` and ``random: near`` are the shares
    of near passages; ``classifier dev accuracy`` (on the task's dev texts) says how far to trust the labelling.
    """
    import pandas as pd
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    rows = []
    rng = np.random.default_rng(seed)
    for name, ds in tasks.items():
        vec = TfidfVectorizer(sublinear_tf=True, min_df=2, stop_words="english")
        clf = LogisticRegression(max_iter=1000).fit(vec.fit_transform(ds.train.texts), ds.train.y)
        dev_acc = float((clf.predict(vec.transform(ds.dev.texts)) == ds.dev.y).mean())
        sel = found_by[(name, k)]
        bm25 = clf.predict(vec.transform([corpus[i] for i in sel.doc_ids])) == np.asarray(ds.train.y)[sel.query_id]
        rand_ids = selections[(name, "random", k)]
        queries = rng.integers(0, len(ds.train.y), len(rand_ids))
        rand = clf.predict(vec.transform([corpus[i] for i in rand_ids])) == np.asarray(ds.train.y)[queries]
        rows.append(
            {
                "task": name,
                "classes": ds.num_classes,
                "classifier dev accuracy": round(dev_acc, 3),
                "BM25: near": round(float(bm25.mean()), 3),
                "random: near": round(float(rand.mean()), 3),
                "passages": len(bm25),
            }
        )
    return pd.DataFrame(rows).set_index("task")


def highlight(text: str, other: str, limit: int = 320) -> str:
    """``text`` (its first ``limit`` characters, then " ...") as HTML, words shared with ``other`` in ``<mark>``.

    Stop words are not marked.
    """
    shared = {w.lower() for w in word_tokenize(other)} - english_stopwords()
    words = text[:limit].split()
    out = [
        f"<mark>{html.escape(w)}</mark>" if w.lower().strip(".,;:!?'\"()") in shared else html.escape(w) for w in words
    ]
    return " ".join(out) + (" ..." if len(text) > limit else "")


def table8(tasks: dict, found_by: dict, corpus: list, k: int, per_task: int = 2):
    """The paper's Table 8: for each task's ``per_task`` best-scoring queries, the passage BM25 ranked first.

    ``(html, data frame)``: the table with shared words marked, and its rows (task, query, retrieved, bm25).
    """
    import pandas as pd

    rows = []
    for name, ds in tasks.items():
        top = found_by[(name, k)].to_frame(corpus, ds.train.texts)
        for _, r in top[top.best_rank == 0].sort_values("score", ascending=False).head(per_task).iterrows():
            rows.append((name, highlight(r.query, r.text), highlight(r.text, r.query), r.score))
    body = "".join(
        f"<tr><td>{n}</td><td style='text-align:left'>{q}</td><td style='text-align:left'>{d}</td><td>{s:.1f}</td></tr>"
        for n, q, d, s in rows
    )
    head = "<tr><th>task</th><th>task text (query)</th><th>retrieved passage (rank 1)</th><th>BM25</th></tr>"
    return "<table>" + head + body + "</table>", pd.DataFrame(rows, columns=["task", "query", "retrieved", "bm25"])


def stream_table(stream, steps: int):
    """The first ``steps`` batches of a :class:`kit.train.TLMBatches` stream, a row each.

    Columns: step, batch kind, task weight, MLM weight (mean), masked tokens.
    """
    import pandas as pd

    rows = []
    for i in range(steps):
        _, _, w = stream[i]
        rows.append(
            {
                "step": i,
                "batch": stream.kind(i),
                "task weight": round(float(w["task"][0]), 4),
                "MLM weight": round(float(w["mlm"].mean()), 4),
                "masked tokens": int((w["mlm"] > 0).sum()),
            }
        )
    return pd.DataFrame(rows)


def view(df, by, metrics=("test_accuracy", "test_macro_f1")):
    """Mean ± SE over seeds of ``metrics`` (columns lose the ``test_`` prefix) per group ``by``, and ``seeds``."""
    import pandas as pd

    out = {}
    for m in metrics:
        s = summarize(df.rename(columns={m: "value"}), by)
        out[m.replace("test_", "")] = [format_mean_se(a, b) for a, b in zip(s["mean"], s["se"])]
    index = summarize(df.rename(columns={metrics[0]: "value"}), by)
    out["seeds"] = index["seeds"].values
    return pd.DataFrame(out, index=index.index)


def split_runs(runs, sizes: dict) -> tuple:
    """``(TLM runs, baseline runs, main setting's mask over the TLM runs)``; main: ``k``, ``rho1``, ``rho2``."""
    tlm, base = runs[runs.experiment == "tlm"], runs[runs.experiment == "minilm_finetuned"]
    return tlm, base, (tlm.retrieval == "bm25") & own_setting(tlm, sizes)


def own_setting(tlm, sizes: dict):
    """The mask over TLM runs trained with their own task's K, rho1 and rho2 (any retrieval; ``per_task`` read).

    Example:
        >>> import pandas as pd
        >>> runs = pd.DataFrame({"task": ["a", "b", "b"], "K": [50, 500, 50], "rho1": [1, 19, 1], "rho2": [100] * 3})
        >>> own_setting(runs, {"k": 50, "rho1": 1, "rho2": 100, "per_task": {"b": {"k": 500, "rho1": 19}}}).tolist()
        [True, True, False]
    """
    own = {t: task_sizes(sizes, t) for t in tlm.task.unique()}
    return (
        (tlm.K == tlm.task.map(lambda t: own[t]["k"]))
        & (tlm.rho1 == tlm.task.map(lambda t: own[t]["rho1"]))
        & (tlm.rho2 == tlm.task.map(lambda t: own[t]["rho2"]))
    )


def baseline_name(sizes: dict) -> str:
    """The pretrained baseline's name: ``MiniLM-L6 fine-tuned``, or the bottom ``baseline_layers`` it keeps (smoke).

    Example:
        >>> baseline_name({"baseline_layers": 3})
        'MiniLM-L6 (bottom 3 layers) fine-tuned'
    """
    k = sizes.get("baseline_layers")
    return f"MiniLM-L6 (bottom {k} layers) fine-tuned" if k else "MiniLM-L6 fine-tuned"


def table2(tlm, base, main, sizes: dict):
    """The paper's Table 2 for this run: TLM's main setting (``main``, a mask over ``tlm``) and the fine-tuned baseline.

    Indexed by (task, model): accuracy and macro-F1 (mean ± SE), seeds, parameters, training FLOPs (the baseline's
    marked "+ pretraining": its fine-tuning alone).
    """
    import pandas as pd

    def rows(df, flops_suffix=""):
        return view(df, "task").assign(
            params=df.groupby("task").params.first().astype(int),
            training_flops=df.groupby("task").flops.mean().map(format_flops) + flops_suffix,
        )

    return (
        pd.concat(
            {
                "TLM (from scratch, this run)": rows(tlm[main]),
                f"{baseline_name(sizes)} (this run)": rows(base, " + pretraining"),
            },
            names=["model"],
        )
        .swaplevel()
        .sort_index()
    )


def ablation_tables(tlm, main, sizes: dict) -> dict:
    """Tables 3-7 for this run beside the paper's: ``{name: (ours, the paper's)}``.

    Names ``table3_retrieval`` ... ``table7_stage2``. Each varies one thing from the main setting (``main``, a mask over
    ``tlm``) on the ablation task (Tables 3 and 7 on every task): retrieval, K, rho1, rho2, stage 2.
    """
    s, abl = task_sizes(sizes, sizes["ablation_task"]), tlm[tlm.task == sizes["ablation_task"]]
    base = abl.rho2 == s["rho2"]
    main_kr = own_setting(tlm, sizes)
    stage2 = view(tlm[main], "task", ("test_accuracy", "stage1_test_accuracy", "test_macro_f1", "stage1_test_macro_f1"))
    return {
        "table3_retrieval": (view(tlm[main_kr], ["task", "retrieval"]), paper.TABLE3),
        "table4_K": (view(abl[base & abl.rho1.isin([0, s["rho1"]]) & (abl.retrieval != "random")], "K"), paper.TABLE4),
        "table5_rho1": (
            view(
                abl[
                    base
                    & (abl.retrieval == "bm25")
                    & (abl.K == s["k"])
                    & abl.rho1.isin([s["rho1"], *s.get("rho1_ablation", [])])
                ],
                "rho1",
            ),
            paper.TABLE5,
        ),
        "table6_rho2": (
            view(
                abl[(abl.retrieval == "bm25") & (abl.K == s["k"]) & (abl.rho1 == s["rho1"])],
                "rho2",
                ("stage1_test_accuracy", "test_accuracy"),
            ),
            paper.TABLE6,
        ),
        "table7_stage2": (
            stage2.rename(
                columns={
                    "accuracy": "two-stage (acc)",
                    "stage1_accuracy":  # view() drops
                    "without stage 2 (acc)",
                    "macro_f1": "two-stage (F1)",  # "test_"
                    "stage1_macro_f1": "without stage 2 (F1)",
                }
            ),
            paper.TABLE7,
        ),
    }


def unigram_guess(x_dev: dict, masker) -> float:
    """The masked-token accuracy of always guessing the most common masked token (the masking evaluate_mlm uses).

    ``x_dev``: a task's dev inputs (the preprocessor's dict, compact vocabulary).
    """
    m = masker(x_dev["token_ids"], x_dev["padding_mask"], np.random.default_rng([0, 3]))
    ids = m["mask_ids"][m["mask_weights"] > 0]
    return float(np.bincount(ids).max() / len(ids))


def mlm_table(tlm, unigram: dict):
    """MLM accuracy on dev texts per setting, beside the best constant guess (``unigram``, :func:`unigram_guess`)."""
    out = view(tlm, SETTING, ("mlm_accuracy",))
    out["best constant guess"] = [round(unigram[t], 4) for t in out.index.get_level_values("task")]
    return out


def mlm_figure(tlm, task_names, unigram: dict):
    """MLM accuracy on each task's dev texts after stage 1, per setting: each seed, mean ± SE, the constant guess.

    The accuracy is unweighted (one fixed masking, every masked token counts once), unlike Keras' stage-1 loss, which
    weighs an internal batch's MLM by rho2 / (rho2 + 1) and so reads lower for rho2 = 0 without being better.
    ``unigram``: ``{task: constant guess}`` (:func:`unigram_guess`); one panel per task.
    """
    import matplotlib.pyplot as plt

    rows = [tlm[tlm.task == name].groupby(SETTING[1:]).ngroups for name in task_names]
    fig, axes = plt.subplots(len(task_names), 1, figsize=(9, 0.45 * sum(rows) + 1.3 * len(rows)), squeeze=False,
                             gridspec_kw={"height_ratios": [r + 1.5 for r in rows]})  # fmt: skip
    for ax, name in zip(axes[:, 0], task_names):
        groups = list(tlm[tlm.task == name].groupby(SETTING[1:], sort=False))
        for y, (_, g) in enumerate(groups):
            acc = 100 * g["mlm_accuracy"].astype(float)
            ax.plot(acc, [y] * len(acc), "o", color="tab:blue", alpha=0.35, ms=4, label="a seed" if y == 0 else None)
            ax.errorbar(acc.mean(), y, xerr=acc.sem() if len(acc) > 1 else 0, fmt="D", color="tab:blue", capsize=3,
                        label="mean ± SE over seeds" if y == 0 else None)  # fmt: skip
        ax.axvline(100 * unigram[name], ls="--", color="gray", label="always the most frequent masked token")
        ax.set_yticks(range(len(groups)), [f"{r}, K={k}, rho1={r1}, rho2={r2}" for (r, k, r1, r2), _ in groups])
        ax.invert_yaxis()
        ax.set(xlabel="masked-token accuracy on dev texts (%)", title=f"{name}: MLM after stage 1")
    axes[0][0].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    fig.tight_layout()
    return fig


def collapse_probe(root=None):
    """``benchmarks/tlm_collapse/results.csv`` (the CPU probe of :func:`draw_collapse`) as a DataFrame, or None.

    One row per chunk of each probe run; None where the file is not there (an installed kit). ``root``: the repository's
    root (default: the one this kit is in).
    """
    import pandas as pd

    path = (root or Path(__file__).resolve().parents[3]) / "benchmarks" / "tlm_collapse" / "results.csv"
    return pd.read_csv(path) if path.exists() else None


def draw_collapse(probe, medium=None):
    """Stage 1's first steps with the MLM bias at 0 and at the unigram prior: MLM loss and token-state cosine.

    Colour: where the bias starts (red: 0, blue: the unigram prior); line style: the model (solid: medium, dashed: the
    proxy). ``probe``: :func:`collapse_probe` (``model``, ``prior``, ``seed``, ``step``, ``mlm_loss``,
    ``token_state_cosine``). ``medium``: ``benchmarks/medium_gpu/02_results.csv`` or None: its runs' stage-1 loss curve
    (bias at 0) as points, a run that ended at the most frequent token (MLM accuracy < 0.06) marked apart.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    fig, (loss_ax, cos_ax) = plt.subplots(1, 2, figsize=(11, 3.6))
    colors, styles = {"zero": "tab:red", "unigram": "tab:blue"}, {"medium": "-", "proxy": "--"}
    handles = {}
    for (model, prior, _seed), g in probe.groupby(["model", "prior", "seed"], sort=False):
        style = {"color": colors[prior], "ls": styles[model.split()[0]], "marker": "."}
        loss_ax.plot(g.step[g.mlm_loss.notna()], g.mlm_loss.dropna(), **style)
        cos_ax.plot(g.step, g.token_state_cosine, **style)
        handles.setdefault(model, Line2D([], [], color="0.3", ls=style["ls"], marker=".", label=model))
    if medium is not None:
        m = medium[medium.experiment == "tlm"].pivot_table(
            index=["retrieval", "seed"], columns="metric", values="value"
        )
        steps = sorted(int(c.rsplit("step", 1)[1]) for c in m.columns if c.startswith("stage1_mlm_loss_step"))
        for _, run in m.iterrows():
            stuck = bool(run["mlm_accuracy"] < 0.06)  # the most frequent token's share of the masked tokens: 0.048
            loss_ax.plot(
                steps,
                [run[f"stage1_mlm_loss_step{s}"] for s in steps],
                "x" if stuck else "o",
                ms=5,
                color="black" if stuck else "gray",
                alpha=0.7,
                ls=":",
                lw=0.8,
            )
        label = "medium GPU runs, bias 0 (x: stayed stuck, o: learned)"
        handles[label] = Line2D([], [], color="gray", ls=":", marker="x", label=label)
    loss_ax.set(
        xlabel="stage-1 step",
        ylabel="MLM loss (mean over the chunk)",
        ylim=(5.8, 10.6),
        title="MLM loss: bias 0 (red) vs unigram prior (blue)",
    )
    cos_ax.set(
        xlabel="stage-1 step",
        ylabel="mean cosine of two token states",
        ylim=(0, 1.05),
        title="how alike the final token states are (1: all one state)",
    )
    fig.legend(handles=list(handles.values()), loc="lower center", ncol=3, fontsize=8, bbox_to_anchor=(0.5, -0.08))
    fig.tight_layout()
    return fig


def draw_heads(probs: np.ndarray, tokens: list, kinds: np.ndarray, title: str, max_heads: int = 6):
    """Each head's attention on one sentence (rows: layers), one colour scale with its colorbar, the tokens on the axes.

    The colour scale ends at the largest weight drawn, so near-uniform heads still show their pattern; the colorbar says
    how small the weights are. ``probs``: :func:`kit.analysis.attention_maps`, ``(layers, 1, heads, seq, seq)``, cut to
    ``len(tokens)``; ``kinds``: :func:`kit.analysis.classify_heads`' ``(layers, heads)`` labels, written over each head;
    ``max_heads`` per layer, positional and vertical ones first.
    """
    import matplotlib.pyplot as plt

    n_layers, n_heads, n = probs.shape[0], probs.shape[2], len(tokens)
    order = [sorted(range(n_heads), key=lambda h: kinds[layer, h] == "other")[:max_heads] for layer in range(n_layers)]
    maps = probs[:, 0, :, :n, :n]
    vmax = float(max(maps[layer, order[layer]].max() for layer in range(n_layers)))
    shown = len(order[0])
    fig, axes = plt.subplots(n_layers, shown, figsize=(2.3 * shown + 1.2, 2.3 * n_layers + 0.9), squeeze=False)
    for layer in range(n_layers):
        for col, head in enumerate(order[layer]):
            ax = axes[layer][col]
            image = ax.imshow(maps[layer, head], cmap="viridis", vmin=0, vmax=vmax)
            kind = kinds[layer, head]
            ax.set_title(f"layer {layer}, head {head}" + ("" if kind == "other" else f": {kind}"), fontsize=7,
                         color={"positional": "blue", "vertical": "red"}.get(kind, "black"))  # fmt: skip
            ax.set_xticks(range(n), tokens if layer == n_layers - 1 else [""] * n, rotation=90, fontsize=5)
            ax.set_yticks(range(n), tokens if col == 0 else [""] * n, fontsize=5)
    axes[-1][0].set_xlabel("attended token (key)", fontsize=7)
    axes[0][0].set_ylabel("attending token (query)", fontsize=7)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout(rect=(0, 0, 0.93, 1))
    bar = fig.colorbar(image, ax=axes.ravel().tolist(), fraction=0.02, pad=0.01)
    bar.set_label("attention weight (colour scale up to the largest drawn)", fontsize=7)
    return fig


def _on_vocabulary(vocab, inputs: dict) -> dict:
    """``inputs`` mapped to a model's compact vocabulary, or as they are when it has none."""
    return vocab(inputs) if vocab is not None else inputs


def attention_heads(models: dict, dev: dict, one: dict, tokens: list, sentence: str, out) -> object:
    """Figure 3: the share of positional and vertical heads of each model, and every head drawn on one sentence.

    ``models``: ``{label: (backbone, compact vocabulary or None, special ids)}``; heads are classified over ``dev`` (the
    preprocessor's dict, full vocabulary); ``one`` (that sentence's dict) is drawn with ``tokens`` as labels, saved in
    ``out`` (``figure3_attention_tlm.png``, ``figure3_attention_minilm.png``). Indexed by model: layers x heads, heads,
    positional and vertical counts and shares.
    """
    import pandas as pd

    rows = []
    for label, (backbone, vocab, special) in models.items():
        kinds = classify_heads(
            attention_maps(backbone, _on_vocabulary(vocab, dev)),
            _on_vocabulary(vocab, dev)["token_ids"],
            dev["padding_mask"],
            special,
        )
        rows.append(
            {
                "model": label,
                "layers x heads": f"{kinds.shape[0]} x {kinds.shape[1]}",
                "heads": kinds.size,
                "positional": int((kinds == "positional").sum()),
                "vertical": int((kinds == "vertical").sum()),
                "positional %": round(100 * (kinds == "positional").mean(), 1),
                "vertical %": round(100 * (kinds == "vertical").mean(), 1),
            }
        )
        shown = min(kinds.shape[1], 6)
        fig = draw_heads(
            attention_maps(backbone, _on_vocabulary(vocab, one)),
            tokens,
            kinds,
            title=f"{label}: each head's attention on one test sentence ({shown} of {kinds.shape[1]} heads per layer, "
            "the positional and vertical ones first)",
        )
        fig.savefig(out / ("figure3_attention_" + ("tlm" if label.startswith("TLM") else "minilm") + ".png"), dpi=110)
    return pd.DataFrame(rows).set_index("model")


def _by(df, metric, group):
    return summarize(df.rename(columns={metric: "value"}), group)


def correct(out, rows, y, which: str = "final") -> dict:
    """Each run's per-example test results, ``{seed: float array, 1 where right}``, from its saved predictions.

    ``which``: ``"final"`` (after stage 2) or ``"stage1"``; ``out``: the run's folder; ``rows``: the runs, one per seed.
    """
    y = np.asarray(y)
    saved = {int(r.seed): load_predictions(out, plain_run(r), KEYS)[which] for _, r in rows.iterrows()}
    return {seed: (pred == y).astype(float) for seed, pred in saved.items()}


def _spent(rows, steps: str = "trained_steps") -> dict | None:
    """What a set of runs trained, from their records: ``{"steps": mean}`` (None for runs recorded before it was)."""
    return {"steps": float(rows[steps].mean())} if steps in rows and rows[steps].notna().all() else None


def _budgets(a_rows, b_rows, a_steps: str = "trained_steps", b_steps: str = "trained_steps") -> dict:
    """``budget_a`` and ``budget_b`` of a comparison, from both arms' records (none where either lacks them)."""
    a, b = _spent(a_rows, a_steps), _spent(b_rows, b_steps)
    return {"budget_a": a, "budget_b": b} if a and b else {}


def _comparisons(out, tlm, base, main, tasks: dict, s: dict) -> list[dict]:
    """The verdict table's comparisons: retrieval, K, rho1, rho2, stage 2 and TLM vs the baseline, in that order."""
    a, ys, sizes = s["ablation_task"], {n: ds.test.y for n, ds in tasks.items()}, s
    same, s = own_setting(tlm, sizes), task_sizes(sizes, a)  # every task's own setting; the ablation task's sizes
    abl, fx = tlm[(tlm.retrieval == "bm25") & (tlm.K == s["k"])], paper.EFFECTS
    role = {n: s["tasks"].get(n, "news") if s["tasks"].get(n) in ("news", "reviews") else "news" for n in tasks}

    def arm(rows, task, which="final"):
        return correct(out, rows[rows.task == task], ys[task], which)

    def row(name, b_rows, task, note, **options):
        a_rows, b_rows = tlm[main & (tlm.task == task)], b_rows[b_rows.task == task]
        spent = {} if options.get("recipe") else _budgets(a_rows, b_rows)
        return dict(name=name, a=arm(a_rows, task), b=arm(b_rows, task), note=note, **spent, **options)

    rand = tlm[same & (tlm.retrieval == "random")]
    out_rows = [row(f"{n}: BM25 vs random retrieval", rand, n, "same size", effect=fx["retrieval"]) for n in tasks]
    none = tlm[tlm.retrieval == "none"]
    out_rows.append(row(f"{a}: K={s['k']} vs K=0 (task data alone)", none, a, "Table 4", effect=fx["K"]))
    for r in s["rho1_ablation"]:
        other = abl[(abl.rho1 == r) & (abl.rho2 == s["rho2"])]
        out_rows.append(row(f"{a}: rho1={s['rho1']} vs rho1={r}", other, a, "Table 5", effect=fx["rho1"]))
    for r in s["rho2_ablation"]:
        other = abl[(abl.rho1 == s["rho1"]) & (abl.rho2 == r)]
        out_rows.append(row(f"{a}: rho2={s['rho2']} vs rho2={r} (final score)", other, a, "Table 6", effect=fx["rho2"]))
    for n in tasks:
        mine = tlm[main & (tlm.task == n)]
        out_rows.append(dict(
            name=f"{n}: with vs without stage 2", a=arm(tlm[main], n), b=arm(tlm[main], n, "stage1"),
            note="the same runs, before and after stage 2 (Table 7)", effect=fx["stage 2"][role[n]],
            **(_budgets(mine, mine, "trained_steps", "trained_stage1_steps") or {"budget_matched": False}),
        ))  # fmt: skip
    other = "pretrained vs from scratch: different models and compute (Table 2)"
    out_rows += [
        row(f"{n}: TLM vs {baseline_name(s)}", base, n, other, recipe=True, effect=fx["baseline"][role[n]])
        for n in tasks
    ]
    return out_rows


def verdicts(out, tlm, base, main, tasks: dict, sizes: dict):
    """Notebook 02's verdict table: every comparison on final test accuracy, per test example and seed, Holm-corrected.

    BM25 vs random per task, K vs task data alone, each other rho1 and rho2 on the ablation task (the final score, as
    the paper's Tables 5 and 6), with vs without stage 2 per task (different budgets, from the runs' records), TLM vs
    the baseline per task (a recipe comparison); each row beside the paper's effect. :func:`kit.analysis.verdict_table`,
    in points; ``out`` holds the saved predictions.
    """
    return verdict_table(_comparisons(out, tlm, base, main, tasks, sizes), scale=100)


def _row(table, name: str):
    """The verdict table's row ``name``."""
    return table.set_index("comparison").loc[name]


def _p(p: float) -> str:
    """A p-value in three decimals, ``< 0.001`` below that."""
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _said(row) -> str:
    """One row of the verdict table in words: the difference, its 95% interval, Holm's p and its verdict."""
    could = f", could find ±{row.detectable:.1f}" if row.verdict == "noise" or row.verdict.startswith("too few") else ""
    return (
        f"{row.delta:+.1f} points (95% interval {row.low:+.1f} to {row.high:+.1f}; Holm p {_p(row.p_holm)}{could}): "
        f"{row.verdict}"
    )


def _task_lines(table, tlm, base, main, tasks: dict, s: dict) -> list[str]:
    """Per task: TLM vs the baseline, BM25 vs random retrieval, stage 1 alone and what stage 2 adds."""
    s1 = _by(tlm[main], "stage1_test_accuracy", "task")
    lines = []
    for name in tasks:
        f_t, f_b = tlm[main & (tlm.task == name)].flops.mean(), base[base.task == name].flops.mean()
        said = _said(_row(table, f"{name}: TLM vs {baseline_name(s)}"))
        lines.append(
            f"{name}: TLM vs {baseline_name(s)}, test accuracy {said}; TLM trained with {format_flops(f_t)} FLOPs, "
            f"MiniLM's fine-tuning alone {format_flops(f_b)} on top of its pretraining."
        )
    for name in tasks:
        lines.append(
            f"{name}: BM25 vs random retrieval of the same size: "
            f"{_said(_row(table, f'{name}: BM25 vs random retrieval'))} (paper, Table 3: +0.8 to +3.0)"
        )
    for name, ds in tasks.items():
        lines.append(
            f"{name}: stage 1 alone reaches {format_mean_se(s1.loc[name, 'mean'], s1.loc[name, 'se'])} test accuracy "
            f"(majority class {constant_guess(ds.train.y, ds.test.y):.3f}); stage 2 adds "
            f"{_said(_row(table, f'{name}: with vs without stage 2'))} (paper, Table 7: +0.5 on AGNews to +19.4 on "
            "ACL-ARC)"
        )
    return lines


def mlm_lines(tlm, main, unigram: dict) -> list[str]:
    """Per task: the main setting's MLM accuracy on dev texts (mean ± SE over seeds) against that task's constant guess.

    One sentence per task, saying whether the mean is above or below the guess (``unigram``, :func:`unigram_guess`).
    """
    m = _by(tlm[main], "mlm_accuracy", "task")
    return [
        f"{name}: MLM accuracy on dev texts (main setting) {format_mean_se(m.loc[name, 'mean'], m.loc[name, 'se'])}, "
        f"{'above' if m.loc[name, 'mean'] > g else 'at or below'} always guessing that task's most common masked "
        f"token ({g:.3f})"
        for name, g in unigram.items()
        if name in m.index
    ]


def sentences(table, tlm, base, main, tasks: dict, sizes: dict, unigram: dict, heads) -> list[str]:
    """What this run shows, each comparison's verdict taken from the verdict table, the paper's number beside it.

    Per task: TLM against the baseline (with each one's training FLOPs), BM25 against random retrieval, stage 1 alone
    and what stage 2 adds; on the ablation task, K, rho1 and rho2 against their other values; per task the MLM against
    its constant guess (``unigram``); the attention heads (``heads``: :func:`attention_heads`' table, TLM's row first).
    One sentence per line.
    """
    s, a = task_sizes(sizes, sizes["ablation_task"]), sizes["ablation_task"]
    lines = _task_lines(table, tlm, base, main, tasks, s)
    ablations = [f"{a}: K={s['k']} vs K=0 (task data alone)"]
    ablations += [f"{a}: rho1={s['rho1']} vs rho1={r}" for r in s["rho1_ablation"]]
    ablations += [f"{a}: rho2={s['rho2']} vs rho2={r} (final score)" for r in s["rho2_ablation"]]
    lines += [f"{name}, test accuracy: {_said(_row(table, name))}" for name in ablations]
    lines += mlm_lines(tlm, main, unigram)
    hp, hv = heads["positional %"], heads["vertical %"]
    lines.append(
        f"attention heads: TLM {hp.iloc[0]:.0f}% positional / {hv.iloc[0]:.0f}% vertical; MiniLM "
        f"{hp.iloc[1]:.0f}% positional / {hv.iloc[1]:.0f}% vertical (paper: TLM has more positional, fewer "
        "vertical heads)"
    )
    return lines


def _beyond_noise(accuracy: float, guess: float, n: int, z: float = 2.33) -> bool:
    """Whether ``accuracy`` on ``n`` test examples beats a constant guess's by more than the test set's noise."""
    return bool((accuracy - guess) / math.sqrt(guess * (1 - guess) / n) > z)


def checks(tlm, base, main, plan_rows, base_plan, tasks: dict, sizes: dict, out) -> dict:
    """What CI asserts on every run: ``{claim: whether it holds}``.

    Every planned run (``plan_rows``, ``base_plan``) is there with its per-example predictions, stage 1 learned the
    task, the baseline and TLM beat chance, the figures and tables exist in ``out``, results.csv holds each task's
    constant guess.
    """
    a = sizes["ablation_task"]
    chance = {n: 1 / ds.num_classes for n, ds in tasks.items()}
    s_tlm, s_base = _by(tlm[main], "test_accuracy", "task"), _by(base, "test_accuracy", "task")
    s1 = _by(tlm[main], "stage1_test_accuracy", "task")
    files = (
        "results.csv",
        "figure3_attention_tlm.png",
        "figure3_attention_minilm.png",
        "mlm_accuracy.png",
        "table7_stage2.csv",
        "table3_retrieval.csv",
        "verdicts.csv",
    )
    results = read_results(out / "results.csv")
    guesses = set(results[results.metric == "constant_guess"].task)
    return {
        "every planned run measured": len(tlm) == len(plan_rows) and len(base) == len(base_plan),
        "at least 2 seeds per setting": bool(tlm.groupby(SETTING).size().min() >= 2),
        "the baseline beats chance on every task": all(bool(s_base.loc[n, "mean"] > chance[n] + 0.1) for n in tasks),
        "stage 1 alone beats the majority class beyond the test set's noise on the ablation task": _beyond_noise(
            s1.loc[a, "mean"], constant_guess(tasks[a].train.y, tasks[a].test.y), len(tasks[a].test.y)
        ),
        "TLM beats chance after stage 2 on the ablation task": bool(s_tlm.loc[a, "mean"] > chance[a] + 0.1),
        "figures and tables written": all((out / f).exists() for f in files),
        "per-example test predictions saved for every run": all(
            predictions_path(out, plain_run(r), KEYS).exists() for r in [*plan_rows, *base_plan]
        ),
        "constant-guess rows in results.csv for every task": guesses >= set(tasks),
    }


# --- the "how it works" pictures (one call each in the notebook) ------------------------------------------------


def draw_data_step(long_text_words: int = 64, n_keywords: int = 10):
    """TLM's data step as a row of boxes: task texts -> queries (RAKE for long ones) -> BM25 -> top-K -> their union.

    A text over ``long_text_words`` words is queried by its ``n_keywords`` RAKE phrases (``make_queries``).

    Example:
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> draw_data_step().axes[0].get_title()[:29]
        'kit.retrieval.select_external'
    """
    steps = [
        ("task text\n(one per query)", "#dbe9f6"),
        (f"query: the text, or\nits {n_keywords} RAKE phrases\nif over {long_text_words} words", "#fde2c8"),
        ("BM25 over the\ngeneral corpus", "#e2f0d9"),
        ("top-K passages\nper query", "#e2f0d9"),
        ("union of all queries'\npassages, task\ntexts kept out", "#eeeeee"),
        ("external\ndata S", "#f6d5d5"),
    ]
    title = "kit.retrieval.select_external: each task text retrieves K passages; their union is the external data"
    fig, ax = canvas((10.5, 1.8), (-1.0, 11.6), (-0.6, 0.6), title)
    boxes = [box(ax, i * 2.15, 0, label, color) for i, (label, color) in enumerate(steps)]
    for left, right in zip(boxes, boxes[1:]):
        arrow(ax, left, right, color="black", shrinkA=0, shrinkB=0)
    return fig


def draw_bm25_saturation(k1: float = 1.2, b: float = 0.75, ratios=(0.5, 1.0, 2.0, 4.0)):
    """BM25's term-frequency part ``tf / (tf + K)``, ``K = k1 (1 - b + b dl / avgdl)``, for documents of a few lengths.

    ``k1``: how fast repeats saturate; ``b``: how strongly a long document is discounted (``BM25Retriever``'s);
    ``ratios``: document lengths over the mean, a curve each.
    """
    import matplotlib.pyplot as plt

    tf = np.arange(0, 11)
    fig, ax = plt.subplots(figsize=(8, 2.8))
    for ratio, style in zip(ratios, ["o-", "s-", "^-", "v-", "d-"]):
        K = k1 * (1 - b + b * ratio)
        ax.plot(tf, tf / (tf + K), style, ms=4, label=f"dl / avgdl = {ratio:g}  (K = {K:.2f})")
    ax.axhline(1, color="gray", ls=":", lw=1)
    limit = "limit as tf grows: 1 (the weight tends to the idf)"
    ax.text(0.2, 0.97, limit, ha="left", va="top", fontsize=8, color="gray")
    ax.set(xlabel="tf: occurrences of the query term in the document", ylabel="tf / (tf + K)", ylim=(0, 1.05))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, title=f"k1 = {k1}, b = {b}", title_fontsize=8)
    fig.tight_layout()
    return fig


def draw_masking(mask_rate: float = 0.15, mask_token_rate: float = 0.8, random_token_rate: float = 0.1):
    """Which tokens MLM masking touches: the share of real tokens that become targets, and how the targets split.

    ``MLMMasker``'s rates: ``mask_rate`` of real tokens become targets, ``mask_token_rate`` of targets become [MASK],
    ``random_token_rate`` a random non-special token; the rest are kept.
    """
    import matplotlib.pyplot as plt

    target, masked, random = 100 * mask_rate, 100 * mask_token_rate, 100 * random_token_rate
    kept = 100 - masked - random
    rows = [
        (
            "all real tokens",
            [
                (f"not a target: {100 - target:g}%", 100 - target, "#eeeeee"),
                (f"target: {target:g}%", target, "tab:purple"),
            ],
        ),
        (
            "the targets",
            [
                (f"[MASK]: {masked:g}%", masked, "tab:blue"),
                (f"random\ntoken {random:g}%", random, "tab:orange"),
                (f"kept\nas is {kept:g}%", kept, "tab:green"),
            ],
        ),
    ]
    fig, ax = plt.subplots(figsize=(8, 2.1))
    for y, (_, parts) in enumerate(rows):
        left = 0
        for label, share, color in parts:
            ax.barh(y, share, left=left, color=color, edgecolor="black")
            ax.text(left + share / 2, y, label, ha="center", va="center", fontsize=8)
            left += share
    ax.set_yticks([0, 1], [r[0] for r in rows])
    ax.invert_yaxis()
    ax.set(xlabel="share of the row (%); the second row splits the targets", xlim=(0, 100))
    ax.set_title(
        f"kit.text.MLMMasker: mask_rate {mask_rate:g} (at most max_predictions targets a sentence),\n"
        f"mask_token_rate {mask_token_rate:g}, random_token_rate {random_token_rate:g} (never a special token)",
        fontsize=9,
    )
    fig.tight_layout()
    return fig


def draw_stream(rho1: int = 3, rho2: float = 20, steps: int = 12):
    """Stage 1's stream of batches on a time axis, each batch's loss weights stacked (MLM, then the task).

    ``rho1`` external batches follow each internal one, whose MLM weighs ``rho2`` against its task loss, normalised by
    ``rho2 + 1``; ``steps`` drawn.
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 2.6))
    for step in range(steps):
        internal = step % (rho1 + 1) == 0
        w_mlm, w_task = (rho2 / (rho2 + 1), 1 / (rho2 + 1)) if internal else (1.0, 0.0)
        label = "MLM, internal (task) batch" if internal else "MLM, external (retrieved) batch"
        ax.bar(
            step,
            w_mlm,
            color="tab:blue" if internal else "tab:green",
            edgecolor="black",
            width=0.8,
            label=label if step <= 1 else None,
        )
        ax.bar(
            step,
            w_task,
            bottom=w_mlm,
            color="tab:orange",
            edgecolor="black",
            width=0.8,
            label="task loss, internal batch" if step == 0 else None,
        )
    for step in range(0, steps, rho1 + 1):
        ax.text(step, 1.03, f"MLM {rho2:g}/{rho2 + 1:g}\ntask 1/{rho2 + 1:g}", ha="center", va="bottom", fontsize=7)
    if rho1 >= 1 and steps > 1:  # an external batch's weights, over the second one when there are two
        ax.text(min(2, rho1), 1.03, "MLM 1\ntask 0", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(steps))
    ax.set(xlabel="stage-1 step", ylabel="loss weight", ylim=(0, 1.3))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    ax.set_title(
        f"one internal batch, then rho1 = {rho1} external ones; an internal batch's loss is "
        "(rho2·MLM + task) / (rho2 + 1)",
        fontsize=9,
    )
    fig.tight_layout()
    return fig


# --- this run beside the committed medium run --------------------------------------------------------------------

#: The keys that name one setting in the long results (``results.csv``, ``benchmarks/medium_gpu/02_results.csv``).
SCALE_KEYS = ["experiment", "task", "retrieval", "K", "rho1", "rho2"]


def setting_label(setting: str) -> str:
    """A setting of :func:`kit.analysis.scale_table` as a person reads it.

    ``setting``: ``"experiment | task | retrieval | K | rho1 | rho2"``.

    Example:
        >>> setting_label("tlm | bbc_news | bm25 | 8 | 3 | 20"), setting_label("tlm | bbc_news | none | 0 | 0 | 20")
        ('TLM: BM25, K=8, rho1=3, rho2=20', 'TLM: task data only, rho2=20')
        >>> setting_label("minilm_finetuned | bbc_news | - | 0 | 0 | 0")
        'minilm fine-tuned (the baseline)'
    """
    experiment, _task, retrieval, k, rho1, rho2 = setting.split(" | ")
    if experiment != "tlm":
        return experiment.replace("_finetuned", " fine-tuned").replace("_", " ") + " (the baseline)"
    if retrieval == "none":
        return f"TLM: task data only, rho2={rho2}"
    return f"TLM: {'BM25' if retrieval == 'bm25' else retrieval}, K={k}, rho1={rho1}, rho2={rho2}"


def scales_figure(ours, medium, guesses: dict, scale: str = "smoke"):
    """This run beside the committed medium run: one panel per task, each setting's final test accuracy at both.

    Each medium run is also drawn alone (a cross), so runs stuck at the majority class show apart from those that
    learned; the title counts them (macro-F1 under 0.1 with five classes: one class predicted). ``ours``: this run's
    long results (:data:`SCALE_KEYS`, ``seed``, ``metric``, ``value``); ``medium``: :func:`kit.analysis.medium_results`
    of notebook 02, or None; ``guesses``: ``{task: this run's constant guess}``, a panel each, in order.
    """
    import matplotlib.pyplot as plt

    metric = "test_accuracy"
    medium = medium if medium is not None else ours.iloc[:0]
    f1, runs = medium[medium.metric == "test_macro_f1"], medium[medium.metric == metric]
    tables = {
        name: scale_table(ours[ours.task == name], medium[medium.task == name], SCALE_KEYS, metric) for name in guesses
    }
    fig, axes = plt.subplots(
        len(tables),
        1,
        figsize=(9, 0.55 * sum(map(len, tables.values())) + 2 * len(tables)),
        gridspec_kw={"height_ratios": [len(t) + 2 for t in tables.values()]},
        squeeze=False,
    )
    for ax, (name, table) in zip(axes[:, 0], tables.items()):
        mine = runs[runs.task == name]  # each medium run: a cross on its row
        crosses = [(" | ".join(str(getattr(r, k)) for k in SCALE_KEYS), r.value) for r in mine.itertuples()]
        plot_scales(
            table.assign(setting=[setting_label(s) for s in table.setting]),
            metric_label="test accuracy (%)",
            guess=guesses[name],
            ax=ax,
            title=f"{name}: final test accuracy of each setting",
            runs=[(setting_label(s), v) for s, v in crosses],
        )
    stuck = int((f1.value < 0.1).sum())
    fig.suptitle(
        f"This {scale} run beside medium (one H200, jax, 2026-11-26): medium stopped early after {len(f1)} "
        f"runs,\n{stuck} of them stuck at the majority class (benchmarks/medium_gpu)",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.97))  # room for the title
    return fig
