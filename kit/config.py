"""The kit's switches: scale, precision, seeds, cache and output folders.

``KIT_SCALE``: ``smoke`` (default), ``medium``, ``full``; shared sizes in ``SCALES`` (:func:`sizes`), a paper's in
``<paper>_sizes.py`` (:func:`paper_sizes`); ``KIT_SIZES`` (JSON: ``'{"tlm": {"stage1_steps": 50}}'``) changes any for a
run. ``KIT_PRECISION``: Keras' dtype policy (:func:`apply_precision`, before building models).

>>> import kit
>>> kit.config.scale() in ("smoke", "medium", "full")
True
>>> kit.config.sizes()["sequence_length"] > 0
True
>>> kit.config.precision()
'float32'
"""

from __future__ import annotations

import copy
import json
import os
import random
from pathlib import Path

import numpy as np
from platformdirs import user_cache_dir

from . import notebooks

SCALE_ENV = "KIT_SCALE"
SIZES_ENV = "KIT_SIZES"
PRECISION_ENV = "KIT_PRECISION"
DATA_DIR_ENV = "KIT_DATA_DIR"
OUT_ENV = "KIT_OUT"
PRECISIONS = ("float32", "mixed_bfloat16", "mixed_float16")

#: The sizes every notebook shares, per scale (notebook 00 reads them directly). A paper's own sizes live in its
#: folder, ``kit/papers/<paper>/<paper>_sizes.py`` (:func:`paper_sizes` reads them).
SCALES: dict[str, dict] = {
    "smoke": {
        "description": "offline, CPU, minutes: the data the kit can fetch from "
        "the package registries, small models, short training",
        "sequence_length": 64,
        "batch_size": 32,
        "epochs": 2,
        "max_train_examples": 1000,
        "max_eval_examples": 500,
        "backbone": "minilm-l6",
        "seeds": [0],
    },
    "medium": {
        "description": "the offline data at full size and the papers' model sizes, 3-4 seeds chosen by power in the "
        "paper notebooks: ~10 minutes per notebook alone on one H100 or H200 (jax), predicted by a cost model fitted "
        "to the first medium runs (benchmarks/medium_gpu)",
        "sequence_length": 64,
        "batch_size": 32,
        "epochs": 3,
        "max_train_examples": None,
        "max_eval_examples": None,
        "backbone": "minilm-l6",
        "seeds": [0, 1, 2],
    },
    "full": {
        "description": "the papers' data sets (your copies) and model sizes on a GPU, sized to a few GPU-hours "
        "per notebook",
        "sequence_length": 256,
        "batch_size": 32,
        "epochs": 3,
        "max_train_examples": None,
        "max_eval_examples": None,
        "backbone": "minilm-l6",
        "seeds": [0, 1, 2],
    },
}

#: The papers' size sections (``KIT_SIZES='{"tlm": {...}}'`` changes one of them); each lives in its paper's folder.
#: The notebooks' registry names them (:func:`kit.notebooks.papers`, read afresh by the functions here).
PAPERS = notebooks.papers()


def scale() -> str:
    """The scale in use: ``KIT_SCALE`` (``smoke``, ``medium`` or ``full``), default smoke; ValueError names the fix."""
    value = os.environ.get(SCALE_ENV, "smoke").strip().lower() or "smoke"
    if value not in SCALES:
        raise ValueError(
            f"Unknown {SCALE_ENV}={value!r}. Set it to one of "
            f"{sorted(SCALES)} (e.g. `export {SCALE_ENV}=smoke`), or unset it "
            "for the default 'smoke'."
        )
    return value


def _merge(base: dict, extra: dict, where: str = "") -> dict:
    for key, value in extra.items():
        if key not in base:
            raise ValueError(f"{SIZES_ENV}: unknown size {where + key!r}; the sizes are {sorted(base)}.")
        if isinstance(base[key], dict) and isinstance(value, dict) and key not in ("tasks",):
            _merge(base[key], value, f"{where}{key}.")
        else:
            base[key] = value
    return base


def _sizes_env() -> dict:
    """``KIT_SIZES`` parsed (``{}`` when unset)."""
    extra = os.environ.get(SIZES_ENV, "").strip()
    if not extra:
        return {}
    try:
        extra = json.loads(extra)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f'{SIZES_ENV} is not valid JSON ({exc}); e.g. {SIZES_ENV}=\'{{"tlm": {{"stage1_steps": 50}}}}\'.'
        ) from None
    if not isinstance(extra, dict):
        raise ValueError(f"{SIZES_ENV} must be a JSON object of sizes, got {type(extra).__name__}.")
    return extra


def _check_scale(name: str | None) -> str:
    name = scale() if name is None else name
    if name not in SCALES:
        raise ValueError(f"Unknown scale {name!r}; choose one of {sorted(SCALES)}.")
    return name


def sizes(name: str | None = None) -> dict:
    """Scale ``name``'s shared sizes (default: in use), ``KIT_SIZES`` merged in, as a copy; ValueError if unknown."""
    out = copy.deepcopy(SCALES[_check_scale(name)])
    shared = {k: v for k, v in _sizes_env().items() if k not in notebooks.papers()}
    return _merge(out, shared)


def paper_sizes(paper: str, defaults: dict, scales: dict, name: str | None = None) -> dict:
    """A paper's sizes at scale ``name``, as a copy: its defaults, then ``scales[name]``, then ``KIT_SIZES[paper]``.

    ``paper`` is one of :data:`PAPERS`; ValueError on an unknown scale or paper, or unknown sizes in ``KIT_SIZES``.

    Example:
        >>> paper_sizes("tlm", {"rho1": 3}, {"smoke": {"steps": 40}, "medium": {"steps": 400}, "full": {"steps": 4000}},
        ...             "smoke")
        {'rho1': 3, 'steps': 40}
    """
    name = _check_scale(name)
    if paper not in notebooks.papers():
        raise ValueError(f"Unknown paper {paper!r}; the papers are {notebooks.papers()} (kit/notebooks.py).")
    out = copy.deepcopy(defaults)
    out.update(copy.deepcopy(scales[name]))
    extra = _sizes_env().get(paper, {})
    if not isinstance(extra, dict):
        raise ValueError(
            f"{SIZES_ENV}: {paper!r} must map to an object of sizes, e.g. "
            f"{SIZES_ENV}='{{\"{paper}\": {{...}}}}', got {extra!r}."
        )
    return _merge(out, extra, f"{paper}.")


def train_sizes(entries, n_train: int) -> list[int]:
    """``train_sizes`` entries (counts above 1, fractions up to 1) as distinct sorted counts in ``[2, n_train]``.

    Example:
        >>> train_sizes([300, 1000, 0.5, 1.0], 1200)
        [300, 600, 1000, 1200]
    """
    out = []
    for e in entries:
        n = int(round(e * n_train)) if e <= 1 else int(e)
        out.append(max(2, min(n, n_train)))
    return sorted(set(out))


def precision() -> str:
    """``KIT_PRECISION``: ``float32`` (default), ``mixed_bfloat16`` (new GPU, TPU), ``mixed_float16`` (old GPUs)."""
    value = os.environ.get(PRECISION_ENV, "float32").strip().lower() or "float32"
    if value not in PRECISIONS:
        raise ValueError(
            f"Unknown {PRECISION_ENV}={value!r}. Set it to one of {PRECISIONS} "
            "(mixed_bfloat16 on a recent GPU or TPU, mixed_float16 on older GPUs), or unset it."
        )
    return value


def apply_precision(name: str | None = None) -> str:
    """Set Keras' global dtype policy to ``name`` (default: :func:`precision`) and return it; models built after use it.

    Raises ValueError on mixed_float16 under jax on a CPU (XLA there cannot multiply float16 with float32 accumulation).

    Example:
        >>> apply_precision("float32")
        'float32'
    """
    import keras  # noqa: PLC0415 - a light module: `import kit` and `kit info` load no Keras

    name = precision() if name is None else name
    if name not in PRECISIONS:
        raise ValueError(f"Unknown precision {name!r}; choose one of {PRECISIONS}.")
    if name == "mixed_float16" and keras.backend.backend() == "jax":
        import jax

        if jax.default_backend() == "cpu":
            raise ValueError(
                "mixed_float16 needs a GPU under jax: XLA on a CPU cannot multiply float16 matrices "
                "with float32 accumulation. Use KIT_PRECISION=mixed_bfloat16 (or float32) on a CPU."
            )
    keras.config.set_dtype_policy(name)
    return name


def data_dir() -> Path:
    """The download cache folder (made if missing): ``KIT_DATA_DIR``, else ``<user cache dir>/nlp-course-kit/data``."""
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        path = Path(env).expanduser()
    else:
        path = Path(user_cache_dir("nlp-course-kit")) / "data"
    path.mkdir(parents=True, exist_ok=True)
    return path


def output_dir(notebook: str | None = None) -> Path:
    """The output folder (made): ``KIT_OUT``, else ``KIT_OUT_ROOT/<notebook>`` (kit test), else ``runs/<notebook>``."""
    env = os.environ.get(OUT_ENV)
    root = os.environ.get(OUT_ENV + "_ROOT")  # several notebooks in one session (kit test): root/<notebook>
    if env:
        path = Path(env)
    else:
        path = Path(root or "runs") / (notebook or "scratch")
    path.mkdir(parents=True, exist_ok=True)
    return path


def enable_compile_cache(folder=None) -> str | None:
    """On jax, keep compiled XLA programs on disk and reuse them; returns the folder, or None on other backends.

    Sweeps' alike models compile once (a TLM run on a CPU: ~15 s becomes ~3 s). Every program is kept, however quick
    its compile: tests and sweeps compile many small alike ones (a jax test run took 5% less, benchmarks/README.md,
    2026-11-30). ``folder`` defaults to ``JAX_COMPILATION_CACHE_DIR``, else ``data_dir()/jax-cache``.
    """
    import keras  # noqa: PLC0415 - a light module: `import kit` and `kit info` load no Keras

    if keras.backend.backend() != "jax":
        return None
    import jax

    folder = Path(folder or os.environ.get("JAX_COMPILATION_CACHE_DIR") or data_dir() / "jax-cache")
    folder.mkdir(parents=True, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", str(folder))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    return str(folder)


def set_seed(seed: int = 0) -> int:
    """Seed Python, NumPy, ``PYTHONHASHSEED`` and the Keras backend with ``seed`` (returned), so reruns repeat.

    Example:
        >>> set_seed(3)
        3
    """
    random.seed(seed)
    np.random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    import keras  # noqa: PLC0415 - a light module: `import kit` and `kit info` load no Keras

    keras.utils.set_random_seed(seed)
    return seed
