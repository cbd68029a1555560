"""NLP course kit: Keras 3 layers, data and tools for four NLP papers, on jax, tensorflow or torch.

>>> import kit
>>> kit.config.scale()
'smoke'
"""

import importlib as _importlib
import os as _os
import warnings as _warnings

# keras-hub's loaders import tqdm.auto, which warns (with this machine's paths) in a Jupyter kernel without ipywidgets
_warnings.filterwarnings("ignore", message="IProgress not found")
# a BERT backbone's [CLS] pooler ("pooled_dense") gets no gradient when a head reads the token states instead (the
# kit's mean-pooling, tagging and matching heads); Keras warns about it on every fit. Only that layer's warning goes.
_warnings.filterwarnings(
    "ignore", message=r"Gradients do not exist for variables \['pooled_dense/kernel', 'pooled_dense/bias'\]"
)

_BACKENDS = ("jax", "tensorflow", "torch")
_backend = _os.environ.get("KERAS_BACKEND")
if _backend is not None and _backend not in _BACKENDS:
    raise ImportError(
        f"Unknown KERAS_BACKEND={_backend!r}. Set it to one of {_BACKENDS} before starting Python "
        "(e.g. `export KERAS_BACKEND=jax`), or unset it for Keras' default (tensorflow)."
    )

from . import tf_guard as _tf_guard  # noqa: E402

TENSORFLOW = _tf_guard.install(_backend)  # under jax/torch: "blocked"; under tensorflow: "quiet" (kit/tf_guard.py)


from . import config  # noqa: E402
from .config import set_seed  # noqa: E402

__version__ = "0.1.0"
_SUBMODULES = (
    "data",
    "models",
    "text",
    "retrieval",
    "metrics",
    "optimizers",
    "analysis",
    "train",
    "testing",
    "devices",
    "runner",
    "cli",
    "tf_guard",
    "session",
    "papers",
    "exercises",
)
__all__ = ["config", "set_seed", "__version__", *_SUBMODULES]


def __getattr__(name):  # lazy: `kit.models` imports keras-hub (and so TensorFlow) only when used
    if name in _SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'kit' has no attribute {name!r}")
