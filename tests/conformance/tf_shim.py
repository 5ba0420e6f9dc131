"""A stand-in `tensorflow` (plus absl's parameterized and the reference test base) over NumPy and staging.

TensorFlow's AutoGraph reference tests import `tensorflow`, `absl.testing.parameterized`
and `tensorflow.python.autograph.tests.reference_test_base`. `install()` puts the
modules built here under those names in `sys.modules`, so the test files run unchanged
against this project:

* `tf.function` is `staging.function`, tapped: every call runs the plain Python function
  too and records the comparison (see `Differential`);
* `tf.constant`, `tf.Variable`, `tf.TensorArray`, `tf.cond`, `tf.while_loop`, `tf.print`
  are the `staging` ones; values get TensorFlow's default dtypes (a Python int is int32,
  a float float32), so the tests exercise the same mixes of Python and int32 values;
* the few `tf.*` ops the tests use are NumPy functions (`tf.range` is `np.arange`,
  `tf.concat` is `np.concatenate`, ...), written as ordinary user functions so staging
  converts and stages them as it would a user's own NumPy helper;
* `tf.data`, `tf.distribute`, sparse and ragged tensors have no NumPy meaning: using
  them raises `Unsupported`, and the case is counted as skipped.

The reference base compares a function's staged call with its plain call: returned
values (NumPy dtype and shape included), printed output, exception types, module
globals the call rebinds and arguments it mutates.
"""

from __future__ import annotations

import collections.abc
import contextlib
import copy
import functools
import importlib.util
import io
import numbers
import random
import re
import signal
import sys
import types
import unittest

import numpy as np

import autograph
import staging
from staging import errors as staging_errors

# -- the run state shared by the base class and the runner ---------------------------------


class Unsupported(unittest.SkipTest):
    """The test needs something with no NumPy meaning here (tf.data, distribution, ...)."""

    def __init__(self, kind, what):
        super().__init__(f"{kind}: {what}")
        self.kind, self.what = kind, what


class _Timeout(BaseException):
    """Raised by the alarm when one run takes longer than the time limit."""


class Check:
    """One comparison: a function called with one set of arguments, plainly and staged."""

    __slots__ = (
        "case",
        "function",
        "args",
        "mode",
        "verdict",
        "reason",
        "eager",
        "staged",
        "skip_kind",
    )

    def __init__(self, case, function, args, mode):
        self.case, self.function, self.args, self.mode = case, function, args, mode
        self.verdict = self.reason = self.eager = self.staged = self.skip_kind = None


class Case:
    """One test method with one set of parameters."""

    def __init__(self, file, test_class, name):
        self.file, self.test_class, self.name = file, test_class, name
        self.checks: list[Check] = []
        self.skip_kind = None  # set when the method stopped on something unsupported
        self.tf_skip = None  # the reason the test itself gives for skipping (not honoured)
        self.note = None  # a failure of the test's own assertions (TensorFlow's answer)


class _Run:
    """Options and the case being run (one process runs one case at a time)."""

    def __init__(self):
        self.case: Case | None = None
        self.timeout = 5.0
        self.honour_skips = False
        self.compare_dtypes = True  # False: values only, as TensorFlow's reference base compares
        self.user_files: set[str] = set()
        self.has_jax = importlib.util.find_spec("jax") is not None


RUN = _Run()


# -- running one function both ways --------------------------------------------------------


@contextlib.contextmanager
def _alarm(seconds):
    if not seconds or not hasattr(signal, "setitimer"):
        yield
        return

    def on_alarm(signum, frame):
        raise _Timeout()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class Outcome:
    """What one call did: its value or exception, what it printed, what else it changed."""

    __slots__ = ("value", "out", "error", "timed_out", "globals_changed", "args_after")

    def __init__(self):
        self.value = self.error = self.args_after = None
        self.out = ""
        self.timed_out = False
        self.globals_changed = {}


def _copy_args(args):
    try:
        return copy.deepcopy(args)
    except Exception:  # objects that cannot be copied are shared, as the reference base does
        return args


def _globals_of(f):
    f = getattr(f, "python_function", f)
    f = getattr(f, "__func__", f)
    while isinstance(f, functools.partial):
        f = f.func
    return getattr(f, "__globals__", None)


def _call(call, args, kwargs, namespace, timeout):
    outcome = Outcome()
    before = dict(namespace) if namespace is not None else None
    buffer, stdout = io.StringIO(), sys.stdout
    sys.stdout = buffer
    try:
        with _alarm(timeout):
            try:
                outcome.value = call(*args, **kwargs)
            except _Timeout:
                outcome.timed_out = True
            except Exception as error:  # noqa: BLE001 - the exception is the outcome
                outcome.error = error
    finally:
        sys.stdout = stdout
    outcome.out = buffer.getvalue()
    if before is not None:
        outcome.globals_changed = {
            k: v for k, v in namespace.items() if k not in before or before[k] is not v
        }
        outcome.globals_changed.update({k: "<deleted>" for k in before if k not in namespace})
    outcome.args_after = (args, kwargs)
    return outcome


def _restore(namespace, snapshot):
    if namespace is not None:
        namespace.clear()
        namespace.update(snapshot)


def _staged_callable(f, mode):
    if mode == "convert":
        return autograph.convert(f)
    if mode == "xla":
        return staging.function(f, jit_compile=True)
    return staging.function(f)


def run_check(f, eager_args, staged_args, mode, kwargs_pair=({}, {})):
    """Calls `f` plainly on `eager_args` and staged on `staged_args`, from the same module
    globals and random state, records the comparison in the current case and returns the
    staged outcome."""
    case = RUN.case
    check = Check(case, _name_of(f), ", ".join(_short(a) for a in staged_args), mode)
    if case is not None:
        case.checks.append(check)
    if mode == "xla" and not RUN.has_jax:
        check.verdict, check.skip_kind = "skipped", "XLA variant (jax not installed)"
        check.reason = "jit_compile=True needs jax"
        raise Unsupported("XLA variant (jax not installed)", check.function)
    namespace = _globals_of(f)
    snapshot = dict(namespace) if namespace is not None else None
    np_state, py_state = np.random.get_state(), random.getstate()
    eager = _call(f, eager_args, kwargs_pair[0], namespace, RUN.timeout)
    eager_namespace = dict(namespace) if namespace is not None else None
    _restore(namespace, snapshot)
    np.random.set_state(np_state)
    random.setstate(py_state)
    staged = _call(
        lambda *a, **k: _staged_callable(f, mode)(*a, **k),
        staged_args,
        kwargs_pair[1],
        namespace,
        RUN.timeout,
    )
    check.eager, check.staged = eager, staged
    check.verdict, check.reason = classify(eager, staged)
    if check.verdict == "skipped":
        error = eager.error if isinstance(eager.error, Unsupported) else staged.error
        check.skip_kind = error.kind
        _restore(namespace, eager_namespace)
        raise error
    return staged


class Differential:
    """`tf.function(f)` / `self.function(f)` / `self.convert(f)`: calling it compares the staged
    call with the plain one (recorded in the current case), then answers as the staged call."""

    def __init__(self, f, mode="function"):
        self.python_function, self.mode = f, mode
        functools.update_wrapper(self, f, updated=())

    def __call__(self, *args, **kwargs):
        outcome = run_check(
            self.python_function, _copy_args(args), args, self.mode, (_copy_args(kwargs), kwargs)
        )
        if outcome.timed_out:
            raise RuntimeError("the staged call did not finish within the time limit")
        if outcome.error is not None:
            raise outcome.error
        return outcome.value

    def get_concrete_function(self, *args, **kwargs):
        return staging.function(self.python_function).get_concrete_function(*args, **kwargs)


# -- comparing outcomes --------------------------------------------------------------------

_ARRAYLIKE = (bool, int, float, complex, np.generic, np.ndarray)


def _kind(x):
    if isinstance(x, np.generic):
        return f"np.{x.dtype}"
    if isinstance(x, np.ndarray):
        return f"ndarray of {x.dtype}"
    return type(x).__name__


def difference(a, b, path="result", weak=None):
    """None when `b` (staged) is Python's answer `a`, else a sentence naming the first difference.
    Python numbers matched by NumPy scalars of their kind are appended to `weak` (see _weak_match)."""
    if staging.is_symbolic(b):
        return f"{path}: a symbolic tensor escaped the trace ({b!r})"
    if isinstance(a, staging.Variable) and isinstance(b, staging.Variable):
        return difference(a.numpy(), b.numpy(), f"{path}.numpy()", weak)
    if isinstance(a, _ARRAYLIKE) and isinstance(b, _ARRAYLIKE):
        ea, eb = np.asarray(a), np.asarray(b)
        if RUN.compare_dtypes and ea.dtype != eb.dtype and not _weak_match(a, eb, weak):
            return f"{path}: dtype {ea.dtype} ({_kind(a)}) vs {eb.dtype} ({_kind(b)})"
        if ea.shape != eb.shape:
            return f"{path}: shape {ea.shape} vs {eb.shape}"
        if not np.array_equal(ea, eb, equal_nan=ea.dtype.kind in "fc"):
            return f"{path}: value {_short(a, 80)} vs {_short(b, 80)}"
        return None
    if _is_namedtuple(a) and _is_namedtuple(b) and type(a) is not type(b):
        # A namedtuple class made inside the function is a new class on every call.
        if (type(a).__qualname__, a._fields) != (type(b).__qualname__, b._fields):
            return f"{path}: type {_kind(a)}{a._fields} vs {_kind(b)}{b._fields}"
        return difference(tuple(a), tuple(b), path, weak)
    if type(a) is not type(b):
        return f"{path}: type {_kind(a)} vs {_kind(b)} ({_short(a, 60)} vs {_short(b, 60)})"
    if isinstance(a, types.MethodType):
        if a.__func__ is not b.__func__:
            return f"{path}: {_short(a, 60)} vs {_short(b, 60)}"
        return difference(a.__self__, b.__self__, f"{path}.__self__", weak)
    if isinstance(a, collections.abc.Iterator):
        # Copies of the arguments: compare what is left to iterate.
        try:
            return difference(list(copy.deepcopy(a)), list(copy.deepcopy(b)), f"list({path})", weak)
        except Exception:  # noqa: BLE001 - an iterator that cannot be copied is not compared
            return None
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return f"{path}: length {len(a)} vs {len(b)} ({_short(a, 60)} vs {_short(b, 60)})"
        for i, (x, y) in enumerate(zip(a, b)):
            d = difference(x, y, f"{path}[{i}]", weak)
            if d:
                return d
        return None
    if isinstance(a, dict):
        if list(a) != list(b):
            return f"{path}: keys {list(a)} vs {list(b)}"
        for k in a:
            d = difference(a[k], b[k], f"{path}[{k!r}]", weak)
            if d:
                return d
        return None
    if a is b:
        return None
    if type(a).__eq__ is object.__eq__:
        # Plain objects (copies of an argument, say) compare by their attributes.
        if hasattr(a, "__dict__") and hasattr(b, "__dict__"):
            return difference(
                dict(sorted(vars(a).items())), dict(sorted(vars(b).items())), f"vars({path})", weak
            )
        return None
    try:
        if bool(a == b):
            return None
    except Exception:  # noqa: BLE001 - objects without a usable == differ unless identical
        pass
    return f"{path}: {_short(a, 60)} vs {_short(b, 60)}"


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


_WEAK_KINDS = {bool: "b", int: "iu", float: "f", complex: "c"}
WEAK_AGREEMENT = (
    "same value; Python's is a Python number, the staged one a NumPy scalar of that kind"
)


def _weak_match(a, staged, weak) -> bool:
    """Python's answer is a Python number (weak under NEP 50: it takes the dtype of whatever it
    meets) and the staged one a NumPy scalar of the same kind and value. A staged value cannot be
    a Python number when its type depends on data (a loop that ran zero times, a branch not
    taken), so this counts as agreement; the caller is told through `weak`."""
    kinds = _WEAK_KINDS.get(type(a))
    if kinds is None or staged.ndim != 0 or staged.dtype.kind not in kinds:
        return False
    if staged.item() != a:
        return False
    if weak is not None:
        weak.append((type(a).__name__, str(staged.dtype)))
    return True


def names_user_line(error) -> bool:
    """The error message names a file:line of the test file or of this shim (user code here)."""
    text = str(error)
    for match in re.finditer(r"([^\s:'\"<>()]+\.py):(\d+)", text):
        if match.group(1).rsplit("/", 1)[-1] in RUN.user_files:
            return True
    return False


def _clear_refusal(error) -> bool:
    return isinstance(error, staging_errors.StagingError) and names_user_line(error)


def classify(eager: Outcome, staged: Outcome):
    """(verdict, reason): verdict is agree / refused / silent / wrong / skipped."""
    if isinstance(eager.error, Unsupported) or isinstance(staged.error, Unsupported):
        return "skipped", str(eager.error or staged.error)
    if eager.timed_out and staged.timed_out:
        return "agree", "neither call finishes"
    if eager.timed_out:
        if staged.error is not None:
            verdict = "refused" if _clear_refusal(staged.error) else "wrong"
            return verdict, f"Python does not finish; staged raises {_err(staged.error)}"
        return "silent", f"Python does not finish; staged returns {_short(staged.value)}"
    if staged.timed_out:
        return "wrong", "staged call does not finish; Python " + _describe_end(eager)
    if eager.error is not None and staged.error is not None:
        if isinstance(staged.error, type(eager.error)):
            if eager.out != staged.out:
                return "silent", f"both raise {type(eager.error).__name__}; printed output differs"
            return "agree", f"both raise {type(eager.error).__name__}"
        verdict = "refused" if _clear_refusal(staged.error) else "wrong"
        return verdict, f"Python raises {_err(eager.error)}; staged raises {_err(staged.error)}"
    if eager.error is not None:
        return "silent", f"Python raises {_err(eager.error)}; staged returns {_short(staged.value)}"
    if staged.error is not None:
        verdict = "refused" if _clear_refusal(staged.error) else "wrong"
        return verdict, f"Python returns {_short(eager.value)}; staged raises {_err(staged.error)}"
    problems, weak = [], []
    d = difference(eager.value, staged.value, weak=weak)
    if d:
        problems.append(d)
    if eager.out != staged.out:
        problems.append(f"printed output {eager.out!r} vs {staged.out!r}")
    d = difference(_plain(eager.globals_changed), _plain(staged.globals_changed), "globals rebound")
    if d:
        problems.append(d)
    d = difference(eager.args_after, staged.args_after, "arguments after the call")
    if d:
        problems.append(d)
    if problems:
        return "silent", "; ".join(problems)
    if weak:
        python_type, dtype = weak[0]
        return "agree", f"{WEAK_AGREEMENT} (Python {python_type}, staged {dtype})"
    return "agree", "same result"


def _plain(changed):
    return {k: v for k, v in sorted(changed.items()) if not k.startswith("__")}


def _describe_end(outcome):
    if outcome.timed_out:
        return "does not finish"
    if outcome.error is not None:
        return f"raises {_err(outcome.error)}"
    return f"returns {_short(outcome.value)}"


def _err(error):
    text = str(error).strip().splitlines()
    first = text[0] if text else ""
    if len(first) > 220:
        first = first[:217] + "..."
    module = type(error).__module__
    prefix = "" if module == "builtins" else module.split(".")[0] + "."
    return f"{prefix}{type(error).__name__}({first!r})"


def _name_of(f):
    f = getattr(f, "python_function", f)
    return getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or type(f).__name__


def _short(x, limit=120):
    if isinstance(x, np.ndarray):
        text = f"array({x.tolist()}, {x.dtype})"
    elif isinstance(x, np.generic):
        text = f"np.{x.dtype}({x.item()!r})"
    elif isinstance(x, staging.Variable):
        text = f"Variable({_short(x.numpy())})"
    elif (
        isinstance(x, types.FunctionType)
        or isinstance(x, types.BuiltinFunctionType)
        or isinstance(x, type)
    ):
        text = getattr(x, "__qualname__", getattr(x, "__name__", repr(x)))
    elif isinstance(x, types.MethodType):
        text = x.__qualname__
    elif isinstance(x, functools.partial):
        text = f"partial({_short(x.func)})"
    elif isinstance(x, tuple) and not hasattr(x, "_fields"):
        text = "(" + ", ".join(_short(v, limit) for v in x) + ("," if len(x) == 1 else "") + ")"
    elif isinstance(x, list):
        text = "[" + ", ".join(_short(v, limit) for v in x) + "]"
    elif isinstance(x, dict):
        text = "{" + ", ".join(f"{k!r}: {_short(v, limit)}" for k, v in x.items()) + "}"
    else:
        text = repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- absl.testing.parameterized -----------------------------------------------------------

_PARAMS = "_tf_reference_parameters"


def _parameters(*params):
    def mark(method):
        setattr(method, _PARAMS, [(None, p) for p in params])
        return method

    return mark


def _named_parameters(*params):
    def mark(method):
        cases = []
        for p in params:
            if isinstance(p, collections.abc.Mapping):
                p = dict(p)
                cases.append((p.pop("testcase_name"), p))
            else:
                cases.append((p[0], tuple(p[1:])))
        setattr(method, _PARAMS, cases)
        return method

    return mark


def expand(method):
    """[(suffix, args, kwargs)] for a test method: one entry, or one per parameter set."""
    params = getattr(method, _PARAMS, None)
    if params is None:
        return [("", (), {})]
    out = []
    for name, p in params:
        if isinstance(p, collections.abc.Mapping):
            args, kwargs = (), dict(p)
        elif isinstance(p, tuple):
            args, kwargs = p, {}
        else:
            args, kwargs = (p,), {}
        label = name or ", ".join(
            [_short(a, 40) for a in args] + [f"{k}={_short(v, 40)}" for k, v in kwargs.items()]
        )
        out.append((f"({label})", args, kwargs))
    return out


class _ParameterizedTestCase(unittest.TestCase):
    pass


# -- the reference test base --------------------------------------------------------------


class TestCase(unittest.TestCase):
    """The runner interface of TensorFlow's reference base: each assert runs the function plainly
    and staged and records the comparison in the current case (nothing is asserted here; the
    runner reports)."""

    def setUp(self):
        super().setUp()
        self.autograph_opts = None
        self.all_inputs_tensors = False
        self.allow_exceptions = False

    def _as_tensors(self, args):
        out = []
        for a in args:
            if isinstance(a, (numbers.Number, list, np.ndarray)):
                out.append(constant(a))
            elif isinstance(a, dict):
                keys = tuple(a.keys())
                out.append(dict(zip(keys, self._as_tensors([a[k] for k in keys]))))
            else:
                out.append(a)
        return out

    def run_native(self, f, *args):
        outcome = _call(f, args, {}, None, RUN.timeout)
        return outcome.value, outcome.out, outcome.error

    def function(self, f, xla=False):
        return Differential(f, "xla" if xla else "function")

    def convert(self, f):
        return Differential(f, "convert")

    def assertFunctionMatchesEager(self, f, *args, xla=False):
        if self.all_inputs_tensors:
            args = tuple(self._as_tensors(args))
        run_check(f, _copy_args(args), args, "xla" if xla else "function")

    def assertFunctionMatchesEagerStatefulInput(self, f, args):
        run_check(f, tuple(args()), tuple(args()), "function")

    def assertConvertedMatchesNative(self, f, *args):
        run_check(f, _copy_args(args), args, "convert")

    def skipTest(self, reason):
        if RUN.case is not None:
            RUN.case.tf_skip = reason
        if RUN.honour_skips:
            raise unittest.SkipTest(reason)

    def assertAllEqual(self, a, b, msg=None):
        try:
            equal = bool(np.array_equal(np.asarray(a), np.asarray(b)))
        except Exception:  # noqa: BLE001 - values NumPy cannot compare are not equal
            equal = False
        if not equal:
            raise AssertionError(msg or f"not all equal: {_short(a)} vs {_short(b)}")


# -- TensorFlow's dtypes and default dtype inference ---------------------------------------

int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128
bool_ = np.bool_
string = np.str_


def _leaves(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def _default_dtype(value):
    """The dtype tf.constant gives a Python value (None: keep NumPy's)."""
    if isinstance(value, (np.ndarray, np.generic)) or staging.is_symbolic(value):
        return None
    leaves = list(_leaves(value))
    if not leaves:
        return np.float32 if isinstance(value, (list, tuple)) else None
    if any(isinstance(x, (np.ndarray, np.generic)) or staging.is_symbolic(x) for x in leaves):
        return None
    if all(isinstance(x, bool) for x in leaves):
        return np.bool_
    if any(isinstance(x, complex) for x in leaves):
        return np.complex128
    if any(isinstance(x, float) for x in leaves):
        return np.float32
    if all(isinstance(x, int) for x in leaves):
        return np.int32 if all(-(2**31) <= x < 2**31 for x in leaves) else np.int64
    return None


# -- the tf.* API ---------------------------------------------------------------------------
# Functions marked do_not_convert wrap this project's staging API. The plain NumPy wrappers are
# left convertible: staging treats them as it would a user's own NumPy helper.


@autograph.do_not_convert
def constant(value, dtype=None, shape=None, name=None):
    if dtype is None:
        dtype = _default_dtype(value)
    result = staging.constant(value, dtype)
    if shape is not None:
        result = np.broadcast_to(result, tuple(shape))
    return result


@autograph.do_not_convert
def Variable(initial_value, dtype=None, name=None, trainable=True, **unused):  # noqa: N802
    if callable(initial_value):
        initial_value = initial_value()
    if dtype is None:
        dtype = _default_dtype(initial_value)
    return staging.Variable(initial_value, dtype=dtype, name=name)


@autograph.do_not_convert
def TensorArray(
    dtype,
    size=0,
    dynamic_size=None,
    clear_after_read=None,
    tensor_array_name=None,  # noqa: N802
    handle=None,
    flow=None,
    infer_shape=True,
    element_shape=None,
    **unused,
):
    return staging.TensorArray(
        dtype, size=size, dynamic_size=bool(dynamic_size), element_shape=element_shape
    )


@autograph.do_not_convert
def tf_print(*inputs, output_stream=None, summarize=None, sep=" ", end="\n", name=None):
    return staging.print(*inputs, sep=sep, end=end)


@autograph.do_not_convert
def cond(pred, true_fn=None, false_fn=None, name=None):
    return staging.cond(pred, true_fn, false_fn)


@autograph.do_not_convert
def while_loop(
    cond,
    body,
    loop_vars,
    shape_invariants=None,
    parallel_iterations=10,
    back_prop=True,
    swap_memory=False,
    maximum_iterations=None,
    name=None,
):
    return staging.while_loop(cond, body, loop_vars, maximum_iterations=maximum_iterations)


@autograph.do_not_convert
def tf_function(
    func=None,
    input_signature=None,
    autograph=True,
    jit_compile=None,
    reduce_retracing=False,
    experimental_compile=None,
    experimental_autograph_options=None,
    **unused,
):
    if func is None:
        return lambda f: tf_function(
            f, jit_compile=jit_compile, experimental_compile=experimental_compile
        )
    return Differential(func, "xla" if (jit_compile or experimental_compile) else "function")


def identity(x, name=None):
    return np.copy(x)


def stack(values, axis=0, name=None):
    return np.stack(values, axis=axis)


def unstack(value, num=None, axis=0, name=None):
    return [value[i] for i in range(np.shape(value)[0])]


def size(x, out_type=None, name=None):
    return np.size(x)


def reduce_sum(x, axis=None, keepdims=False, name=None):
    """tf.reduce_sum keeps the dtype of its input (NumPy's sum widens small ints to int64); a
    Python value is first a tensor of TensorFlow's default dtype."""
    dtype = _default_dtype(x) or getattr(x, "dtype", None)
    if dtype is not None and np.dtype(dtype) == np.bool_:
        dtype = None
    return np.sum(x, axis=axis, keepdims=keepdims, dtype=dtype)


def greater(x, y, name=None):
    return np.greater(x, y)


def tf_abs(x, name=None):
    return np.abs(x)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=np.float32, name=None):
    return np.eye(num_rows, num_columns, dtype=dtype)


def _python_type(value):
    """The Python number type `value` is or stands for: a weakly typed symbolic scalar is the
    Python number it was made from (a literal, a counter started at 0), so TensorFlow would see
    that Python number there."""
    if staging.is_symbolic(value):
        return value.type.python_type if value.type.weak else None
    return type(value)


def _is_python_number(value):
    return _python_type(value) in (bool, int, float, complex)


def tf_range(start, limit=None, delta=1, dtype=None, name="range"):
    if limit is None:
        start, limit = 0, start
    if dtype is None:  # TensorFlow: the dtype of a tensor bound, else int32 for Python ints
        for bound in (start, limit, delta):
            if hasattr(bound, "dtype") and not _is_python_number(bound):
                dtype = bound.dtype
                break
        else:
            if all(_python_type(b) is int for b in (start, limit, delta)):
                dtype = np.int32
    return np.arange(start, limit, delta, dtype=dtype)


def zeros(shape, dtype=np.float32, name=None):
    return np.zeros(shape, dtype=dtype)


def ones(shape, dtype=np.float32, name=None):
    return np.ones(shape, dtype=dtype)


def _as_tensor_like(value, dtype):
    """A nested list as an array of `dtype` (TensorFlow converts a list joined to tensors to
    their dtype; NumPy would make it int64 / float64)."""
    if isinstance(value, (list, tuple)):
        return np.stack([_as_tensor_like(v, dtype) for v in value]).astype(dtype)
    return value


def concat(values, axis, name="concat"):
    dtype = None
    for v in values:
        if hasattr(v, "dtype"):
            dtype = v.dtype
            break
    parts = [
        v if hasattr(v, "dtype") or dtype is None else _as_tensor_like(v, dtype) for v in values
    ]
    return np.concatenate(parts, axis=axis)


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    return np.pad(tensor, paddings, constant_values=constant_values)


def reshape(tensor, shape, name=None):
    return np.reshape(tensor, shape)


def cast(x, dtype, name=None):
    if staging.is_symbolic(x):
        return x.astype(dtype)
    return np.asarray(x).astype(dtype)[()]


def random_uniform(shape, minval=0, maxval=None, dtype=np.float32, seed=None, name=None):
    size = tuple(shape) if len(shape) else None
    if np.issubdtype(dtype, np.integer):
        return np.random.randint(minval, maxval, size=size, dtype=dtype)
    if maxval is None:
        maxval = 1
    return np.random.uniform(minval, maxval, size=size).astype(dtype)


@autograph.do_not_convert
def assert_true(condition, message=None, summarize=None, name=None):
    return staging.assert_true(condition, message)


def assert_equal(x, y, message=None, summarize=None, name=None):
    return assert_true(np.all(np.equal(x, y)), message)


def assert_less(x, y, message=None, summarize=None, name=None):
    return assert_true(np.all(np.less(x, y)), message)


def assert_greater(x, y, message=None, summarize=None, name=None):
    return assert_true(np.all(np.greater(x, y)), message)


class name_scope:  # noqa: N801 - mirrors tf.name_scope
    """tf.name_scope: names graph nodes in TensorFlow; nothing to do over NumPy."""

    def __init__(self, name, *unused):
        self.name = name

    def __enter__(self):
        return self.name

    def __exit__(self, *exc):
        return False


class TensorShape:
    """tf.TensorShape: `.shape` is the tuple staging's shape invariants read (None: unknown rank)."""

    def __init__(self, dims):
        self.dims = None if dims is None else tuple(dims)

    @property
    def shape(self):
        return self.dims

    def __repr__(self):
        return f"TensorShape({list(self.dims) if self.dims is not None else None})"


@autograph.do_not_convert
def trace(*args):
    """tf.autograph.trace logs its arguments at trace time; a no-op here (no eager meaning)."""
    return None


@autograph.do_not_convert
def set_element_type(entity, dtype, shape=None):
    """A TensorFlow list annotation; NumPy lists need none."""
    return None


def list_stack(values, strict=True):
    return np.stack(values)


@autograph.do_not_convert
def to_graph(f, recursive=True, experimental_optional_features=None):
    return autograph.convert(f)


class _Stub:
    """A TensorFlow namespace with no NumPy meaning: touching it is fine, calling into it is not."""

    def __init__(self, path, kind):
        self._path, self._kind = path, kind

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Stub(f"{self._path}.{name}", self._kind)

    def __call__(self, *args, **kwargs):
        raise Unsupported(self._kind, self._path)

    def __repr__(self):
        return self._path


class InvalidArgumentError(Exception):
    """tf.errors.InvalidArgumentError (nothing here raises it)."""


class OutOfRangeError(Exception):
    """tf.errors.OutOfRangeError (nothing here raises it)."""


class _TfTestCase(unittest.TestCase):
    assertAllEqual = TestCase.assertAllEqual


def _namespace(name, **members):
    module = types.ModuleType(name)
    module.__dict__.update(members)
    return module


def build_tensorflow():
    """The fake `tensorflow` module (also `tensorflow.compat.v1`)."""
    features = types.SimpleNamespace(
        ALL="ALL",
        ASSERT_STATEMENTS="ASSERT_STATEMENTS",
        AUTO_CONTROL_DEPS="AUTO_CONTROL_DEPS",
        BUILTIN_FUNCTIONS="BUILTIN_FUNCTIONS",
        EQUALITY_OPERATORS="EQUALITY_OPERATORS",
        LISTS="LISTS",
        NAME_SCOPES="NAME_SCOPES",
    )
    tf_autograph = _namespace(
        "tensorflow.autograph",
        experimental=types.SimpleNamespace(
            Feature=features,
            set_loop_options=autograph.set_loop_options,
            do_not_convert=autograph.do_not_convert,
        ),
        trace=trace,
        to_graph=to_graph,
        to_code=autograph.to_code,
        set_verbosity=lambda *a, **k: None,
        do_not_convert=autograph.do_not_convert,
    )
    math_ns = types.SimpleNamespace(abs=tf_abs, greater=greater, reduce_sum=reduce_sum)
    tf = _namespace(
        "tensorflow",
        # dtypes
        int8=int8,
        int16=int16,
        int32=int32,
        int64=int64,
        uint8=uint8,
        uint16=uint16,
        uint32=uint32,
        uint64=uint64,
        float16=float16,
        float32=float32,
        float64=float64,
        complex64=complex64,
        complex128=complex128,
        bool=bool_,
        string=string,
        newaxis=None,
        # staging
        function=tf_function,
        constant=constant,
        Variable=Variable,
        TensorArray=TensorArray,
        print=tf_print,
        cond=cond,
        while_loop=while_loop,
        Tensor=staging.Tensor,
        TensorSpec=staging.TensorSpec,
        TensorShape=TensorShape,
        name_scope=name_scope,
        autograph=tf_autograph,
        # ops
        identity=identity,
        stack=stack,
        unstack=unstack,
        size=size,
        reduce_sum=reduce_sum,
        greater=greater,
        abs=tf_abs,
        eye=eye,
        range=tf_range,
        zeros=zeros,
        ones=ones,
        concat=concat,
        pad=pad,
        reshape=reshape,
        cast=cast,
        math=math_ns,
        random=types.SimpleNamespace(uniform=random_uniform),
        debugging=types.SimpleNamespace(
            Assert=assert_true,
            assert_equal=assert_equal,
            assert_less=assert_less,
            assert_greater=assert_greater,
        ),
        errors=types.SimpleNamespace(
            InvalidArgumentError=InvalidArgumentError,
            OutOfRangeError=OutOfRangeError,
            OpError=Exception,
        ),
        test=types.SimpleNamespace(TestCase=_TfTestCase, main=unittest.main),
        # no NumPy meaning
        data=_Stub("tf.data", "tf.data"),
        distribute=_Stub("tf.distribute", "distribution strategy"),
        config=_Stub("tf.config", "distribution strategy"),
        SparseTensor=_Stub("tf.SparseTensor", "TF-only API (sparse tensors)"),
        sparse=_Stub("tf.sparse", "TF-only API (sparse tensors)"),
        ragged=_Stub("tf.ragged", "TF-only API (ragged tensors)"),
    )
    tf.compat = _namespace("tensorflow.compat", v1=tf, v2=tf)
    return tf


def install():
    """Puts the fake modules under the names the reference tests import."""
    tf = build_tensorflow()
    base = _namespace("tensorflow.python.autograph.tests.reference_test_base", TestCase=TestCase)
    tests_pkg = _namespace("tensorflow.python.autograph.tests", reference_test_base=base)
    ag = _namespace(
        "tensorflow.python.autograph",
        stack=list_stack,
        set_element_type=set_element_type,
        tests=tests_pkg,
    )
    python = _namespace("tensorflow.python", autograph=ag)
    tf.python = python
    parameterized = _namespace(
        "absl.testing.parameterized",
        parameters=_parameters,
        named_parameters=_named_parameters,
        TestCase=_ParameterizedTestCase,
    )
    testing = _namespace("absl.testing", parameterized=parameterized)
    absl = _namespace("absl", testing=testing)
    for module in (tf, tf.compat, python, ag, tests_pkg, base, absl, testing, parameterized):
        for p in (module.__name__,):
            sys.modules[p] = module
    sys.modules["tensorflow.compat.v1"] = tf
    sys.modules["tensorflow.compat.v2"] = tf
    return tf


__all__ = [
    "Case",
    "Check",
    "RUN",
    "TestCase",
    "Unsupported",
    "build_tensorflow",
    "classify",
    "difference",
    "expand",
    "install",
    "run_check",
]
