"""NLP course kit: Keras 3 layers, data and tools for four NLP papers, on jax, tensorflow or torch.

>>> import kit
>>> kit.config.scale()
'smoke'
"""

import importlib as _importlib
import os as _os
import warnings as _warnings

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

#: tqdm's notice in a Jupyter kernel without ipywidgets, when huggingface-hub (keras-hub's loader) imports tqdm.auto;
#: the kit draws no progress widgets. :func:`quiet` hides it (category ``tqdm.TqdmWarning``).
IPROGRESS_MESSAGE = r"IProgress not found\. Please update jupyter and ipywidgets"
#: Keras' notice on every fit that a BERT backbone's [CLS] pooler (``pooled_dense``, or a task's copy of it) gets no
#: gradient, where a head reads the token states (mean-pooling, tagging and matching heads). :func:`quiet` hides it
#: when the pooler's variables are all it names: a missing gradient anywhere else still shows. No colon: pyproject.toml
#: lists the same regex for pytest, whose filter syntax splits on colons.
UNUSED_POOLER_MESSAGE = (
    r"Gradients do not exist for variables \[('[\w/]*pooled_dense/(kernel|bias)'(, )?)+\] when minimizing"
)


def quiet() -> None:
    """Hide the two third-party warnings a notebook would show that a learner cannot act on.

    ``import kit`` changes no filter; a notebook's first cell calls this. Exactly two filters, each on one message and
    category: tqdm's :data:`IPROGRESS_MESSAGE` and Keras' :data:`UNUSED_POOLER_MESSAGE` (from
    ``keras.src.optimizers.base_optimizer`` only). Calling it again adds none.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as shown:
        ...     warnings.simplefilter("always")
        ...     quiet()
        ...     warnings.warn_explicit(
        ...         "Gradients do not exist for variables ['pooled_dense/kernel', 'pooled_dense/bias'] when minimizing "
        ...         "the loss.", UserWarning, "base_optimizer.py", 1, module="keras.src.optimizers.base_optimizer")
        >>> shown
        []
    """
    from tqdm import TqdmWarning  # noqa: PLC0415 - tqdm loads for a notebook that asks for quiet, not on import kit

    _warnings.filterwarnings("ignore", message=IPROGRESS_MESSAGE, category=TqdmWarning)
    _warnings.filterwarnings(
        "ignore", message=UNUSED_POOLER_MESSAGE, category=UserWarning, module=r"keras\.src\.optimizers\.base_optimizer$"
    )


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
__all__ = ["config", "set_seed", "quiet", "__version__", *_SUBMODULES]


def __getattr__(name):  # lazy: `kit.models` imports keras-hub (and so TensorFlow) only when used
    if name in _SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'kit' has no attribute {name!r}")
