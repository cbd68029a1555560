import os
import subprocess
import sys

import numpy as np
import pytest

import kit
import kit.papers
from kit import config


def test_default_scale_is_smoke(monkeypatch):
    monkeypatch.delenv("KIT_SCALE", raising=False)
    assert config.scale() == "smoke"
    assert config.sizes()["sequence_length"] < config.sizes("full")["sequence_length"]


def test_full_scale(monkeypatch):
    monkeypatch.setenv("KIT_SCALE", "FULL")
    assert config.scale() == "full"
    assert config.sizes()["max_train_examples"] is None


def test_medium_scale_is_the_offline_data_at_paper_sizes(monkeypatch):
    monkeypatch.setenv("KIT_SCALE", "medium")
    P, T = kit.papers.sizes("pretrain_or_not"), kit.papers.sizes("tlm")
    assert config.scale() == "medium" and P["max_eval"] is None and 1.0 in P["train_sizes"]
    assert [2, 256] in P["lstm_sizes"] and P["lstm_plus_pretrained"] in ([2, 256], [4, 256])
    assert len(P["lstm_seeds"]) >= 3
    assert (T["num_layers"], T["hidden_dim"]) == (6, 512) and len(T["seeds"]) >= 3 and T["max_train"] is None
    assert set(T["tasks"]) <= set(kit.data.list_datasets(offline_only=True))


@pytest.mark.parametrize("paper", config.PAPERS)
def test_every_paper_has_the_same_sizes_at_every_scale(paper):
    """Each scale of a paper's sizes table names the same sizes (a size missing at one scale would be a KeyError in
    the notebook there), and a default is never overridden by a scale (it would not be a default)."""
    import importlib

    table = importlib.import_module(f"kit.papers.{paper}.{paper}_sizes")
    assert set(table.SCALES) == set(config.SCALES)
    keys = {name: set(table.SCALES[name]) for name in table.SCALES}
    assert len({frozenset(k) for k in keys.values()}) == 1 or paper == "stack_and_finetune", keys
    assert all(not set(table.DEFAULTS) & k for k in keys.values())
    assert set(keys["full"]) - set(keys["smoke"]) <= {"backbone"}  # full alone may name the paper's encoder


def test_sizes_override_from_json(monkeypatch):
    monkeypatch.setenv("KIT_SIZES", '{"tlm": {"stage1_steps": 7}, "epochs": 1}')
    s, t = config.sizes("smoke"), kit.papers.sizes("tlm", "smoke")
    assert t["stage1_steps"] == 7 and s["epochs"] == 1 and "tlm" not in s
    from kit.papers.tlm import tlm_sizes

    assert (
        t["k"] == tlm_sizes.SCALES["smoke"]["k"] and tlm_sizes.SCALES["smoke"]["stage1_steps"] != 7
    )  # table untouched
    bad = [
        ('{"tlm": {"stage_one_steps": 7}}', "unknown size 'tlm.stage_one_steps'", lambda: kit.papers.sizes("tlm")),
        ('{"tlmm": {"k": 7}}', "unknown size 'tlmm'", config.sizes),
        ('{"tlm": 7}', "'tlm' must map to an object of sizes", lambda: kit.papers.sizes("tlm")),
        ("{not json", "KIT_SIZES is not valid JSON", config.sizes),
    ]
    for value, message, read in bad:
        monkeypatch.setenv("KIT_SIZES", value)
        with pytest.raises(ValueError, match=message):
            read()


def test_train_sizes_mix_counts_and_fractions():
    assert config.train_sizes([300, 0.5, 1.0], 1000) == [300, 500, 1000]
    assert config.train_sizes([5000, 1.0], 1200) == [1200]


def test_precision(monkeypatch):
    import keras

    monkeypatch.delenv("KIT_PRECISION", raising=False)
    assert config.precision() == "float32"
    monkeypatch.setenv("KIT_PRECISION", "mixed_bfloat16")
    try:
        assert config.apply_precision() == "mixed_bfloat16"
        assert keras.config.dtype_policy().name == "mixed_bfloat16"
        assert keras.layers.Dense(2).compute_dtype == "bfloat16"
    finally:
        config.apply_precision("float32")
    monkeypatch.setenv("KIT_PRECISION", "fp8")
    with pytest.raises(ValueError, match="KIT_PRECISION='fp8'.*mixed_bfloat16"):
        config.precision()


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


def test_the_light_modules_import_without_keras():
    """`import kit`, the data, text and retrieval rooms and kit.analysis' statistics need no Keras (so `kit data` and
    `kit info` start fast and one_backend tests stay light); kit.metrics loads its Keras-backed names on first use."""
    import subprocess
    import sys

    code = (
        "import sys, kit, kit.config, kit.data, kit.text, kit.retrieval, kit.analysis, kit.metrics; "
        "print(sorted(m for m in ('keras', 'keras_hub', 'torch', 'jax') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_the_command_line_modules_import_without_keras():
    """`kit info`, `kit data` and `kit run` start without Keras: kit.cli, what it imports at its top (kit.runner,
    kit.session, kit.devices) and kit.exercises import Keras only when a notebook, a solution or a device query needs
    it."""
    code = (
        "import sys, kit.cli, kit.runner, kit.session, kit.devices, kit.exercises, kit.papers; "
        "print(sorted(m for m in ('keras', 'keras_hub', 'torch', 'jax', 'tensorflow') if sys.modules.get(m)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"
