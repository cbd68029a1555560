"""kit.devices: what the backend computes on, and TensorFlow's native start-up lines kept out of the terminal."""

import os

import pytest

from kit.devices import describe_devices, quiet_native_stderr

pytestmark = pytest.mark.one_backend


def test_native_start_up_lines_go_to_the_log_and_real_errors_still_show(tmp_path, capfd):
    log = tmp_path / "native.log"
    with quiet_native_stderr(log):
        os.write(2, b"I0000 cudart_stub.cc:31] Could not find cuda drivers on your machine, GPU will not be used.\n")
        os.write(2, b"E0000 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA error\n")
        os.write(2, b"E0000 op_kernel.cc:1] a real error the user must see\n")
    err = capfd.readouterr().err
    assert "a real error the user must see" in err
    assert "cuda" not in err.lower()
    assert log.read_text().count("\n") == 2 and "cuInit" in log.read_text()


def test_describe_devices_names_a_device():
    assert describe_devices().split()[0] in ("CPU", "GPU", "GPU:", "CPU:cpu") or ":" in describe_devices()


def test_importing_kit_under_tensorflow_keeps_its_start_up_lines_out_of_stderr(tmp_path):
    """A notebook's first cell (`import kit`, then keras) under tensorflow shows none of TensorFlow's absl lines."""
    import subprocess
    import sys
    from importlib.metadata import PackageNotFoundError, version

    from kit.devices import NATIVE_NOISE

    try:
        version("tensorflow")  # installed? (under jax or torch the kit blocks importing it in this process)
    except PackageNotFoundError:
        pytest.skip("TensorFlow is not installed")
    env = {**os.environ, "KERAS_BACKEND": "tensorflow", "TMPDIR": str(tmp_path)}
    probe = "import kit, keras; from kit.devices import describe_devices; print(describe_devices())"
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert not [ln for ln in out.stderr.splitlines() if NATIVE_NOISE.search(ln)], out.stderr
    assert out.stdout.strip()  # the devices were asked for (TensorFlow's device start-up ran, its lines held too)
