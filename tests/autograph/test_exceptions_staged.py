"""Exceptions in staged code are eager Python's: a `raise` in staged control flow raises, when
the path runs, the user's class made from that run's values; a `try` around staged code catches
when the graph runs what eager code catches. Each case runs eagerly and staged (the trace, then
the cached graph) on several inputs and compares results and exceptions strictly.

PYTEST_DONT_REWRITE: the programs' own `assert` statements raise what Python raises.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from conftest import assert_same_value

import autograph
import staging
from staging import errors

HERE = __file__
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (eager's and staged's)


# -- helpers ----------------------------------------------------------------------------------


def _outcome(call, args):
    try:
        return "returns", call(*args)
    except Exception as error:  # noqa: BLE001 - compared
        return "raises", error


def _user_attributes(error) -> dict:
    return {k: v for k, v in vars(error).items() if not k.startswith("__")}


def _same_exception(staged, eager, where):
    assert type(staged) is type(eager), f"{where}: {staged!r} vs {eager!r}"
    assert str(staged) == str(eager), f"{where}: {str(staged)!r} vs {str(eager)!r}"
    assert repr(staged.args) == repr(eager.args), f"{where}: {staged.args!r} vs {eager.args!r}"
    assert repr(_user_attributes(staged)) == repr(_user_attributes(eager)), where
    for link in ("__cause__",):
        a, b = getattr(staged, link), getattr(eager, link)
        assert type(a) is type(b), f"{where}: {link} {a!r} vs {b!r}"
        if b is not None:
            assert str(a) == str(b), f"{where}: {link} {a!r} vs {b!r}"
    assert staged.__suppress_context__ == eager.__suppress_context__, where


def same(f, *inputs, capsys=None):
    """Staged `f` gives what `f` gives on each argument tuple, on the trace and on the cached
    graph: the same value, or an exception of the same class with the same args, message,
    attributes and cause. Returns the staged function."""
    staged = staging.function(f)
    for args in inputs:
        args = args if isinstance(args, tuple) else (args,)
        eager = _outcome(f, args)
        eager_out = capsys.readouterr().out if capsys else None
        for call in ("trace", "cached"):
            got = _outcome(staged, args)
            where = f"{f.__name__}{args} ({call})"
            assert got[0] == eager[0], f"{where}: {got[1]!r} vs {eager[1]!r}"
            if eager[0] == "raises":
                _same_exception(got[1], eager[1], where)
            else:
                assert_same_value(got[1], eager[1], where)
            if capsys:
                assert capsys.readouterr().out == eager_out, where
    return staged


def line_of(func, text) -> int:
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, line in enumerate(lines) if text in line)


def notes(error) -> str:
    return "\n".join(getattr(error, "__notes__", []))


# -- the user's exceptions ----------------------------------------------------------------------


class InvalidRate(ValueError):
    pass


class ValidationError(ValueError):
    def __init__(self, field, value):
        super().__init__(f"invalid {field}")
        self.field = field
        self.value = value


class SolverError(RuntimeError):
    pass


def npv(rate, cashflows):
    if rate <= -1:
        raise InvalidRate("rate must exceed -100%")
    return np.sum(cashflows / (1 + rate) ** np.arange(cashflows.shape[0]))


def npv_or_nan(rate, cashflows):
    try:
        return npv_staged(rate, cashflows)
    except InvalidRate:
        return np.nan


npv_staged = staging.function(npv)


def test_the_users_class_raised_in_a_staged_branch_only_when_it_runs():
    cash = np.array([-100.0, 60.0, 60.0])
    staged = same(npv, (np.float64(0.1), cash), (np.float64(-1.5), cash), (np.float64(-1.0), cash))
    # the caller's fallback runs only when eager's would (was: on every call)
    assert npv_or_nan(np.float64(0.1), cash) == npv(np.float64(0.1), cash)
    assert np.isnan(npv_or_nan(np.float64(-2.0), cash))
    assert staged.tracing_count == 1
    with pytest.raises(InvalidRate) as info:
        staged(np.float64(-3.0), cash)
    assert str(info.value) == "rate must exceed -100%"  # eager's message, no file:line in it
    assert f"{HERE}:{line_of(npv, 'raise InvalidRate')}: raised while running" in notes(info.value)


def validate(ages, limit):
    total = 0
    for i in range(ages.shape[0]):
        a = ages[i]
        if a < 0 or a > limit:
            raise ValidationError("age", a)
        total += a
    return total


def test_a_class_with_its_own_init_is_made_from_the_run_time_values():
    same(
        validate,
        (np.array([3, 40]), np.int64(130)),
        (np.array([3, -1, 7]), np.int64(130)),
        (np.array([200]), np.int64(130)),
        (np.zeros(0, np.int64), np.int64(130)),
    )
    with pytest.raises(ValidationError) as info:
        staging.function(validate)(np.array([5, -4]), np.int64(130))
    assert info.value.field == "age" and type(info.value.value) is np.int64
    assert info.value.value == -4


def classify(x):
    if x > 0:
        if x > 10:
            raise OverflowError("too big", x)
        raise np.linalg.LinAlgError("singular")
    elif x < -5:
        raise KeyError(x)
    return x * 2.0


def test_raises_in_nested_branches_of_numpy_and_builtin_classes():
    same(classify, *(np.float64(v) for v in (-1.0, 3.0, 20.0, -7.0, np.nan)))


def both_raise(x):
    if x > 0:
        raise InvalidRate("positive")
    else:
        raise SolverError("not positive")


def test_an_if_whose_branches_both_raise_raises_the_taken_ones():
    same(both_raise, np.float64(1.0), np.float64(-1.0))


def first_negative(x):
    for i in range(x.shape[0]):
        if x[i] < 0:
            raise ValueError("negative at", i)
    return -1


def raise_in_while(n):
    k = n
    while k > 0:
        k -= 3
        if k == 1:
            raise ValidationError("k", k)
    return k


def test_raises_in_staged_loops():
    same(first_negative, np.array([1.0, 2.0]), np.array([1.0, -2.0]), np.zeros(0))
    same(raise_in_while, np.int64(10), np.int64(4), np.int64(0), np.int64(9))


def assert_with_value(x):
    if x > 0:
        assert x < 10, x
    assert x > -10, "too small"
    return x


def test_a_staged_assert_raises_eagers_assertion_error():
    same(assert_with_value, *(np.float64(v) for v in (1.0, 20.0, -20.0, -5.0)))


def raise_with_keywords(x):
    if x > 1:
        raise ValidationError(value=x, field="x")
    return x


def raise_a_class(x):
    if x > 1:
        raise ZeroDivisionError
    return x


def raise_an_object(x):
    error = ValueError("made before", 3)
    if x > 1:
        raise error
    return x


def test_raise_forms():
    same(raise_with_keywords, np.float64(0.0), np.float64(2.0))
    same(raise_a_class, np.float64(0.0), np.float64(2.0))
    same(raise_an_object, np.float64(0.0), np.float64(2.0))


def unconditional(x):
    y = x * 2
    raise InvalidRate("always")


def test_a_raise_outside_staged_control_flow_is_raised_while_tracing_as_on_every_call():
    with pytest.raises(InvalidRate) as info:
        staging.function(unconditional)(np.float64(1.0))
    assert str(info.value) == "always" and not hasattr(info.value, "__autograph_raise__")


def unconditional_of_a_value(x):
    y = x * 2
    raise ValidationError("y", y)


def test_an_unconditional_raise_of_a_staged_value_is_made_when_the_graph_runs():
    same(unconditional_of_a_value, np.float64(1.0), np.float64(-3.5))


# -- try / except -------------------------------------------------------------------------------


def solve_with_fallback(a, b):
    try:
        x = np.linalg.solve(a, b)
        method = 1
    except np.linalg.LinAlgError:
        x = np.linalg.pinv(a) @ b
        method = 2
    return x, method, np.linalg.norm(a @ x - b)


def test_a_linalg_error_is_caught_when_the_graph_raises_it():
    b = np.array([1.0, 2.0])
    staged = same(solve_with_fallback, (np.eye(2), b), (np.ones((2, 2)), b), (np.zeros((2, 2)), b))
    graph = str(staged.get_concrete_function(np.eye(2), b).graph)
    assert "try_except" in graph and "catch=(LinAlgError,)" in graph


def is_positive_definite(a):
    try:
        np.linalg.cholesky(a)  # its result unused: kept, its error is what the `try` reads
        return True
    except np.linalg.LinAlgError:
        return False


def test_an_operation_whose_only_use_is_its_error_is_kept():
    same(is_positive_definite, np.eye(3), -np.eye(3), np.array([[2.0, 1.0], [1.0, 2.0]]))


def with_else_and_finally(a, b):
    count = 0
    try:
        x = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        x = np.zeros_like(b)
        count = -1
    else:
        count = count + 10
        x = x * 2.0
    finally:
        count = count + 1
    return x, count


def test_else_and_finally():
    b = np.array([1.0, 2.0])
    same(with_else_and_finally, (np.eye(2), b), (np.ones((2, 2)), b))


def ratios(n):
    out = 0.0
    for i in range(n):
        try:
            out += 1 / (i - 2)
        except ZeroDivisionError:
            out -= 100.0
    return out


def test_zero_division_of_python_numbers_known_when_the_graph_runs():
    same(ratios, np.int64(0), np.int64(2), np.int64(3), np.int64(6))


def cagr(start, end, years):
    try:
        return (end / start) ** (1 / years) - 1
    except ZeroDivisionError:
        return None


def test_a_clause_that_cannot_catch_what_the_body_raises_leaves_it_as_it_is():
    staged = same(
        cagr,
        (np.float64(100.0), np.float64(150.0), 3),
        (np.float64(0.0), np.float64(5.0), 1),
        (100.0, 150.0, 0),
    )
    graph = str(staged.get_concrete_function(np.float64(1.0), np.float64(1.0), 2).graph)
    assert "try_except" not in graph  # NumPy's division only warns: the body runs as it is


def guarded_log(x):
    with np.errstate(divide="raise", invalid="raise"):
        try:
            y = np.log(x)
        except FloatingPointError:
            y = np.float64(-1.0)
    return y


def test_floating_point_error_under_errstate():
    same(guarded_log, np.float64(2.0), np.float64(0.0), np.float64(-1.0))


def pick(x, i):
    try:
        v = x[i]
    except IndexError:
        v = -1.0
    return v


def lookup(x, table):
    try:
        if x > 0:
            v = table["scale"] * x
        else:
            v = x
    except KeyError:
        v = x * 0.0
    return v


def test_index_and_key_errors():
    x = np.arange(3.0)
    same(pick, (x, np.int64(1)), (x, np.int64(7)), (x, np.int64(-4)))
    same(lookup, (np.float64(2.0), {}), (np.float64(-2.0), {}), (np.float64(2.0), {"scale": 3.0}))


def checked_sqrt(x):
    try:
        if x < 0:
            raise ValidationError("x", x)
        y = np.sqrt(x)
    except ValidationError as e:
        print("invalid:", e)
        y = np.float64(0.0)
    return y


def test_the_users_raise_caught_by_the_users_try(capsys):
    same(checked_sqrt, np.float64(4.0), np.float64(-4.0), capsys=capsys)


def reraises(a, b):
    try:
        x = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        print("singular", a[0, 0])  # (a staged print: on the calls that run it)
        raise
    return x


def chains(a, b):
    try:
        x = np.linalg.solve(a, b)
    except np.linalg.LinAlgError as e:
        raise SolverError("could not solve") from e
    return x


def hides_the_context(a, b):
    try:
        x = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        raise SolverError("could not solve") from None
    return x


def test_reraise_and_chaining(capsys):
    b = np.array([1.0, 2.0])
    same(reraises, (np.eye(2), b), (np.ones((2, 2)), b), capsys=capsys)
    same(chains, (np.eye(2), b), (np.ones((2, 2)), b))
    same(hides_the_context, (np.eye(2), b), (np.ones((2, 2)), b))
    with pytest.raises(SolverError) as info:
        staging.function(chains)(np.ones((2, 2)), b)
    cause = info.value.__cause__
    assert type(cause) is np.linalg.LinAlgError and str(cause) == "Singular matrix"


def several_clauses(x, n):
    try:
        if x > 0:
            raise InvalidRate("rate")
        r = 1 / n + np.log(x)
    except ZeroDivisionError:
        r = -1.0
    except (FloatingPointError, InvalidRate) as e:
        r = -2.0 if isinstance(e, InvalidRate) else -3.0
    return r


def test_several_clauses_dispatch_on_the_class_when_the_graph_runs():
    cases = [(np.float64(v), n) for v in (1.0, -1.0, 0.0) for n in (0, 2)]
    same(several_clauses, *cases)
    with np.errstate(all="raise"):
        same(several_clauses, *cases)


def handler_assigns(x, k):
    scale = 1.0
    try:
        y = x / k
    except ZeroDivisionError:
        scale = 0.0
        y = x
    return y * scale


def test_clauses_assign_names_read_after_the_try():
    same(handler_assigns, (np.float64(3.0), 2), (np.float64(3.0), 0))
    # k a Python int known when the graph runs (a weak value): divided by Python's `/`
    same(handler_assigns, *((np.float64(3.0), k) for k in (np.int64(0), np.int64(2))))


def in_a_loop(a, bs):
    total = np.zeros(2)
    n_failed = 0
    for i in range(bs.shape[0]):
        try:
            total = total + np.linalg.solve(a * bs[i, 0], bs[i])
        except np.linalg.LinAlgError:
            n_failed += 1
    return total, n_failed


def test_a_try_in_a_staged_loop():
    bs = np.array([[1.0, 2.0], [0.0, 1.0], [2.0, 1.0]])
    same(in_a_loop, (np.eye(2), bs), (np.eye(2), np.zeros((0, 2))))


def native_state(x, d, key):
    n = 0
    try:
        n = 1
        v = d[key]
        n = 2
    except KeyError:
        v = n  # 1: what the body left before the lookup failed
    return x * v


def test_a_try_that_stages_nothing_runs_as_python():
    same(native_state, (np.float64(2.0), {"a": 5}, "a"), (np.float64(2.0), {}, "a"))
    assert autograph.convert(native_state)(2.0, {}, "a") == 2.0


def nested_try(x):
    try:
        try:
            if x > 1:
                raise InvalidRate("inner")
            y = x * 2
        except InvalidRate:
            if x > 5:
                raise ValidationError("x", x)
            y = x * 3
    except ValidationError:
        y = x * 4
    return y


def try_in_a_branch(x, a):
    if x > 0:
        try:
            r = np.linalg.inv(a)[0, 0]
        except np.linalg.LinAlgError:
            r = x
    else:
        r = -x
    return r


_inverse = staging.function(lambda v: np.linalg.inv(v))


def calls_a_staged_function(a):
    try:
        r = _inverse(a)
    except np.linalg.LinAlgError:
        r = a
    return r


def body_and_clause_raise(x):
    try:
        if x > 0:
            raise InvalidRate("a")
        raise SolverError("b")
    except InvalidRate:
        raise ValidationError("c", x) from None


def test_nested_tries_and_tries_in_branches_and_calls():
    same(nested_try, *(np.float64(v) for v in (0.0, 2.0, 6.0)))
    cases = [(np.float64(v), m) for v in (1.0, -1.0) for m in (np.eye(2), np.zeros((2, 2)))]
    same(try_in_a_branch, *cases)
    same(calls_a_staged_function, np.eye(2), np.zeros((2, 2)))
    same(body_and_clause_raise, np.float64(1.0), np.float64(-1.0))


def only_the_body_assigns(a):
    ok = False
    try:
        chol = np.linalg.cholesky(a)
        ok = True
    except np.linalg.LinAlgError:
        pass
    if ok:
        return chol[0, 0]
    return -1.0


def appends_in_both(a):
    out = []
    for i in range(2):
        try:
            out.append(np.linalg.inv(a * i)[0, 0])
        except np.linalg.LinAlgError:
            out.append(-1.0)
    return out


def read_by_a_closure(a):
    scale = 1.0

    def scaled(v):
        return v * scale

    try:
        scale = np.linalg.det(np.linalg.inv(a))
    except np.linalg.LinAlgError:
        scale = 0.0
    return scaled(2.0)


def test_names_set_on_one_path_lists_and_closures():
    same(only_the_body_assigns, np.eye(2), -np.eye(2))
    same(appends_in_both, np.eye(2))
    same(read_by_a_closure, np.eye(2), np.zeros((2, 2)))


def raise_in_a_loop_in_a_try(x):
    try:
        s = 0.0
        for v in x:
            if v < 0:
                raise InvalidRate("negative")
            s = s + v
    except InvalidRate:
        s = -1.0
    return s


def break_in_a_clause(a, n):
    k = 0
    for i in range(n):
        try:
            a = np.linalg.inv(a - i)
        except np.linalg.LinAlgError:
            break
        k += 1
    return k


def continue_in_a_clause(xs):
    total = 0.0
    for i in range(xs.shape[0]):
        try:
            v = 1.0 / xs[i]
            if v > 2:  # `v` assigned before this line: never read after a `continue`
                raise InvalidRate("big")
        except InvalidRate:
            continue
        total = total + v
    return total


def return_in_a_loop(a, n):
    for i in range(n):
        try:
            return np.linalg.inv(a - i)[0, 0]
        except np.linalg.LinAlgError:
            pass
    return -1.0


def returns_in_else(a):
    try:
        x = np.linalg.inv(a)
    except np.linalg.LinAlgError:
        return -1.0
    else:
        return x[0, 0]


def test_jumps_and_loops():
    same(raise_in_a_loop_in_a_try, np.array([1.0, 2.0]), np.array([1.0, -2.0]), np.zeros(0))
    same(break_in_a_clause, *((np.eye(2) * 3, np.int64(n)) for n in (0, 2, 5)))
    same(continue_in_a_clause, np.array([1.0, 0.25, 4.0]), np.zeros(0))
    same(return_in_a_loop, *((np.eye(2), np.int64(n)) for n in (0, 1, 3)))
    same(returns_in_else, np.eye(2), np.zeros((2, 2)))


def bare_except(a):
    try:
        x = np.linalg.inv(a)[0, 0]
    except:  # noqa: E722 - as users write it
        x = 0.0
    return x


def reraise_in_a_branch(x, a):
    try:
        r = np.linalg.inv(a)
    except np.linalg.LinAlgError:
        if x > 0:
            raise
        r = a
    return r


class NeedsAFloat(ValueError):
    def __init__(self, value):
        super().__init__(f"{float(value):.2f} is out of range")  # reads the value


def made_from_a_value(x):
    if x > 1:
        raise NeedsAFloat(x)
    return x


def test_bare_except_reraise_and_a_class_that_reads_its_argument():
    same(bare_except, np.eye(2), np.zeros((2, 2)))
    cases = [(np.float64(v), m) for v in (1.0, -1.0) for m in (np.eye(2), np.zeros((2, 2)))]
    same(reraise_in_a_branch, *cases)
    same(made_from_a_value, np.float64(0.5), np.float64(2.25))


def test_native_try_sees_the_state_where_the_body_raised():
    def f(d):
        n = 0
        try:
            n = 1
            v = d["k"]
            n = 2
        except KeyError as e:
            return n, e.args
        return n, v

    converted = autograph.convert(f)
    assert converted({}) == f({}) == (1, ("k",))
    assert converted({"k": 5}) == f({"k": 5}) == (2, 5)


def test_a_raise_in_a_branch_under_the_jax_backend():
    pytest.importorskip("jax")
    f = staging.function(npv, jit_compile=True)
    cash = np.array([-100.0, 60.0])
    assert f(np.float64(0.5), cash) == npv(np.float64(0.5), cash)
    with pytest.raises(InvalidRate) as info:
        f(np.float64(-2.0), cash)
    assert str(info.value) == "rate must exceed -100%"


_counter = staging.Variable(0.0)


def finally_with_effects(a, b):
    try:
        x = np.linalg.solve(a, b)
    finally:
        print("solved", a[0, 0])
        _counter.assign_add(1.0)
    return x


def finally_after_a_raise(x):
    try:
        if x > 0:
            raise InvalidRate("positive")
        y = x * 2.0
    finally:
        print("cleanup", x)
    return y


def test_a_finally_block_with_effects_runs_on_the_error_path_too(capsys):
    b = np.array([1.0, 2.0])
    start = _counter.numpy()
    staged = same(finally_with_effects, (np.eye(2), b), (np.ones((2, 2)), b), capsys=capsys)
    assert _counter.numpy() == start + 6  # eager and staged (trace, cached) on both inputs
    same(finally_after_a_raise, np.float64(1.0), np.float64(-1.0), capsys=capsys)
    graph = str(staged.get_concrete_function(np.eye(2), b).graph)
    assert "try_finally" in graph and "cleanup(" in graph


# -- refusals -----------------------------------------------------------------------------------


def assigned_before_a_later_line(a, b):
    x = b
    try:
        x = b * 2.0
        x = np.linalg.solve(a, x)
    except np.linalg.LinAlgError:
        pass
    return x


def reads_what_it_caught(a, b):
    try:
        x = np.linalg.solve(a, b)
    except np.linalg.LinAlgError as e:
        x = e.args
    return x


def formats_what_it_caught(a, b):
    try:
        x = np.linalg.solve(a, b)
    except np.linalg.LinAlgError as e:
        x = len(str(e))
    return x


def effects_in_finally(a, b):
    try:
        x = np.linalg.solve(a, b)
    finally:
        print("solved", x)  # on the error path `x` may not exist
    return x


@pytest.mark.parametrize(
    "f, line, message",
    [
        (
            assigned_before_a_later_line,
            "try:",
            "this `try` is staged (its `except` clause may catch an error raised when the graph "
            "runs), and its body assigns 'x' before a later line that may raise",
        ),
        (reads_what_it_caught, "x = e.args", "`.args` of the LinAlgError this `except` clause"),
        (
            effects_in_finally,
            "try:",
            "this `finally:` block has staged effects (a print, a Variable write, a `raise` ...) "
            "and reads values its `try` computed",
        ),
    ],
)
def test_what_cannot_be_staged_exactly_is_refused_naming_the_line(f, line, message):
    b = np.array([1.0, 2.0])
    with pytest.raises(
        errors.UnsupportedConstructError if "try" in message else errors.StagingError
    ) as info:
        staging.function(f)(np.eye(2), b)
    assert str(info.value).startswith(f"{HERE}:{line_of(f, line)}: {message}")


def test_a_try_that_catches_is_refused_by_the_jax_backend():
    pytest.importorskip("jax")
    from runtime.jax_lowering import LoweringError

    f = staging.function(solve_with_fallback, jit_compile=True)
    with pytest.raises(LoweringError) as info:
        f(np.eye(2), np.ones(2))
    assert "XLA has no exceptions" in str(info.value)
    assert f"{HERE}:{line_of(solve_with_fallback, 'try:')}" in str(info.value)


@pytest.mark.parametrize("a", [np.eye(2), np.zeros((2, 2))])
def test_the_text_of_a_caught_exception_is_a_staged_string(a):
    """str(e) of what a staged `try` caught is made when the graph runs (a staged string)."""
    b = np.array([1.0, 2.0])
    staged = staging.function(formats_what_it_caught)(a, b)
    eager = formats_what_it_caught(a, b)
    assert type(staged) is type(eager) and np.array_equal(staged, eager)
