"""kit.optimizers.schedules: every recipe's learning-rate schedule, its step-0 convention, and save/load."""

import keras
import pytest

from kit.optimizers import schedules


def rates(schedule, steps):
    return [float(schedule(i)) for i in range(steps + 1)]


@pytest.mark.parametrize("make", [lambda: schedules.linear(2e-3, 20, 4), lambda: schedules.cosine(2e-3, 20, 4)])
def test_ramp_warm_up_starts_at_rate_over_warmup_and_decays_to_zero(make):
    r = rates(make(), 20)
    assert r[0] == pytest.approx(5e-4) and r[3] == pytest.approx(2e-3) and r[20] == pytest.approx(0.0, abs=1e-12)
    assert all(a >= b - 1e-12 for a, b in zip(r[3:], r[4:]))  # never rises after the warm-up


def test_zero_start_is_keras_cosine_decay():
    r = rates(schedules.cosine(1e-3, 100, 10, start="zero"), 100)
    assert r[0] == 0.0 and r[5] == pytest.approx(5e-4) and r[10] == pytest.approx(1e-3) and r[100] < 1e-9
    assert isinstance(schedules.cosine(1e-3, 100, 10, start="zero"), keras.optimizers.schedules.CosineDecay)


def test_linear_without_warm_up_is_keras_polynomial_decay_and_constant_is_a_number():
    s = schedules.linear(1e-3, 10)
    assert isinstance(s, keras.optimizers.schedules.PolynomialDecay)
    assert rates(s, 10)[0] == pytest.approx(1e-3) and rates(s, 10)[5] == pytest.approx(5e-4)
    assert schedules.constant(1e-3) == 1e-3
    warm = rates(schedules.constant(1e-3, warmup_steps=4), 50)
    assert warm[0] == 0.0 and warm[4:] == pytest.approx([1e-3] * 47)


@pytest.mark.parametrize(
    "make",
    [
        lambda: schedules.WarmupCosine(2e-3, total_steps=20, warmup_steps=4),
        lambda: schedules.WarmupLinearDecay(1e-3, total_steps=20, warmup_steps=2),
    ],
)
def test_kit_schedules_round_trip(make):
    s = make()
    again = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(s))
    assert rates(again, 20) == pytest.approx(rates(s, 20))
    assert type(s)(**s.get_config()).get_config() == s.get_config()


def test_bad_arguments_name_the_fix():
    with pytest.raises(ValueError, match="start must be one of"):
        schedules.cosine(1e-3, 10, 2, start="one")
    with pytest.raises(ValueError, match="total_steps must be >= 1"):
        schedules.linear(1e-3, 0)
