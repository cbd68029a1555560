"""Why 3 of 9 TLM runs at medium never learned, and what the MLM head's unigram prior changes: a CPU probe.

At medium scale (6 x 512 BERT from scratch, 1,000 stage-1 steps, BBC News + BM25, jax on an H200) 3 runs of 9
ended with the MLM at the most frequent token and the classifier at the majority class
(``medium_gpu/02_results.csv``). This script trains the first steps of stage 1 exactly as notebook 02 does
(``kit.papers.tlm``: the same tasks, retrieval, vocabulary, model and stream) and records, every chunk, the
mean MLM loss and how alike the final token states are: the mean cosine between 512 token states drawn from 32
dev texts (1: every token has the same state, the model can only predict one distribution everywhere).

    python benchmarks/tlm_collapse.py --prior zero --seed 0 --steps 600 --chunks 20 --proxy
    python benchmarks/tlm_collapse.py --prior unigram --seed 0 --steps 250 --total 1000 --chunks 10

``--proxy`` shrinks the model to 6 x 256 at sequence length 64 and batch 32 (0.75 s a step on 2 CPU cores,
against 12 s at medium); ``--total`` is the schedule's length when only its first ``--steps`` are trained.
Each chunk appends one row to ``benchmarks/tlm_collapse/results.csv``.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
os.environ.setdefault("KERAS_BACKEND", "jax")

import keras  # noqa: E402
import numpy as np  # noqa: E402

import kit  # noqa: E402
from kit.papers.tlm import tlm_runs as runs  # noqa: E402
from kit.papers.tlm import tlm_sizes  # noqa: E402
from kit.train import tlm_training  # noqa: E402
from kit.train.masked_lm import fit_in_chunks  # noqa: E402

PROXY = {"hidden_dim": 256, "intermediate_dim": 1024, "num_heads": 4, "sequence_length": 64, "batch_size": 32}
FIELDS = ["model", "prior", "seed", "retrieval", "total_steps", "step", "mlm_loss", "token_state_cosine", "seconds"]


def token_state_cosine(model, probe, n=512) -> float:
    """Mean cosine between ``n`` final token states of ``probe`` (padding left out), pairs of distinct states."""
    h = keras.ops.convert_to_numpy(model.backbone(probe, training=False)["sequence_output"]).astype("float64")
    v = h[np.asarray(probe["padding_mask"]).astype(bool)]
    v = v[np.random.default_rng(0).choice(len(v), min(n, len(v)), replace=False)]
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    c = v @ v.T
    return float((c.sum() - len(v)) / (len(v) * (len(v) - 1)))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--prior", choices=["zero", "unigram"], required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--retrieval", default="bm25", choices=["bm25", "random"])
    p.add_argument("--steps", type=int, default=250)
    p.add_argument("--total", type=int, default=None, help="the schedule's steps (default: --steps)")
    p.add_argument("--chunks", type=int, default=10)
    p.add_argument("--proxy", action="store_true", help="6 x 256, sequence length 64, batch 32")
    p.add_argument("--out", type=Path, default=HERE / "tlm_collapse" / "results.csv")
    a = p.parse_args()
    S = {**tlm_sizes.DEFAULTS, **tlm_sizes.SCALES["medium"], "max_corpus_share": None, **(PROXY if a.proxy else {})}
    S["tasks"] = {"bbc_news": "news"}  # the medium run's (5,867 passages: before max_corpus_share)
    tasks = runs.load_tasks(S)
    corpus, _ = runs.load_corpus()
    selections, _ = runs.retrieve(tasks, corpus, S)
    enc = kit.models.load_backbone("minilm-l6", sequence_length=S["sequence_length"])
    tokens = runs.Tokens.prepare(tasks, corpus, selections, enc.preprocessor, S["vocabulary_size"])
    ds, x = tasks["bbc_news"], tokens.x["bbc_news"]
    ext = tokens.external(selections[("bbc_news", a.retrieval, S["k"])])
    model = runs.new_tlm_model(S, tokens, ds.num_classes, a.seed)
    if a.prior == "unigram":  # what train_stage1 does with mlm_prior="unigram"
        m = tokens.masker
        kit.train.set_mlm_prior(model, kit.train.unigram_log_prior([x["train"], ext], m.vocabulary_size,
                                                                   m.special_token_ids))  # fmt: skip
    probe = {k: v[:32] for k, v in x["dev"].items()}
    total = a.total or a.steps
    recipe = tlm_training.Stage1Recipe(rho1=S["rho1"], rho2=S["rho2"], steps=total, batch_size=S["batch_size"])
    make = tlm_training._stream_maker((x["train"], ds.train.y), ext, tokens.masker, recipe, a.seed)
    tlm_training.compile_stage1(model, learning_rate=S["stage1_lr"], steps=total, warmup=S["warmup"])
    a.out.parent.mkdir(parents=True, exist_ok=True)
    new = not a.out.exists()
    shape = "proxy 6x256 L64 B32" if a.proxy else "medium 6x512 L128 B64"
    t = time.perf_counter()
    with a.out.open("a", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        if new:
            w.writeheader()
        row = dict(model=shape, prior=a.prior, seed=a.seed, retrieval=a.retrieval, total_steps=total)

        def progress(done, steps, logs):
            w.writerow({**row, "step": done, "mlm_loss": round(float(logs["mlm_loss"]), 4),
                        "token_state_cosine": round(token_state_cosine(model, probe), 4),
                        "seconds": round(time.perf_counter() - t)})  # fmt: skip
            f.flush()
            print(f"step {done}/{steps}: mlm loss {logs['mlm_loss']:.3f}", flush=True)

        w.writerow({**row, "step": 0, "mlm_loss": "", "token_state_cosine": round(token_state_cosine(model, probe), 4),
                    "seconds": 0})  # fmt: skip
        fit_in_chunks(model, make, a.steps, a.chunks, progress=progress)


if __name__ == "__main__":
    main()
