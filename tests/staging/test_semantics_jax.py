"""A representative set of the staging semantics tests, run on both backends: the interpreter
and the JAX backend (every staging.function the test creates compiled with jit_compile=True,
see the `backend` fixture in conftest.py). Control flow, loops, dtypes and weak numbers,
Variables, staged print / assert / py_function, retracing and trace keys.

Both backends must agree: each test checks its results against eager Python or fixed values.
A test whose graph the JAX backend refuses is listed in REFUSED and must fail with the
documented LoweringError naming the op and the test's own file:line (no silent fallback). A
test that checks a documented difference between the backends (docs/jax.md: float results
within a tolerance, errors XLA defines as values) is listed in DIFFERENT and runs on the
interpreter only, as does a test of the interpreter's generated code (INTERPRETER_ONLY). The jax
runs skip when jax is not installed.
"""

from __future__ import annotations

import functools
import inspect
import sys

import pytest
import test_control_flow
import test_debugging
import test_tensor_array
import test_trace_keys
import test_variables
import test_weak_types

MODULES = (test_control_flow, test_debugging, test_tensor_array, test_trace_keys, test_variables)

# from test_weak_types, the tests that are not sweeps over every operator and dtype (those
# compile hundreds of functions; the golden corpus covers the operators on both backends)
WEAK_TYPES = (
    "test_unary_operators_on_python_numbers",
    "test_a_counter_that_starts_as_a_python_int_keeps_the_arrays_dtype",
    "test_python_counters_come_back_as_python_numbers",
    "test_len_and_unknown_dims_are_python_ints",
    "test_joining_python_numbers_follows_python_and_nep50",
)

# test -> the op the JAX backend refuses (the LoweringError must name it and the test's line)
REFUSED = {
    "test_control_flow.test_cond_joins_shapes_and_weak_scalars": "cond",  # shapes (2,) / (3,)
    "test_control_flow.test_loop_var_shape_change_is_generalised": "while_loop",  # grows each step
    "test_debugging.test_py_function_several_outputs_and_specs": "py_function",  # Tout f64[?]
    # a list grown in a staged loop with no maximum_iterations (test_jax_lists.py has bounded ones)
    "test_tensor_array.test_staged_in_loop_matches_eager": "while_loop",
    "test_tensor_array.test_returned_tensor_array_is_a_python_list": "while_loop",
    # a value of kinds of different dtypes depending on the path (docs/jax.md: one XLA value has
    # one dtype; `float | f64[]` and the like lower, with a kind tag)
    "test_control_flow.test_cond_of_branches_of_two_dtypes_gives_the_branch_takens_value": "cond",
    "test_control_flow.test_a_loop_variable_that_changes_dtype_is_what_the_last_iteration_made_it": "while_loop",  # i64[] | f64[]
    "test_control_flow.test_a_nested_loop_variable_that_changes_dtype_is_what_the_last_iteration_made_it": "while_loop",  # i32[] | f64[]
    "test_control_flow.test_python_number_loop_var_may_widen": "while_loop",  # int | float
    "test_weak_types.test_a_counter_that_starts_as_a_python_int_keeps_the_arrays_dtype": "while_loop",  # int | i8[]
    "test_weak_types.test_joining_python_numbers_follows_python_and_nep50": "cond",  # int | float
}

# test -> the documented difference it checks (docs/jax.md)
DIFFERENT = {
    "test_tensor_array.test_staged_out_of_range_write_names_user_line": "an out-of-range index is clamped by XLA, not an IndexError",
}


# test -> what of the interpreter's own code it reads (runs on the interpreter only)
INTERPRETER_ONLY = {
    "test_variables.test_a_graph_that_writes_variables_reads_and_writes_them_inline_under_one_lock": "the Python source the interpreter generates (its lock and inline updates)",
}


def _selected():
    for module in MODULES + (test_weak_types,):
        for name, func in sorted(vars(module).items()):
            if not (name.startswith("test_") and inspect.isfunction(func)):
                continue
            if module is test_weak_types and name not in WEAK_TYPES:
                continue
            yield f"{module.__name__}.{name}", func


def _on_both_backends(key, func):
    signature = inspect.signature(func)
    params = list(signature.parameters.values())

    @functools.wraps(func)
    def test(backend, *args, **kwargs):
        if backend == "jax" and key in DIFFERENT:
            pytest.skip(f"a documented difference of the JAX backend: {DIFFERENT[key]}")
        if backend == "jax" and key in INTERPRETER_ONLY:
            pytest.skip(f"reads {INTERPRETER_ONLY[key]}")
        if backend == "jax" and key in REFUSED:
            from runtime.jax_lowering import LoweringError

            module = key.split(".")[0]
            with pytest.raises(
                LoweringError,
                match=rf"{module}\.py:\d+: cannot compile .* "
                rf"\(op '{REFUSED[key]}'\) with jit_compile=True",
            ):
                func(*args, **kwargs)
            return
        func(*args, **kwargs)

    backend_param = inspect.Parameter("backend", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    test.__signature__ = signature.replace(parameters=[backend_param] + params)
    return test


_here = sys.modules[__name__]
for _key, _func in _selected():
    setattr(
        _here,
        "test_" + _key.replace("test_", "", 1).replace(".", "__"),
        _on_both_backends(_key, _func),
    )


def test_every_listed_test_exists():
    known = dict(_selected())
    assert set(REFUSED) <= set(known) and set(DIFFERENT) <= set(known)
    assert set(INTERPRETER_ONLY) <= set(known)
    assert {f"test_weak_types.{n}" for n in WEAK_TYPES} <= set(known)
