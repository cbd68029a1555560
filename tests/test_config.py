import os
import subprocess
import sys

import numpy as np
import pytest

import kit
from kit import config


def test_default_scale_is_smoke(monkeypatch):
    monkeypatch.delenv("KIT_SCALE", raising=False)
    assert config.scale() == "smoke"
    assert config.sizes()["sequence_length"] < config.sizes("full")["sequence_length"]


def test_full_scale(monkeypatch):
    monkeypatch.setenv("KIT_SCALE", "FULL")
    assert config.scale() == "full"
    assert config.sizes()["max_train_examples"] is None


def test_unknown_scale_names_the_fix(monkeypatch):
    monkeypatch.setenv("KIT_SCALE", "huge")
    with pytest.raises(ValueError, match=r"KIT_SCALE='huge'.*smoke"):
        config.scale()


def test_cli_rejects_unknown_scale(monkeypatch, capsys):
    from kit.cli import main

    monkeypatch.setenv("KIT_SCALE", "tiny")
    assert main(["data", "list"]) == 2
    assert "KIT_SCALE" in capsys.readouterr().err


def test_set_seed_repeats_numpy_and_keras():
    import keras

    config.set_seed(7)
    a = np.random.rand(3), keras.ops.convert_to_numpy(keras.random.normal((3,), seed=None))
    config.set_seed(7)
    b = np.random.rand(3), keras.ops.convert_to_numpy(keras.random.normal((3,), seed=None))
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


def test_data_dir_env(monkeypatch, tmp_path):
    monkeypatch.setenv("KIT_DATA_DIR", str(tmp_path / "cache"))
    assert config.data_dir() == tmp_path / "cache"
    assert (tmp_path / "cache").is_dir()


def test_output_dir_env(monkeypatch, tmp_path):
    monkeypatch.setenv("KIT_OUT", str(tmp_path / "out"))
    assert config.output_dir("00") == tmp_path / "out"
    monkeypatch.delenv("KIT_OUT")
    monkeypatch.setenv("KIT_OUT_ROOT", str(tmp_path / "root"))
    assert config.output_dir("01_x") == tmp_path / "root" / "01_x" and (tmp_path / "root" / "01_x").is_dir()


def test_unknown_backend_is_a_clear_error():
    env = dict(os.environ, KERAS_BACKEND="mxnet")
    res = subprocess.run([sys.executable, "-c", "import kit"], env=env, capture_output=True, text=True)
    assert res.returncode != 0
    assert "Unknown KERAS_BACKEND='mxnet'" in res.stderr and "jax" in res.stderr


def test_info_runs(capsys):
    from kit.cli import main

    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "backend" in out and "keras-hub" in out and "devices" in out and "cache dir" in out
    assert kit.__version__ in out
