"""Keep TensorFlow out of jax and torch processes.

keras-hub and ``model.save`` import TensorFlow if installed (~10 s, ~1.2 GB, GPU memory), so under jax or torch
``import kit`` makes ``import tensorflow`` (and ``tensorflow_text``) fail (``sys.modules[name] = None``) unless
``KIT_ALLOW_TENSORFLOW=1`` (then GPUs hidden); under tensorflow, start-up lines go to :data:`kit.devices.NATIVE_LOG`.

>>> blocked_names()
('tensorflow', 'tensorflow_text')
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import sys

ALLOW_ENV = "KIT_ALLOW_TENSORFLOW"
_BLOCKED = ("tensorflow", "tensorflow_text")


def blocked_names() -> tuple[str, ...]:
    """The modules ``import kit`` blocks under jax and torch (unless ``KIT_ALLOW_TENSORFLOW=1``)."""
    return _BLOCKED


def hide_gpus(tf) -> bool:
    """Make the ``tensorflow`` module ``tf`` see no GPU; False when it had initialised them already or is not full."""
    try:
        tf.config.set_visible_devices([], "GPU")
        return True
    except Exception:  # already initialised, or not a full TensorFlow
        return False


class _OnTensorFlowImport(importlib.abc.MetaPathFinder):
    """Lets TensorFlow import through :meth:`load` (once: the finder removes itself when TensorFlow is found)."""

    def find_spec(self, name, path=None, target=None):
        if name != "tensorflow":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module
        spec.loader.exec_module = lambda module: self.load(run, module)
        return spec

    def load(self, run, module):
        run(module)


class _HideGPUOnImport(_OnTensorFlowImport):
    """Lets TensorFlow import, then hides the GPUs from it before anything else runs."""

    def load(self, run, module):
        run(module)
        hide_gpus(module)


class _QuietOnImport(_OnTensorFlowImport):
    """Lets TensorFlow import with its native start-up lines held (:func:`kit.devices.quiet_native_stderr`)."""

    def load(self, run, module):
        from .devices import quiet_native_stderr  # noqa: PLC0415 - light, and only when TensorFlow loads

        with quiet_native_stderr():
            run(module)


def install(backend: str | None) -> str:
    """Apply the rule for ``backend`` (``KERAS_BACKEND``, None: unset); returns what was done.

    ``"blocked"``: under jax or torch ``import tensorflow`` now fails; ``"hidden"``: ``KIT_ALLOW_TENSORFLOW`` set, GPUs
    hidden on import; ``"already imported"``: GPUs hidden if still possible; ``"quiet"``: under tensorflow, start-up
    lines held on import; ``"off"``: nothing (no backend, or TensorFlow already imported under tensorflow).
    """
    if backend == "tensorflow":
        if "tensorflow" in sys.modules or any(isinstance(f, _QuietOnImport) for f in sys.meta_path):
            return "off" if "tensorflow" in sys.modules else "quiet"
        sys.meta_path.insert(0, _QuietOnImport())
        return "quiet"
    if backend not in ("jax", "torch"):
        return "off"
    if "tensorflow" in sys.modules:
        hide_gpus(sys.modules["tensorflow"])
        return "already imported"
    if os.environ.get(ALLOW_ENV, "").strip() not in ("", "0", "false", "False"):
        if not any(isinstance(f, _HideGPUOnImport) for f in sys.meta_path):
            sys.meta_path.insert(0, _HideGPUOnImport())
        return "hidden"
    for name in _BLOCKED:
        sys.modules.setdefault(name, None)
    datasets_config = sys.modules.get("datasets.config")
    if datasets_config is not None:  # Hugging Face datasets, imported first, found TensorFlow before the block
        datasets_config.TF_AVAILABLE = False
    return "blocked"
