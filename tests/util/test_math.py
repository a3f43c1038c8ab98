import pytest

from returnn.util.math import PiecewiseLinear, StepFunction, ceil_div, next_power_of_two


def test_piecewise_linear():
    f = PiecewiseLinear({1: 2, 3: 4, 5: 1})
    assert str(f) == "PiecewiseLinear({1: 2, 3: 4, 5: 1})"
    assert [f(x) for x in (0, 1, 2, 3, 4, 5, 6)] == [2, 2, 3, 4, 2.5, 1, 1]
    assert repr(PiecewiseLinear({1: 2, 3: 4}, kw_name="epoch")) == "PiecewiseLinear({1: 2, 3: 4}, kw_name='epoch')"


def test_kw_name():
    f = PiecewiseLinear({1: 2, 3: 4}, kw_name="epoch_continuous")
    assert f(epoch_continuous=2) == 3
    with pytest.raises(TypeError):
        f(2)
    with pytest.raises(TypeError):
        f(epoch_continuous=2, seq_idx=1)
    f = PiecewiseLinear({1: 2, 3: 4}, kw_name="epoch_continuous", ignore_other_kwargs=True)
    assert f(epoch_continuous=2, seq_idx=1) == 3
    with pytest.raises(TypeError):
        f()


def test_step_function():
    f = StepFunction({1: "yes", 3: "no"})
    assert [f(x) for x in (-5, 1, 2, 2.1, 3, 100)] == ["yes", "yes", "yes", "no", "no", "no"]
    assert str(f) == "StepFunction({1: 'yes', 3: 'no'})"


def test_int_helpers():
    assert [ceil_div(a, 3) for a in (0, 1, 3, 4, 7)] == [0, 1, 1, 2, 3]
    assert [next_power_of_two(n) for n in (0, 1, 2, 3, 5, 8, 9)] == [1, 1, 2, 4, 8, 8, 16]


def test_empty_points():
    with pytest.raises(ValueError, match="at least one point"):
        PiecewiseLinear({})
