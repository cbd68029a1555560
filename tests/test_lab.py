"""kit lab: the command, the environment its kernels get, and its errors before JupyterLab starts."""

import os

import pytest

import kit.cli
import kit.lab
from kit.cli import main

pytestmark = pytest.mark.one_backend


@pytest.fixture
def started(monkeypatch):
    """`kit lab` without starting JupyterLab: the command and environment it would start it with."""
    seen = {}

    def start(command, env):
        seen.update(command=command, env=env)
        return 0

    monkeypatch.setattr(kit.lab, "start", start)
    return seen


def test_kit_lab_starts_jupyterlab_on_the_notebooks_with_the_backend_scale_and_data(started, tmp_path, capsys):
    csv = tmp_path / "mine.csv"
    csv.write_text("text,label\n" + "".join(f"text {i},{'ab'[i % 2]}\n" for i in range(30)))
    args = ["lab", "--backend", "jax", "--scale", "medium", "--no-browser", "--port", "8899", "--token", "t"]
    assert main([*args, "--data", str(csv), "--text", "text", "--label", "label"]) == 0
    command, env = started["command"], started["env"]
    assert command[1:3] == ["-m", "jupyterlab"] and "--no-browser" in command
    assert f"--ServerApp.root_dir={kit.runner.notebooks_dir()}" in command and "--ServerApp.port=8899" in command
    assert env["KERAS_BACKEND"] == "jax" and env["KIT_SCALE"] == "medium"
    assert env["KIT_DATA_FILE"] == str(csv.resolve()) and env["KIT_TEXT"] == "text" and env["KIT_LABEL"] == "label"
    printed = capsys.readouterr().out
    assert "kernels run with KERAS_BACKEND=jax, KIT_SCALE=medium" in printed
    assert "your data in every notebook" in printed


def test_kit_lab_stops_before_the_server_on_bad_data_or_without_jupyterlab(started, tmp_path, capsys, monkeypatch):
    assert main(["lab", "--data", str(tmp_path / "nope.csv"), "--text", "t", "--label", "l"]) == 1
    assert "no such file" in capsys.readouterr().err and not started
    monkeypatch.setattr(kit.lab.importlib.util, "find_spec", lambda name: None)
    assert main(["lab"]) == 1
    assert "JupyterLab is not installed" in capsys.readouterr().err and not started


def test_the_kernels_environment_keeps_what_is_set():
    env = kit.lab.lab_env(base={"KERAS_BACKEND": "torch", "KIT_SCALE": "full", "TF_CPP_MIN_LOG_LEVEL": "0"})
    assert env == {"KERAS_BACKEND": "torch", "KIT_SCALE": "full", "TF_CPP_MIN_LOG_LEVEL": "0",
                   "JUPYTER_CONFIG_PATH": str(kit.lab.JUPYTER_CONFIG)}  # fmt: skip
    assert kit.lab.lab_env(base={})["TF_CPP_MIN_LOG_LEVEL"] == "2"  # TensorFlow's CUDA probing lines off by default
    mine = os.pathsep.join(["/my/config", str(kit.lab.JUPYTER_CONFIG)])
    assert kit.lab.lab_env(base={"JUPYTER_CONFIG_PATH": mine})["JUPYTER_CONFIG_PATH"] == os.pathsep.join(
        [str(kit.lab.JUPYTER_CONFIG), "/my/config"]
    )  # the kit's first, once; the user's kept after it


def test_jupyterlab_reads_the_kit_s_page_config_and_turns_off_the_news_prompt(monkeypatch, tmp_path):
    """JupyterLab's own page-config reader, under kit lab's environment, disables the announcements plugin."""
    config = pytest.importorskip("jupyterlab_server.config", reason="JupyterLab is not installed")
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR"):  # no page config of this machine's user in the way
        monkeypatch.setenv(name, str(tmp_path / name))
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", kit.lab.lab_env(base={})["JUPYTER_CONFIG_PATH"])
    assert kit.lab.ANNOUNCEMENTS in config.get_page_config([], None)["disabledExtensions"]
    monkeypatch.delenv("JUPYTER_CONFIG_PATH")
    assert kit.lab.ANNOUNCEMENTS not in config.get_page_config([], None)["disabledExtensions"]
