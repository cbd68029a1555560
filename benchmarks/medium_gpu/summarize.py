"""The medium runs of this folder as tables with their tests: ``python benchmarks/medium_gpu/summarize.py``.

Reads the ``NN_results.csv`` that the notebooks' sweeps wrote on the GPU (runs as they finished; the runs were
stopped when the session's device time ran out, so each holds the first runs of its plan) and prints, per notebook,
mean ± standard error over seeds and Welch's t-test (kit.analysis.welch) for the comparisons the finished runs allow.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from kit.analysis.spread import difference, format_mean_se, summarize

HERE = Path(__file__).resolve().parent


def stats(values):
    """Mean, standard error and number of seeds of one arm (kit.analysis.summarize)."""
    return summarize(pd.DataFrame({"value": list(values), "arm": 0}), "arm").iloc[0]


def fmt(values, scale=100.0) -> str:
    s = stats(values)
    return f"{format_mean_se(s['mean'], s['se'], scale, 1)} ({int(s['seeds'])})"


def compare(label: str, a, b, scale=100.0, unit=" points") -> str:
    return f"- {label}: {difference(stats(a), stats(b)).text(scale, unit)}"


def runs(nb: str, keys: list[str]) -> pd.DataFrame:
    d = pd.read_csv(HERE / f"{nb}_results.csv")
    return d.pivot_table(index=keys, columns="metric", values="value").reset_index()


def notebook01() -> list[str]:
    r = runs("01", ["model", "train_examples", "seed"])
    r = r[r.train_examples > 0]
    out = [
        "### 01 To Pretrain or Not (test accuracy, %, mean ± SE (seeds))",
        "",
        "| model | " + " | ".join(f"{n:,}" for n in sorted(r.train_examples.unique())) + " |",
        "|---|" + "---|" * r.train_examples.nunique(),
    ]
    for model, g in r.groupby("model", sort=False):
        cells = [
            fmt(g[g.train_examples == n].test_accuracy) if (g.train_examples == n).any() else "not run"
            for n in sorted(r.train_examples.unique())
        ]
        out.append(f"| {model} | " + " | ".join(cells) + " |")
    out.append("")
    lstm, emb = (r[r.model == m] for m in ("LSTM-2-256", "LSTM-4-256 + MiniLM emb"))
    for n in sorted(set(lstm.train_examples) & set(emb.train_examples)):
        out.append(
            compare(
                f"LSTM-4-256 + MiniLM emb vs LSTM-2-256 at {n:,}",
                emb[emb.train_examples == n].test_accuracy,
                lstm[lstm.train_examples == n].test_accuracy,
            )
        )
    small, large = (lstm[lstm.train_examples == n].test_accuracy for n in (300, 8454))
    out.append(compare("LSTM-2-256 at 8,454 vs at 300 sentences", large, small))
    return out


def notebook02() -> list[str]:
    r = runs("02", ["experiment", "task", "retrieval", "K", "rho1", "rho2", "seed"])
    out = [
        "### 02 TLM (BBC News, 5 topics; test accuracy, %, mean ± SE (seeds))",
        "",
        "| retrieval | all runs | runs whose stage 1 learned | runs at the constant guess (0.230) |",
        "|---|---|---|---|",
    ]
    arms = {}
    for retrieval, g in r[r.task == "bbc_news"].groupby("retrieval"):
        stuck = g.mlm_accuracy < 0.06  # the MLM predicts the most frequent token: nothing learned
        arms[retrieval] = (g.test_accuracy, g[~stuck].test_accuracy)
        out.append(
            f"| {retrieval} (seeds {', '.join(str(int(s)) for s in g.seed)}) | {fmt(g.test_accuracy)} | "
            f"{fmt(g[~stuck].test_accuracy)} | {int(stuck.sum())} of {len(g)} |"
        )
    out.append("")
    out.append(compare("BM25 vs random retrieval, all runs", arms["bm25"][0], arms["random"][0]))
    out.append(compare("BM25 vs random retrieval, runs whose stage 1 learned", arms["bm25"][1], arms["random"][1]))
    stuck = r[r.mlm_accuracy < 0.06]
    ok = r[r.mlm_accuracy >= 0.06]
    out.append(
        f"- stage-1 MLM loss at steps 250 / 500 / 1,000: runs that learned "
        f"{ok.stage1_mlm_loss_step250.mean():.2f} / {ok.stage1_mlm_loss_step500.mean():.2f} / "
        f"{ok.stage1_mlm_loss_step1000.mean():.2f}, runs that did not {stuck.stage1_mlm_loss_step250.mean():.2f} / "
        f"{stuck.stage1_mlm_loss_step500.mean():.2f} / {stuck.stage1_mlm_loss_step1000.mean():.2f}"
    )
    return out


def notebook03() -> list[str]:
    r = runs("03", ["task", "model", "strategy", "seed"])
    out = [
        "### 03 To Tune or Not to Tune (Brown POS tags, 4,000 training sentences; token accuracy, %, mean ± SE "
        "(seeds))",
        "",
        "| model | strategy | token accuracy | epochs (phase 1 + 2) | seconds a run |",
        "|---|---|---|---|---|",
    ]
    for (model, strategy), g in r.groupby(["model", "strategy"], sort=False):
        epochs = g.phase1_epochs.fillna(0) + g.get("phase2_epochs", pd.Series(0, index=g.index)).fillna(0)
        out.append(f"| {model} | {strategy} | {fmt(g.token_accuracy)} | {epochs.mean():.1f} | {g.seconds.mean():.0f} |")
    out.append("")
    pick = lambda m, s: r[(r.model == m) & (r.strategy == s)].token_accuracy  # noqa: E731
    out.append(
        compare(
            "BiLSTM head, stack-and-finetune vs stack only",
            pick("bilstm", "stack_and_finetune"),
            pick("bilstm", "stack_only"),
        )
    )
    out.append(
        compare(
            "BiLSTM head, stack-and-finetune vs fine-tune only",
            pick("bilstm", "stack_and_finetune"),
            pick("bilstm", "finetune_only"),
        )
    )
    out.append(
        compare(
            "BiLSTM head stack-and-finetune vs light head fine-tuned at the same budget",
            pick("bilstm", "stack_and_finetune"),
            pick("light", "finetune_only_matched"),
        )
    )
    out.append(
        compare(
            "light head fine-tuned, same budget vs phase-2 budget only",
            pick("light", "finetune_only_matched"),
            pick("light", "finetune_only"),
        )
    )
    return out


def notebook04() -> list[str]:
    r = runs("04", ["experiment", "setting", "task", "seed"])
    guess = {"sst": 0.356, "qqp": 0.500, "sts": 0.0}  # the run's own constant guesses (04_run.log, cell 2's table)
    out = [
        "### 04 SerBERTus (test score, %, mean ± SE (seeds); SST stand-in accuracy, QQP stand-in accuracy, "
        "STS stand-in Pearson x 100)",
        "",
        "| experiment | setting | task | test | train | train - test | constant guess |",
        "|---|---|---|---|---|---|---|",
    ]
    for (exp, setting, task), g in r.groupby(["experiment", "setting", "task"], sort=False):
        out.append(
            f"| {exp} | {setting} | {task} | {fmt(g.test_score)} | {fmt(g.train_score)} | "
            f"{fmt(g.train_score - g.test_score)} | {guess[task] * 100:.1f} |"
        )
    out.append("")
    base = r[(r.experiment == "baseline") & (r.task == "sst")]
    for setting in ("lambda_s=1", "lambda_s=10"):
        s = r[(r.experiment == "smart") & (r.setting == setting)]
        out.append(compare(f"SMART {setting} vs none (SST stand-in, test)", s.test_score, base.test_score))
        out.append(
            compare(
                f"SMART {setting} vs none (SST stand-in, train - test gap)",
                s.train_score - s.test_score,
                base.train_score - base.test_score,
            )
        )
    return out


if __name__ == "__main__":
    for part in (notebook01, notebook02, notebook03, notebook04):
        print("\n".join(part()) + "\n")
