"""What a sweep pays per run for building and compiling, and what reusing one compiled model per shape would save.

On the CPU (jax, one thread), at notebook 01's medium shapes (LSTM-2-256 over 16,081 words, 300-dimensional embeddings,
batch 64 x 64 tokens; dev and test 1,057 sentences each): each mode trains ``--seeds`` runs of ``--steps`` optimizer
steps and scores dev and test once, and times each run whole.

- ``fresh``: what the notebooks do, with jax's compile cache on (``kit.config.enable_compile_cache``): per run,
  ``keras.backend.clear_session()``, a new model, ``compile``, ``fit``, ``predict``. The first run compiles; the
  others trace the new model again and find its programs in the cache.
- ``reuse``: one model compiled once; per run its weights are drawn anew (a fresh model's weights copied in, the
  optimizer's state set back to 0), then the same ``fit`` and ``predict``: no new trace after the first run.
- ``ragged``: ``fresh``, but each run trains on a different number of examples (300, 1,000, 3,000 and 8,454 as
  the plan's sizes, so the last batch's shape changes): the compile a new shape costs.

``python benchmarks/medium_gpu/compile_reuse.py`` prints a table and writes ``compile_reuse.json`` beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import keras
import numpy as np

from kit import config
from kit.models import build_lstm_classifier

HERE = Path(__file__).resolve().parent
VOCAB, LENGTH, BATCH, EVAL = 16081, 64, 64, 1057


def _data(n: int, rng) -> tuple:
    return rng.integers(1, VOCAB, (n, LENGTH)), rng.integers(0, 2, n)


def _model():
    model = build_lstm_classifier(VOCAB, 2, n_layers=2, cells=256, embedding_dim=300)
    model.compile(keras.optimizers.Adam(1e-3), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def _train_and_score(model, x, y, dev, test) -> None:
    model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0, shuffle=False)
    model.predict(dev, batch_size=128, verbose=0)
    model.predict(test, batch_size=128, verbose=0)


def run(mode: str, seeds: int, steps: int) -> list[float]:
    """Seconds of each run of ``mode`` (the first includes the first compile)."""
    rng = np.random.default_rng(0)
    dev, test = _data(EVAL, rng)[0], _data(EVAL, rng)[0]
    # ragged: steps full batches and a last one of the plan's sizes' remainders (300, 1,000, 3,000, 8,454 mod 64)
    ragged = [steps * BATCH + n % BATCH for n in (300, 1000, 3000, 8454)]
    sizes = ragged if mode == "ragged" else [steps * BATCH] * seeds
    reused, out = None, []
    for seed, n in enumerate(sizes):
        x, y = _data(n, rng)
        start = time.perf_counter()
        if mode == "reuse" and reused is not None:
            keras.utils.set_random_seed(seed)
            reused.set_weights(build_lstm_classifier(VOCAB, 2, n_layers=2, cells=256, embedding_dim=300).get_weights())
            for v in reused.optimizer.variables:
                v.assign(np.zeros(v.shape, v.dtype))
            model = reused
        else:
            keras.backend.clear_session()
            keras.utils.set_random_seed(seed)
            model = reused = _model()
        _train_and_score(model, x, y, dev, test)
        out.append(time.perf_counter() - start)
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args(argv)
    config.enable_compile_cache(tempfile.mkdtemp(prefix="jax-cache-"))
    rows = {}
    for mode in ("fresh", "reuse"):
        rows[mode] = run(mode, args.seeds, args.steps)
        print(f"{mode:7s} " + "  ".join(f"{s:6.2f}" for s in rows[mode]), flush=True)
    rows["ragged"] = run("ragged", 4, args.steps)  # after fresh: the full batches' programs are in the cache
    print("ragged  " + "  ".join(f"{s:6.2f}" for s in rows["ragged"]), flush=True)
    info = {"backend": keras.backend.backend(), "keras": keras.__version__, "steps": args.steps, "seconds": rows}
    (HERE / "compile_reuse.json").write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
