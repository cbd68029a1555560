"""What the current Keras backend computes on.

>>> isinstance(describe_devices(), str)
True
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
from pathlib import Path

#: TensorFlow's native start-up lines on a machine without a GPU (CUDA probing, CPU features, oneDNN), not errors a
#: user can act on: :func:`quiet_native_stderr` keeps them in :data:`NATIVE_LOG` instead of the terminal.
NATIVE_NOISE = re.compile(
    r"cudart_stub|cuda_platform|cuInit|cuda_(?:dnn|fft|blas)|absl::InitializeLog|cpu_feature_guard|"
    r"To enable the following instructions|oneDNN custom operations|computation_placer|TF-TRT|TensorRT"
)
#: Where those lines go.
NATIVE_LOG = Path(tempfile.gettempdir()) / "nlp-course-kit-native-stderr.log"


@contextlib.contextmanager
def quiet_native_stderr(log: Path | None = None):
    """Hold what native code writes to stderr (file descriptor 2) while the block runs, then sort it.

    Lines matching :data:`NATIVE_NOISE` are appended to ``log`` (default :data:`NATIVE_LOG`); the rest go back to
    stderr, so a real error still shows.

    Example:
        >>> with quiet_native_stderr():
        ...     pass
    """
    fd = 2  # the process's stderr, where native code writes (sys.stderr may be a notebook's or a test's stand-in)
    sys.stderr.flush()
    saved = os.dup(fd)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), fd)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, fd)
            os.close(saved)
            held.seek(0)
            _sort_lines(held.read().decode(errors="replace"), log or NATIVE_LOG)


def _sort_lines(text: str, log: Path) -> None:
    """Start-up noise to ``log``, everything else back to stderr."""
    noise = [ln for ln in text.splitlines() if NATIVE_NOISE.search(ln)]
    rest = [ln for ln in text.splitlines() if not NATIVE_NOISE.search(ln)]
    if noise:
        with open(log, "a", encoding="utf-8") as f:
            f.write("\n".join(noise) + "\n")
    if rest:
        os.write(2, ("\n".join(rest) + "\n").encode())


def describe_devices() -> str:
    """A one-line description of the devices the active backend sees (GPU or CPU).

    E.g. ``"GPU: <name> (x1)"`` or ``"CPU (2 threads)"`` on torch, platforms and kinds on jax, ``"GPU x1"`` or ``"CPU"``
    on tensorflow; ``"unknown (<error>)"`` when asking fails.
    """
    with quiet_native_stderr():  # TensorFlow's CUDA probing on a machine without a GPU goes to NATIVE_LOG
        return _describe_devices()


def _describe_devices() -> str:
    import keras  # noqa: PLC0415 - a light module: importing it loads no Keras, asking the devices does

    backend = keras.backend.backend()
    try:
        if backend == "jax":
            import jax

            devs = jax.devices()
            return ", ".join(sorted({f"{d.platform.upper()}:{getattr(d, 'device_kind', '')}" for d in devs}))
        if backend == "torch":
            import torch

            if torch.cuda.is_available():
                return f"GPU: {torch.cuda.get_device_name(0)} (x{torch.cuda.device_count()})"
            n = torch.get_num_threads()
            return f"CPU ({n} thread{'' if n == 1 else 's'})"
        if backend == "tensorflow":
            import tensorflow as tf

            gpus = tf.config.list_physical_devices("GPU")
            return f"GPU x{len(gpus)}" if gpus else "CPU"
    except Exception as exc:  # pragma: no cover - reporting only
        return f"unknown ({exc})"
    return "unknown"
