"""if / elif / else conversion: native on concrete conditions, staging.cond on symbolic ones."""

import pytest
from conftest import f64, i64

import autograph


def sign(x):
    if x > 0:
        y = 1
    elif x < 0:
        y = -1
    else:
        y = 0
    return y


def abs_plus(x, k):
    if x < 0:
        x = -x
    return x + k


def early(x):
    if x > 10:
        return x * 2
    y = x + 1
    if y > 5:
        return y
    return -y


def nested(a, b):
    r = 0
    if a > 0:
        if b > 0:
            r = 1
        else:
            r = 2
    else:
        r = 3 if b > 0 else 4
    return r


def side_only(x):
    out = []
    if x > 0:
        out.append(1)
    return len(out)


@pytest.mark.parametrize(
    "f, inputs",
    [
        (sign, [5, -3, 0]),
        (early, [20, 1, 7, -4]),
        (nested, [(1, 1), (1, -1), (-1, 1), (-1, -1)]),
        (side_only, [1, -1]),
    ],
)
def test_native_matches_python(check_native, f, inputs):
    check_native(f, *inputs)


def test_native_two_args(check_native):
    check_native(abs_plus, (-3, 1), (3, 1), (0, 2))


def test_staged_sign(check_staged):
    check_staged(sign, i64(5), i64(-3), i64(0))


def test_staged_abs_plus(check_staged):
    check_staged(abs_plus, (f64(-3.5), f64(1)), (f64(2), f64(1)))


def test_staged_early_return(check_staged):
    check_staged(early, i64(20), i64(1), i64(7), i64(-4))


def test_staged_nested(check_staged):
    check_staged(nested, (i64(1), i64(1)), (i64(1), i64(-1)), (i64(-1), i64(1)), (i64(-1), i64(-1)))


def test_staged_if_is_one_cond_node(check_staged):
    staging = pytest.importorskip("staging")
    f = check_staged(sign, i64(1))
    text = str(f.get_concrete_function(i64(1)).graph)
    assert "cond" in text


def test_branch_functions_take_and_return_state():
    code = autograph.to_code(abs_plus)
    assert "def if_true(x):" in code
    assert (
        "(x,) = ag__.if_stmt(x < 0, if_true, None, (x,), ('x',))" in code
        or "x, = ag__.if_stmt(x < 0, if_true, None, (x,), ('x',))" in code
    )


def test_state_is_only_modified_and_live_names():
    def f(x):
        t = 1
        if x > 0:
            t = 2
            unused = 3
        return t

    code = autograph.to_code(f)
    assert "('t',)" in code and "'unused'" not in code


def test_global_write_in_native_branch():
    assert autograph.convert(_bump)(True) == 1 and autograph.convert(_bump)(False) == 1


COUNTER = 0


def _bump(flag):
    global COUNTER
    if flag:
        COUNTER = 1
    return COUNTER


def test_if_exp_native(check_native):
    def f(x):
        return x * 2 if x > 0 else -x

    check_native(f, 3, -2, 0)


def test_if_exp_staged(check_staged):
    def f(x):
        return x * 2 if x > 0 else -x

    check_staged(f, i64(3), i64(-2))
