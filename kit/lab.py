"""``kit lab``: JupyterLab on the course's notebooks, with a kernel of the kit's environment.

The server runs on the Python that runs ``kit`` (``./kit.sh``'s ``.venv``); its kernels inherit the backend
(``KERAS_BACKEND``), scale (``KIT_SCALE``), precision and your data (``KIT_DATA_FILE`` & co., as ``kit run --data``
sets), which the line printed before the server starts names (and each notebook's first cell prints).

>>> env = lab_env(backend="jax", scale="smoke", base={})
>>> env["KERAS_BACKEND"], env["KIT_SCALE"]
('jax', 'smoke')
>>> lab_command("notebooks", port=8899, token="t", open_browser=False)[-3:]
['--ServerApp.port=8899', '--IdentityProvider.token=t', '--no-browser']
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

#: The backend Keras picks when ``KERAS_BACKEND`` is unset.
DEFAULT_BACKEND = "tensorflow"
#: No news feed and no update check: the course works offline, where JupyterLab's calls for both only fail.
OFFLINE = ("--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate")
#: The kit's Jupyter config folder, first on ``JUPYTER_CONFIG_PATH``: its ``labconfig/page_config.json`` turns off
#: JupyterLab's announcements plugin, which otherwise asks "Would you like to get notified about official Jupyter
#: news?" on the first screen (its ``fetchNews`` setting starts at "ask"; the news feed above is off anyway).
JUPYTER_CONFIG = Path(__file__).resolve().parent / "jupyter_config"
#: The plugin that page config turns off.
ANNOUNCEMENTS = "@jupyterlab/apputils-extension:announcements"
#: What to install when JupyterLab is missing from the kit's environment.
INSTALL_LAB = "pip install 'jupyterlab>=4' (it is in the kit's `notebooks` extra; ./kit.sh installs it)"


def lab_env(backend: str | None = None, scale: str | None = None, data_env: dict | None = None, base=None) -> dict:
    """A new dict: the environment JupyterLab (so every kernel it starts) runs with.

    ``base`` (default: this process's environment) with ``backend``, ``scale`` (None keeps them as they are) and
    ``data_env`` (:meth:`kit.data.OwnData.env`) set, ``TF_CPP_MIN_LOG_LEVEL`` 2 unless set (no CUDA probing lines;
    errors still show), and :data:`JUPYTER_CONFIG` first on ``JUPYTER_CONFIG_PATH`` (no news prompt; paths set there
    stay after).

    Example:
        >>> lab_env(base={"KERAS_BACKEND": "torch"})["KERAS_BACKEND"]
        'torch'
    """
    env = dict(os.environ if base is None else base)
    if backend:
        env["KERAS_BACKEND"] = backend
    if scale:
        env["KIT_SCALE"] = scale
    env.update(data_env or {})
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    paths = [p for p in env.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep) if p and p != str(JUPYTER_CONFIG)]
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join([str(JUPYTER_CONFIG), *paths])
    return env


def lab_command(
    root, *, port: int | None = None, token: str | None = None, open_browser: bool = True, extra=()
) -> list[str]:
    """JupyterLab's command on ``root``: this Python, offline (:data:`OFFLINE`), ``--allow-root`` as root."""
    command = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={root}", *OFFLINE]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    if port is not None:
        command.append(f"--ServerApp.port={port}")
    if token is not None:
        command.append(f"--IdentityProvider.token={token}")
    if not open_browser:
        command.append("--no-browser")
    return command + list(extra)


def lab_banner(env: dict, root) -> str:
    """The line ``kit lab`` prints before the server starts (folder, kernels' backend and scale), plus a data file line.

    Example:
        >>> lab_banner({"KERAS_BACKEND": "jax"}, "notebooks")
        'kit lab: JupyterLab on notebooks; kernels run with KERAS_BACKEND=jax, KIT_SCALE=smoke (the default)'
    """
    backend = env.get("KERAS_BACKEND") or f"{DEFAULT_BACKEND} (Keras' default)"
    scale = env.get("KIT_SCALE") or "smoke (the default)"
    line = f"kit lab: JupyterLab on {root}; kernels run with KERAS_BACKEND={backend}, KIT_SCALE={scale}"
    if env.get("KIT_DATA_FILE"):
        line += f"\nkit lab: your data in every notebook: {env['KIT_DATA_FILE']}"
    return line


def start(command: list[str], env: dict) -> int:
    """Become JupyterLab (POSIX: no return), so Ctrl-C or ``kill`` reaches it; else its exit code."""
    sys.stdout.flush()
    if os.name == "posix":
        os.execve(command[0], command, env)
    try:
        return subprocess.call(command, env=env)
    except KeyboardInterrupt:
        return 0


def check_installed() -> None:
    """Stop with what to install (ModuleNotFoundError) when JupyterLab is not in this environment."""
    if importlib.util.find_spec("jupyterlab") is None:
        raise ModuleNotFoundError(f"JupyterLab is not installed in {Path(sys.prefix)}: {INSTALL_LAB}.")
