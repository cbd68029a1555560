"""kit's AdamW (one fused kernel on torch) vs Keras' AdamW vs plain PyTorch's, on torch, one CPU thread.

Two timings, in one process, median of ``--repeats`` after a warm-up:
1. the optimizer update alone on MiniLM-L6's bottom 3 layers' variables (17.3M: the 11.7M-row word table among them),
   gradients given: Keras' AdamW, kit's AdamW, ``torch.optim.AdamW`` with ``foreach=True`` and ``fused=True``;
2. a whole fine-tuning step (``fit`` on one batch) of that encoder with a 2-class head at the two shapes the
   notebooks use at smoke (batch 16 x 32 tokens: notebook 03; 32 x 40: notebook 01), Keras' AdamW vs kit's.

    KERAS_BACKEND=torch OMP_NUM_THREADS=1 python benchmarks/adamw_torch.py   # -> benchmarks/results_adamw_torch.json
"""

import argparse
import json
import os
import platform
import time
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "torch")

import keras
import numpy as np
import torch

from kit.models import build_classifier, load_backbone
from kit.models.truncate import truncate_backbone
from kit.optimizers.adamw import adamw

CE = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def median_ms(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1000 * float(np.median(times))


def classifier(length):
    enc = load_backbone("minilm-l6", sequence_length=length)
    keras.utils.set_random_seed(0)
    return build_classifier(truncate_backbone(enc.backbone, 3), 2, dropout=0.1, pooling="mean")


def update_only(repeats):
    model = classifier(32)
    variables = model.trainable_variables
    grads = [torch.randn_like(v.value) * 1e-3 for v in variables]
    out = {}
    for name, make in (
        ("keras AdamW", lambda: keras.optimizers.AdamW(1e-4, weight_decay=0.01)),
        ("kit AdamW", lambda: adamw(1e-4, weight_decay=0.01)),
    ):
        opt = make()
        opt.build(variables)
        out[name] = median_ms(lambda opt=opt: opt.apply(grads, variables), repeats)
    params = [torch.nn.Parameter(v.value.detach().clone()) for v in variables]
    for p, g in zip(params, grads):
        p.grad = g.clone()
    for name, kw in (("torch.optim.AdamW foreach", {"foreach": True}), ("torch.optim.AdamW fused", {"fused": True})):
        opt = torch.optim.AdamW(params, lr=1e-4, weight_decay=0.01, **kw)
        out[name] = median_ms(opt.step, repeats)
    return {"params": int(sum(int(np.prod(v.shape)) for v in variables)), "ms": out}


def whole_step(batch, length, repeats):
    rng = np.random.default_rng(0)
    x = {
        "token_ids": rng.integers(1000, 20000, (batch, length)).astype("int32"),
        "segment_ids": np.zeros((batch, length), "int32"),
        "padding_mask": np.ones((batch, length), "int32"),
    }
    y = rng.integers(0, 2, batch)
    out = {}
    for name, make in (
        ("keras AdamW", lambda: keras.optimizers.AdamW(1e-4, weight_decay=0.01)),
        ("kit AdamW", lambda: adamw(1e-4, weight_decay=0.01)),
    ):
        model = classifier(length)
        model.compile(make(), CE)
        out[name] = median_ms(lambda model=model: model.fit(x, y, batch_size=batch, epochs=1, verbose=0), repeats)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--out", default=str(Path(__file__).with_name("results_adamw_torch.json")))
    args = ap.parse_args()
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    result = {
        "machine": f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} thread(s)",
        "torch": torch.__version__,
        "keras": keras.__version__,
        "update": update_only(args.repeats),
        "step": {f"batch {b} x {t}": whole_step(b, t, args.repeats) for b, t in ((16, 32), (32, 40))},
    }
    for name, ms in result["update"]["ms"].items():
        print(f"update of {result['update']['params']:,} parameters, {name:<26} {ms:8.1f} ms")
    for shape, row in result["step"].items():
        print(
            f"fine-tuning step, {shape}: Keras AdamW {row['keras AdamW']:.0f} ms, kit AdamW {row['kit AdamW']:.0f} ms"
            f" ({row['keras AdamW'] / row['kit AdamW']:.2f}x)"
        )
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
