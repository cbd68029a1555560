"""What a notebook run is: scale, sizes, precision, seed, output folder, the user's data, and a header.

Every notebook's first cell is ``S = kit.session.start("01_pretrain_or_not", "pretrain_or_not")`` (the paper whose sizes
``S.sizes`` holds): it applies ``KIT_PRECISION`` before any model, seeds everything, makes the output folder and prints
a header (backend, scale, precision, versions, devices, the ``kit run --data`` file).

>>> S = start("scratch", verbose=False)
>>> S.scale in ("smoke", "medium", "full"), S.precision
(True, 'float32')
"""

from __future__ import annotations

import importlib.metadata as md
import os
import platform
import sys
from dataclasses import dataclass
from pathlib import Path

import kit

from . import config
from .data.own import OwnData
from .devices import describe_devices
from .papers import sizes as paper_sizes


@dataclass
class Session:
    """A notebook run's settings, as :func:`start` made them.

    ``notebook`` names the output folder ``out``; ``sizes``: the paper's (or shared) sizes at ``scale``; ``precision``:
    ``KIT_PRECISION``, applied; ``own_data``: the ``kit run --data`` file's ``kit.data.OwnData``, else None.
    """

    notebook: str
    scale: str
    sizes: dict
    precision: str
    out: Path
    seed: int
    own_data: object = None  # kit.data.OwnData when `kit run --data` gave a file

    def relative(self, path) -> str:
        """``path`` relative to the working folder when below it (no machine-specific paths on screen), else as is."""
        try:
            return os.path.relpath(Path(path).resolve(), Path.cwd())
        except ValueError:
            return str(path)


def _version(pkg: str) -> str:
    try:
        return md.version(pkg)
    except md.PackageNotFoundError:
        return "-"


def tensorflow_status() -> str:
    """The header's TensorFlow line: kept out (jax/torch), not imported, or imported (GPUs hidden if the kit did)."""
    tf = sys.modules.get("tensorflow", "absent")
    if kit.TENSORFLOW == "blocked":
        return "TensorFlow kept out (not needed under this backend)"
    if tf == "absent" or tf is None:
        return "TensorFlow not imported"
    return "TensorFlow imported" + (", GPUs hidden from it" if kit.TENSORFLOW in ("hidden", "already imported") else "")


def start(notebook: str, section: str | None = None, seed: int = 0, verbose: bool = True) -> Session:
    """Apply precision, seed, make the output folder; print the header (``verbose``); return the run's settings.

    ``section``: the paper whose sizes ``S.sizes`` holds (``"tlm"``; None: shared); ValueError on a bad ``KIT_*``.
    """
    import keras  # noqa: PLC0415 - a light module: Keras loads when a notebook starts, not with `kit info`

    precision = config.apply_precision()
    config.enable_compile_cache()  # jax: compiled programs are reused across the runs of a sweep
    config.set_seed(seed)
    if section is None:
        sizes = config.sizes()
    else:
        sizes = paper_sizes(section)  # the paper's own sizes (kit/papers/<section>/<section>_sizes.py)
    session = Session(notebook, config.scale(), sizes, precision, config.output_dir(notebook), seed, OwnData.from_env())
    if verbose:
        print(
            f"backend {keras.backend.backend()} | scale {session.scale} | precision {precision} | "
            f"keras {keras.__version__} | keras-hub {_version('keras-hub')} | kit {kit.__version__} | "
            f"python {platform.python_version()}"
        )
        devices = describe_devices()
        print(f"devices: {devices} | {tensorflow_status()}")
        if "GPU" in devices.upper() and keras.backend.backend() != "jax":
            print(
                "note: on a GPU, Keras on jax fine-tuned BERT-base 3.3x faster than Keras on torch in the kit's "
                "benchmark (benchmarks/README.md); KERAS_BACKEND=jax is the fast choice for transformers."
            )
        print(f"outputs go to: {session.relative(session.out)}")
        if session.own_data is not None:
            print(f"YOUR DATA: {session.own_data.describe()}")
    return session
