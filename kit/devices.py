"""What the current Keras backend computes on.

>>> isinstance(describe_devices(), str)
True
"""

from __future__ import annotations


def describe_devices() -> str:
    """A one-line description of the devices the active backend sees (GPU or CPU).

    Returns:
        E.g. ``"GPU: <name> (x1)"`` or ``"CPU (2 threads)"`` on torch, the platforms and kinds on jax, ``"GPU x1"``
        or ``"CPU"`` on tensorflow; ``"unknown (<error>)"`` when asking fails.
    """
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


def has_gpu() -> bool:
    """Whether the active backend computes on a GPU (:func:`describe_devices` names one)."""
    return "GPU" in describe_devices().upper()
