"""The kit on a GPU: the paper's Table 3 (inference, batch 128/256/384 x 512) and fine-tuning steps/s,
the kit's models on each Keras backend vs the same shapes in plain PyTorch, in one run on one machine.

    python benchmarks/gpu.py                      # every backend that imports, then the report
    python benchmarks/gpu.py --backends jax,torch --quick
    python benchmarks/gpu.py --report             # the markdown tables from the saved JSON

Each backend runs in its own process (KERAS_BACKEND is fixed at import); plain PyTorch runs in a process of
its own too. Models have random weights (speed does not depend on training): LSTM-2-256 and LSTM-4-256
(embedding 300, vocabulary 20,000, max pooling, linear head), a MiniLM-L6-shaped and a BERT-base-shaped
BERT classifier; plain PyTorch is ``nn.LSTM`` (cuDNN) and HuggingFace ``BertForSequenceClassification``
(SDPA attention). Medians of ``--repeats`` after warm-ups. Before timing, each process checks on the GPU
that the kit's fused LSTM path computes what Keras' generic LSTM computes (left and right padding), and
writes the largest difference into the results. Results: ``results_gpu_<backend>.json`` beside this script.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHAPES = {  # name: (layers, hidden, heads, intermediate)
    "MiniLM-L6 shape": (6, 384, 12, 1536),
    "BERT-base shape": (12, 768, 12, 3072),
}
LSTMS = {"LSTM-2-256": 2, "LSTM-4-256": 4}
VOCAB, EMB = 20000, 300

KIT_WORKER = r"""
import json, os, statistics, sys, time
import numpy as np
args = json.loads(sys.argv[1])
import kit, keras
from kit.models import BertBackbone, build_classifier, build_lstm_classifier
from kit.devices import describe_devices

backend = keras.backend.backend()
rng = np.random.default_rng(0)
LSTMS, SHAPES, VOCAB, EMB = {"LSTM-2-256": 2, "LSTM-4-256": 4}, args["shapes"], 20000, 300
rows = [{"what": "machine", "impl": f"kit-{backend}", "device": describe_devices(), "keras": keras.__version__,
         "framework": (__import__("jax").__version__ if backend == "jax" else __import__("torch").__version__)}]

def add(row):   # each figure is saved as it is measured: a run stopped half-way keeps what it measured
    rows.append(row)
    json.dump(rows, open(args["out"], "w"), indent=1)

def sync(x):
    return keras.ops.convert_to_numpy(x if not isinstance(x, dict) else next(iter(x.values())))

def timed(fn, warmup, repeats):
    for _ in range(warmup):
        sync(fn())
    times = []
    for _ in range(repeats):
        t = time.perf_counter(); sync(fn()); times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), min(times)

# 1. the fused LSTM path on this GPU equals Keras' generic path (left and right padding)
from kit.models import BiLSTMEncoder
x = rng.normal(size=(16, 40, 32)).astype("float32")
for side in ("right", "left"):
    lengths = rng.integers(5, 41, 16)
    pos = np.arange(40)[None, :]
    mask = pos < lengths[:, None] if side == "right" else pos >= 40 - lengths[:, None]
    fast = BiLSTMEncoder(2, 64, dropout=0.0, pooling=None, fast_path=True)
    slow = BiLSTMEncoder(2, 64, dropout=0.0, pooling=None, fast_path=False)
    fast(x); slow(x); slow.set_weights(fast.get_weights())
    m = keras.ops.convert_to_tensor(mask)
    diff = float(np.abs(sync(fast(x, mask=m)) - sync(slow(x, mask=m))).max())
    add({"what": "check", "impl": f"kit-{backend}", "path": fast.implementation(), "padding": side,
                 "max_abs_diff": diff})
    print(f"[{backend}] fused LSTM path {fast.implementation()} vs generic, {side} padding: max |diff| {diff:.2e}",
          flush=True)

# 1b. gradients of the path that trains (training=True) against the generic path, 4 layers
f = BiLSTMEncoder(4, 64, dropout=0.0, pooling="max", fast_path=True)
g = BiLSTMEncoder(4, 64, dropout=0.0, pooling="max", fast_path=False)
f(x); g(x); g.set_weights(f.get_weights())
m = keras.ops.convert_to_tensor(np.arange(40)[None, :] < rng.integers(5, 41, 16)[:, None])
if backend == "jax":
    import jax, jax.numpy as jnp
    def grads(layer):
        fn = lambda w: jnp.sum(layer.stateless_call(w, [v.value for v in layer.non_trainable_variables], x, mask=m,
                                                     training=True)[0])
        return [np.asarray(a) for a in jax.grad(fn)([v.value for v in layer.trainable_variables])]
else:
    import torch
    def grads(layer):
        for v in layer.trainable_variables:
            v.value.grad = None
        layer(torch.as_tensor(x, device=m.device), mask=m, training=True).sum().backward()   # x on the GPU too
        return [v.value.grad.detach().cpu().numpy() for v in layer.trainable_variables]
diff = max(float(np.abs(a - b).max()) for a, b in zip(grads(f), grads(g)))
add({"what": "check", "impl": f"kit-{backend}", "path": f.implementation(training=True), "padding": "gradients",
             "max_abs_diff": diff})
print(f"[{backend}] training path {f.implementation(training=True)} gradients vs generic (4 layers): "
      f"max |diff| {diff:.2e}", flush=True)

# 2. inference (the paper's Table 3 on a GPU)
L = args["seq"]
for name, n in LSTMS.items():
    model = build_lstm_classifier(VOCAB, 2, n_layers=n, cells=256, embedding_dim=EMB)
    for b in args["batches"]:
        ids = rng.integers(1, VOCAB, (b, L)).astype("int32")
        med, lo = timed(lambda: model.predict_on_batch(ids), args["warmup"], args["repeats"])
        add({"what": "inference", "model": name, "impl": f"kit-{backend}", "batch": b, "seq": L,
                     "precision": "float32", "median_ms": med, "min_ms": lo})
        print(f"[{backend}] {name} batch {b} x {L}: {med:.1f} ms", flush=True)
    keras.backend.clear_session()
for name, (layers, hidden, heads, inter) in SHAPES.items():
    if args["tiny"]:
        layers, hidden, heads, inter = 1, 32, 2, 64
    bb = BertBackbone(vocabulary_size=30522, num_layers=layers, num_heads=heads, hidden_dim=hidden,
                      intermediate_dim=inter, max_sequence_length=512, hidden_activation="gelu")
    model = build_classifier(bb, 2)
    for b in args["batches"]:
        inp = {"token_ids": rng.integers(1, 30522, (b, L)).astype("int32"), "segment_ids": np.zeros((b, L), "int32"),
               "padding_mask": np.ones((b, L), "int32")}
        med, lo = timed(lambda: model.predict_on_batch(inp), args["warmup"], args["repeats"])
        add({"what": "inference", "model": name, "impl": f"kit-{backend}", "batch": b, "seq": L,
                     "precision": "float32", "median_ms": med, "min_ms": lo})
        print(f"[{backend}] {name} batch {b} x {L}: {med:.1f} ms", flush=True)
    keras.backend.clear_session()

# 3. training steps/s: BERT-base shape batch 32 x 128 (float32, mixed_bfloat16), LSTM-2-256 batch 64 x 256
TB, TL, LB, LL = (4, 16, 4, 16) if args["tiny"] else (32, 128, 64, 256)
for policy in ("float32", "mixed_bfloat16"):
    keras.config.set_dtype_policy(policy)
    for name, build, x_fn, b, L2 in (
            ("BERT-base shape", lambda: build_classifier(BertBackbone(vocabulary_size=30522, num_layers=12,
                                                                      num_heads=12, hidden_dim=768,
                                                                      intermediate_dim=3072, max_sequence_length=512,
                                                                      hidden_activation="gelu"), 2),
             lambda b, L: {"token_ids": rng.integers(1, 30522, (b, L)).astype("int32"),
                           "segment_ids": np.zeros((b, L), "int32"), "padding_mask": np.ones((b, L), "int32")}, TB, TL),
            ("LSTM-2-256", lambda: build_lstm_classifier(VOCAB, 2, n_layers=2, cells=256, embedding_dim=EMB),
             lambda b, L: rng.integers(1, VOCAB, (b, L)).astype("int32"), LB, LL)):
        model = build()
        model.compile(optimizer=keras.optimizers.AdamW(1e-4),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        xb, yb = x_fn(b, L2), rng.integers(0, 2, b)
        for _ in range(3):
            model.train_on_batch(xb, yb)
        t = time.perf_counter()
        for _ in range(args["train_steps"]):
            loss = model.train_on_batch(xb, yb)
        float(np.asarray(loss))
        sps = args["train_steps"] / (time.perf_counter() - t)
        add({"what": "train", "model": name, "impl": f"kit-{backend}", "batch": b, "seq": L2,
                     "precision": policy, "steps_per_s": sps})
        print(f"[{backend}] train {name} {policy} batch {b} x {L2}: {sps:.1f} steps/s", flush=True)
        keras.backend.clear_session()
    keras.config.set_dtype_policy("float32")
json.dump(rows, open(args["out"], "w"), indent=1)
"""

PLAIN_WORKER = r"""
import json, statistics, sys, time
import numpy as np
import torch
from torch import nn
args = json.loads(sys.argv[1])
dev = torch.device("cuda")
rng = np.random.default_rng(0)
rows = [{"what": "machine", "impl": "plain-torch", "device": torch.cuda.get_device_name(0), "torch": torch.__version__}]

def add(row):   # each figure is saved as it is measured
    rows.append(row)
    json.dump(rows, open(args["out"], "w"), indent=1)

class LSTMClassifier(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.emb = nn.Embedding(20000, 300, padding_idx=0)
        self.lstm = nn.LSTM(300, 256, num_layers=n, bidirectional=True, batch_first=True)
        self.out = nn.Linear(512, 2)
    def forward(self, ids):
        h, _ = self.lstm(self.emb(ids))
        return self.out(h.max(1).values)

def bert(layers, hidden, heads, inter):
    from transformers import BertConfig, BertForSequenceClassification
    cfg = BertConfig(vocab_size=30522, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                     intermediate_size=inter, num_labels=2, attn_implementation="sdpa")
    return BertForSequenceClassification(cfg)

def timed(fn, warmup, repeats):
    for _ in range(warmup):
        fn(); torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        torch.cuda.synchronize(); t = time.perf_counter(); fn(); torch.cuda.synchronize()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), min(times)

L = args["seq"]
models = {f"LSTM-{n}-256": (lambda n=n: LSTMClassifier(n), "lstm") for n in (2, 4)}
models |= {name: (lambda s=s: bert(*s), "bert") for name, s in args["shapes"].items()}
for name, (build, kind) in models.items():
    model = build().to(dev).eval()
    for b in args["batches"]:
        ids = torch.tensor(rng.integers(1, 20000 if kind == "lstm" else 30522, (b, L)), device=dev)
        with torch.no_grad():
            fn = (lambda: model(ids)) if kind == "lstm" else (lambda: model(input_ids=ids).logits)
            med, lo = timed(fn, args["warmup"], args["repeats"])
        add({"what": "inference", "model": name, "impl": "plain-torch", "batch": b, "seq": L,
                     "precision": "float32", "median_ms": med, "min_ms": lo})
        print(f"[plain torch] {name} batch {b} x {L}: {med:.1f} ms", flush=True)
    del model; torch.cuda.empty_cache()

for policy in ("float32", "mixed_bfloat16"):
    for name, build, kind, b, L2 in (("BERT-base shape", lambda: bert(12, 768, 12, 3072), "bert", 32, 128),
                                     ("LSTM-2-256", lambda: LSTMClassifier(2), "lstm", 64, 256)):
        model = build().to(dev).train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        ids = torch.tensor(rng.integers(1, 20000, (b, L2)), device=dev)
        y = torch.tensor(rng.integers(0, 2, b), device=dev)
        def step():
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=policy != "float32"):
                logits = model(ids) if kind == "lstm" else model(input_ids=ids).logits
                loss = nn.functional.cross_entropy(logits.float(), y)
            opt.zero_grad(); loss.backward(); opt.step()
        for _ in range(3):
            step()
        torch.cuda.synchronize(); t = time.perf_counter()
        for _ in range(args["train_steps"]):
            step()
        torch.cuda.synchronize()
        sps = args["train_steps"] / (time.perf_counter() - t)
        add({"what": "train", "model": name, "impl": "plain-torch", "batch": b, "seq": L2, "precision": policy,
                     "steps_per_s": sps})
        print(f"[plain torch] train {name} {policy} batch {b} x {L2}: {sps:.1f} steps/s", flush=True)
        del model, opt; torch.cuda.empty_cache()
json.dump(rows, open(args["out"], "w"), indent=1)
"""


def run_worker(kind: str, args, out: Path) -> bool:
    params = {
        "seq": args.seq,
        "batches": args.batches,
        "warmup": args.warmup,
        "repeats": args.repeats,
        "train_steps": args.train_steps,
        "out": str(out),
        "shapes": SHAPES,
        "tiny": args.tiny,
    }
    env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false")
    if kind == "plain":
        code = PLAIN_WORKER
    else:
        code, env["KERAS_BACKEND"] = KIT_WORKER, kind
    t = time.time()
    res = subprocess.run([sys.executable, "-c", code, json.dumps(params)], env=env)
    print(f"-- {kind}: exit {res.returncode} in {time.time() - t:.0f} s", flush=True)
    return res.returncode == 0


def report(folder: Path = HERE) -> str:
    rows = []
    for f in sorted(folder.glob("results_gpu_*.json")):
        rows += json.loads(f.read_text())
    if not rows:
        return "no results_gpu_*.json yet"
    import pandas as pd

    df = pd.DataFrame(rows)
    out = []
    machines = df[df.what == "machine"]
    out.append("Machine: " + "; ".join(f"{r.impl}: {r.device}" for r in machines.itertuples()))
    checks = df[df.what == "check"]
    if len(checks):
        out.append(
            "\nFused LSTM paths on the GPU vs Keras' generic LSTM (max |difference|; outputs at inference, "
            "gradients of the path that trains):\n"
        )
        out.append(
            "| backend | inference path | outputs, right padding | outputs, left padding | training path | "
            "gradients |\n|---|---|---|---|---|---|"
        )
        for impl, g in checks.groupby("impl"):
            d = g.set_index("padding")
            get = lambda k, d=d: f"{d.max_abs_diff[k]:.1e}" if k in d.index else "-"  # noqa: E731
            train_path = d.path["gradients"] if "gradients" in d.index else "-"
            out.append(
                f"| {impl} | {d.path.get('right', '-')} | {get('right')} | {get('left')} | {train_path} | "
                f"{get('gradients')} |"
            )
    inf = df[df.what == "inference"]
    if len(inf):
        table = inf.pivot_table(index=["model", "batch"], columns="impl", values="median_ms")
        impls = [c for c in table.columns if c != "plain-torch"]
        out.append(f"\nInference, ms per batch (median), sequence length {int(inf.seq.iloc[0])}, float32:\n")
        head = (
            "| model | batch | " + " | ".join(table.columns) + " | " + " | ".join(f"{i} ÷ plain" for i in impls) + " |"
        )
        out.append(head + "\n|" + "---|" * (2 + len(table.columns) + len(impls)))
        for (model, b), r in table.iterrows():
            ratios = [
                f"{r[i] / r['plain-torch']:.2f}x"
                if "plain-torch" in r and r["plain-torch"] == r["plain-torch"]
                else "-"
                for i in impls
            ]
            out.append(
                f"| {model} | {int(b)} | "
                + " | ".join(f"{v:,.1f}" for v in r.values)
                + " | "
                + " | ".join(ratios)
                + " |"
            )
    tr = df[df.what == "train"]
    if len(tr):
        table = tr.pivot_table(index=["model", "precision"], columns="impl", values="steps_per_s")
        out.append(
            "\nTraining, optimizer steps per second (BERT-base shape batch 32 x 128; LSTM-2-256 batch 64 x 256):\n"
        )
        out.append("| model | precision | " + " | ".join(table.columns) + " |\n|" + "---|" * (2 + len(table.columns)))
        for (model, p), r in table.iterrows():
            out.append(f"| {model} | {p} | " + " | ".join(f"{v:.1f}" for v in r.values) + " |")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backends", default="jax,torch,plain", help="kit backends to time, and 'plain' for PyTorch")
    p.add_argument("--seq", type=int, default=512)
    p.add_argument("--batches", default="128,256,384")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--train-steps", dest="train_steps", type=int, default=30)
    p.add_argument("--quick", action="store_true", help="batch 128 only, 3 repeats, 10 training steps")
    p.add_argument("--report", action="store_true", help="only print the tables from the saved results")
    p.add_argument("--tiny", action="store_true", help="tiny shapes: check that the script runs (on a CPU too)")
    p.add_argument("--out-dir", dest="out_dir", default=str(HERE))
    args = p.parse_args(argv)
    args.batches = [int(b) for b in args.batches.split(",")]
    if args.quick:
        args.batches, args.repeats, args.train_steps = [128], 3, 10
    if args.tiny:
        args.seq, args.batches, args.repeats, args.warmup, args.train_steps = 16, [2], 1, 1, 1
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    if not args.report:
        for kind in [b.strip() for b in args.backends.split(",") if b.strip()]:
            run_worker(kind, args, out_dir / f"results_gpu_{kind}.json")
    print(report(out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
