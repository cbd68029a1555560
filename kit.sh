#!/usr/bin/env bash
# The kit from a fresh clone in one command: the first call installs it into .venv (Python 3.11+ is all it needs),
# then every call runs `kit` there with your arguments:
#
#   ./kit.sh run 00          # notebook 00 at smoke scale (the course's default), results in runs/
#   ./kit.sh test            # what CI runs: pytest on torch, jax and tensorflow, then every notebook under nbval
#   ./kit.sh lab             # the notebooks in JupyterLab, with a kernel of this environment
#
# PyTorch comes first, in the build that fits the machine: CUDA where `nvidia-smi` answers, else the CPU build
# (PyTorch's CPU index; where that index cannot be reached, the CPU wheel a package mirror serves, KIT_TORCH below).
# KIT_TORCH_BUILD=cpu|cuda overrides the detection; KIT_PYTHON picks the interpreter (default python3); KIT_VENV the
# folder (default .venv beside this script). To reinstall, delete the folder.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${KIT_VENV:-$here/.venv}"
python="${KIT_PYTHON:-python3}"

if [ ! -x "$venv/bin/kit" ]; then
    "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
        echo "kit.sh: $("$python" --version 2>&1) is too old: the kit needs Python 3.11 or newer (KIT_PYTHON=python3.12 ./kit.sh ...)." >&2
        exit 1
    }
    build="${KIT_TORCH_BUILD:-auto}"                        # auto | cpu | cuda: the override of the detection
    if [ "$build" = auto ]; then
        build=cpu
        if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >/dev/null 2>&1; then build=cuda; fi
    fi
    case "$build" in cpu|cuda) ;; *) echo "kit.sh: KIT_TORCH_BUILD=$build: use auto, cpu or cuda." >&2; exit 1;; esac
    echo "kit.sh: first run: installing the kit into $venv with the $build build of PyTorch (a few minutes, once)" >&2
    "$python" -m venv "$venv"
    pip=("$venv/bin/python" -m pip install -q)
    "${pip[@]}" --upgrade pip
    if [ "$build" = cuda ]; then
        "${pip[@]}" torch                                   # an NVIDIA GPU: the default, CUDA build
    else                                                    # no GPU: never the several GB of CUDA packages
        "${pip[@]}" --retries 0 --timeout 15 torch --index-url https://download.pytorch.org/whl/cpu 2>/dev/null \
            || "${pip[@]}" "${KIT_TORCH:-torch==2.13.0}"   # a mirror's CPU wheel (what this project's CI uses)
    fi
    "${pip[@]}" -e "$here[dev]"
    "$venv/bin/kit" info >&2
fi
exec "$venv/bin/kit" "$@"
