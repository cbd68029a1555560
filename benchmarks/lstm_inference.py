"""BiLSTM inference: the kit's LSTM-n-k classifier vs plain PyTorch nn.LSTM, per backend, one run.

    python benchmarks/lstm_inference.py                       # batch 128, seq 256, LSTM-2-256
    python benchmarks/lstm_inference.py --seq 512 --repeats 3

Each backend runs in its own process (KERAS_BACKEND is fixed at import); inside
it, the plain PyTorch model with the same shapes (embedding 300, 2 bidirectional
layers of 256, max pooling, linear head) is timed right after the kit's, so the
ratio compares like with like. On torch the kit is timed with its fused fast
path and without it (Keras' own LSTM loop).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

WORKER = r"""
import json, os, statistics, sys, time
import numpy as np
import torch
args = json.loads(sys.argv[1])
torch.set_num_threads(os.cpu_count())
import keras
from kit.models import build_lstm_classifier
from kit.analysis import time_inference

B, L, V, E, n, k, R = args["batch"], args["seq"], args["vocab"], 300, args["layers"], args["cells"], args["repeats"]
rng = np.random.default_rng(0)
x = rng.integers(1, V, size=(B, L)).astype("int32")
rows = []

def kit_row(fast):
    keras.utils.set_random_seed(0)
    model = build_lstm_classifier(V, 2, n_layers=n, cells=k, embedding_dim=E, dropout=0.1)
    model.get_layer("encoder").fast_path = fast
    r = time_inference(model, x, repeats=R, warmup=1, compiled=True)
    r["model"] = f"kit LSTM-{n}-{k}" + ("" if fast or keras.backend.backend() != "torch" else " (no fast path)")
    return r

rows.append(kit_row(True))
if keras.backend.backend() == "torch":
    rows.append(kit_row(False))

class Plain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(V, E, padding_idx=0)
        self.lstm = torch.nn.LSTM(E, k, num_layers=n, bidirectional=True, batch_first=True, dropout=0.1)
        self.head = torch.nn.Linear(2 * k, 2)
    def forward(self, ids):
        out, _ = self.lstm(self.emb(ids))
        return self.head(out.max(dim=1).values)

plain = Plain().eval()
xt = torch.as_tensor(x, dtype=torch.int64)
with torch.inference_mode():
    plain(xt)
    times = []
    for _ in range(R):
        t = time.perf_counter(); plain(xt); times.append((time.perf_counter() - t) * 1000)
rows.append({"model": "plain PyTorch nn.LSTM", "backend": "torch (plain)", "batch_size": B, "sequence_length": L,
             "compiled": False, "median_ms": statistics.median(times)})
print("RESULT " + json.dumps(rows))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backends", default="jax,tensorflow,torch")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--cells", type=int, default=256)
    ap.add_argument("--vocab", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    cfg = json.dumps({k: getattr(args, k) for k in ("batch", "seq", "layers", "cells", "vocab", "repeats")})
    print(
        f"LSTM-{args.layers}-{args.cells}, batch {args.batch}, seq {args.seq}, {os.cpu_count()} cores; "
        f"median ms per batch of {args.repeats} runs after 1 warm-up"
    )
    table = []
    for backend in args.backends.split(","):
        t = time.time()
        env = dict(os.environ, KERAS_BACKEND=backend, TF_CPP_MIN_LOG_LEVEL="3")
        res = subprocess.run([sys.executable, "-c", WORKER, cfg], env=env, capture_output=True, text=True)
        line = next((ln for ln in res.stdout.splitlines() if ln.startswith("RESULT ")), None)
        if line is None:
            print(f"{backend}: failed\n{res.stderr[-2000:]}")
            continue
        rows = json.loads(line[7:])
        plain_ms = rows[-1]["median_ms"]
        for r in rows[:-1]:
            r["plain_torch_ms"] = plain_ms
            r["ratio_vs_plain_torch"] = r["median_ms"] / plain_ms
            table.append(r)
            print(
                f"{backend:<11} {r['model']:<32} {r['median_ms']:9.1f} ms | plain PyTorch {plain_ms:9.1f} ms | "
                f"ratio {r['ratio_vs_plain_torch']:.2f}x  ({time.time() - t:.0f}s)"
            )
    if args.out:
        with open(args.out, "w") as f:
            json.dump(table, f, indent=1)


if __name__ == "__main__":
    main()
