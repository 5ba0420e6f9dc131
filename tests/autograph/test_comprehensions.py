"""Comprehensions and generator expressions read whole are converted into `for` / `if`
statements: over staged values they are staged like the equivalent `for` loop, with eager's
values, dtypes, Python types, printed text and exceptions; over Python values they run as
Python. Generator expressions whose consumer may stop early or read lazily stay generators."""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest

import autograph
import staging
from staging import errors

F64_ANY = staging.TensorSpec([None], np.float64)


def strictly_same(staged, eager, path="result"):
    """Same structure, Python types, dtypes, shapes and bits (NaN where NaN)."""
    assert type(staged) is type(eager), f"{path}: {type(staged)} vs {type(eager)}"
    if isinstance(eager, (list, tuple)):
        assert len(staged) == len(eager), f"{path}: {staged!r} vs {eager!r}"
        for i, (a, b) in enumerate(zip(staged, eager)):
            strictly_same(a, b, f"{path}[{i}]")
    elif isinstance(eager, dict):
        assert list(staged) == list(eager), f"{path}: {staged!r} vs {eager!r}"
        for k in eager:
            strictly_same(staged[k], eager[k], f"{path}[{k!r}]")
    elif isinstance(eager, (set, frozenset)):
        assert staged == eager, f"{path}: {staged!r} vs {eager!r}"
    elif isinstance(eager, (np.ndarray, np.generic)):
        assert staged.dtype == eager.dtype and np.shape(staged) == np.shape(eager), path
        np.testing.assert_array_equal(staged, eager, err_msg=path)
    elif isinstance(eager, float) and math.isnan(eager):
        assert math.isnan(staged), path
    else:
        assert staged == eager, f"{path}: {staged!r} vs {eager!r}"


def outcome(fn, args, capsys):
    try:
        value = fn(*args)
    except Exception as error:  # noqa: BLE001 - the outcome is compared
        return "raises", error, capsys.readouterr().out
    return "returns", value, capsys.readouterr().out


def same_as_eager(capsys, fn, inputs, signatures=(None,)):
    """fn staged (with the arguments' own types, and with each of `signatures`) gives what fn
    gives on each argument tuple: strictly the same value, the same printed text, or an error
    of the same type."""
    for signature in signatures:
        staged = staging.function(fn, input_signature=signature)
        for args in inputs:
            eager_kind, eager, eager_out = outcome(fn, args, capsys)
            staged_kind, value, staged_out = outcome(staged, args, capsys)
            where = f"{fn.__name__}{args} (signature {signature})"
            assert staged_kind == eager_kind, f"{where}: eager {eager!r}, staged {value!r}"
            if eager_kind == "raises":
                assert type(value) is type(eager) or isinstance(value, type(eager)), where
            else:
                strictly_same(value, eager, where)
            assert staged_out == eager_out, f"{where}: printed {staged_out!r} vs {eager_out!r}"


def line_of(func, offset):
    return f"{__file__}:{func.__code__.co_firstlineno + offset}:"


VECTORS = [
    (np.array([1.0, -2.0, 3.0, 0.0]),),
    (np.array([-1.0, -2.0]),),
    (np.array([np.nan, 2.0, -np.inf]),),
    (np.zeros(0),),
]
INTS = [(np.array([3, -1, 0, 7]),), (np.zeros(0, dtype=np.int64),)]


# -- list comprehensions ----------------------------------------------------------------------


def doubled(x):
    return [v * 2.0 for v in x]


def positives(x):
    return [v for v in x if v > 0]


def indices_of_positives(x):
    return [i for i, v in enumerate(x) if v > 0]


def python_numbers_of_positives(x):
    return [float(v) for v in x if v > 0]


def several_conditions(x):
    return [v * 10 for v in x if v > -3 if v < 3]


def items_of_a_range(d):
    return [i * 2 for i in range(d)]


def items_and_rows(m):
    return [v for row in m for v in row if v > 0]


@pytest.mark.parametrize(
    "fn", [doubled, positives, indices_of_positives, python_numbers_of_positives]
)
def test_list_comprehension_over_a_vector(fn, capsys):
    same_as_eager(capsys, fn, VECTORS, signatures=(None, [F64_ANY]))


def test_list_comprehension_with_several_conditions(capsys):
    same_as_eager(capsys, several_conditions, INTS)


@pytest.mark.parametrize("d", [4, 1, 0, -2])
def test_list_comprehension_over_a_range_of_a_symbolic_bound(d, capsys):
    same_as_eager(capsys, items_of_a_range, [(np.int64(d),)])
    assert items_of_a_range(np.int64(d)) == staging.function(items_of_a_range)(np.int64(d))


def test_list_comprehension_over_rows_and_their_items(capsys):
    m = np.array([[1.0, -1.0, 2.0], [-3.0, 0.5, np.nan]])
    same_as_eager(
        capsys,
        items_and_rows,
        [(m,), (np.zeros((0, 3)),), (np.zeros((2, 0)),)],
        signatures=(None, [staging.TensorSpec([None, None], np.float64)]),
    )


def test_condition_on_a_staged_value_is_one_staged_loop():
    graph = str(staging.function(positives).get_concrete_function(np.ones(500)).graph)
    assert graph.count("while_loop") == 1 and graph.count("cond") <= 2


def test_without_condition_a_known_length_keeps_its_items_while_tracing():
    def unpacked(x):
        a, b = [v * 2.0 for v in x]  # a list of known length, as before the conversion
        return b, a

    x = np.array([1.0, 2.0])
    assert staging.function(unpacked)(x) == unpacked(x)


def test_over_an_unknown_length_without_condition_is_a_staged_loop(capsys):
    same_as_eager(capsys, doubled, VECTORS, signatures=([F64_ANY],))
    graph = str(staging.function(doubled, input_signature=[F64_ANY]).get_concrete_function().graph)
    assert "while_loop" in graph


# -- generator expressions read whole -----------------------------------------------------------


def count_positives(x):
    return sum(1 for v in x if v > 0)


def total_of_positives(x):
    return sum((v for v in x if v > 0), 0.5)


def total_of_squares(x):
    return sum(v * v for v in x)


def largest_positive(x):
    return max(v for v in x if v > 0)


def sorted_negated(x):
    return sorted((-v for v in x if v == v), reverse=True)


def as_list(x):
    return list(v + 1 for v in x if v < 2)


def as_tuple(x):
    return tuple(v + 1 for v in x)


@pytest.mark.parametrize(
    "fn",
    [
        count_positives,
        total_of_positives,
        total_of_squares,
        largest_positive,
        sorted_negated,
        as_list,
    ],
)
def test_generator_expression_read_whole(fn, capsys):
    same_as_eager(capsys, fn, VECTORS, signatures=(None, [F64_ANY]))


def test_a_tuple_of_a_known_number_of_items(capsys):
    same_as_eager(capsys, as_tuple, VECTORS)


def test_a_tuple_of_items_a_staged_loop_made_is_refused_naming_the_line():
    def as_tuple_of_positives(x):
        return tuple(v for v in x if v > 0)

    with pytest.raises(errors.SymbolicValueError) as info:
        staging.function(as_tuple_of_positives)(np.ones(2))
    message = str(info.value)
    assert message.startswith(line_of(as_tuple_of_positives, 1)), message
    assert "iterating a list built by a staged loop" in message


def test_count_is_a_python_int():
    for x in (np.array([1.0, -2.0, 3.0]), np.zeros(0)):
        result = staging.function(count_positives)(x)
        assert type(result) is int and result == count_positives(x)


def test_sum_of_a_generator_of_python_numbers_over_a_staged_list(capsys):
    def total(n):
        values = []
        for i in range(n):
            values.append(i * 0.5)
        return sum(abs(v) for v in values), max(abs(v - 1) for v in values)

    same_as_eager(capsys, total, [(np.int64(4),), (np.int64(1),), (np.int64(0),)])


def test_join_of_formatted_items(capsys):
    def text(x):
        return ", ".join(f"{v:.1f}" for v in x)

    same_as_eager(capsys, text, [(np.array([1.0, 2.5]),), (np.zeros(0),)])


# -- any / all: the first deciding item ends the loop -----------------------------------------------


def any_positive(x):
    return any(v > 0 for v in x)


def all_positive(x):
    return all(v > 0 for v in x)


def any_item(x):
    return any(v for v in x)


@pytest.mark.parametrize("fn", [any_positive, all_positive, any_item])
def test_any_and_all(fn, capsys):
    same_as_eager(capsys, fn, VECTORS, signatures=(None, [F64_ANY]))


def any_inverse_positive(x):
    return any(1 // int(v) > 0 for v in x)  # 1 // 0 raises ZeroDivisionError


def all_inverse_positive(x):
    return all(1 // int(v) > 0 for v in x)


@pytest.mark.parametrize("fn", [any_inverse_positive, all_inverse_positive])
def test_items_after_the_deciding_one_are_not_computed(fn, capsys):
    inputs = [
        (np.array([1.0, 0.0]),),  # any: decided by the first item, the zero is never divided
        (np.array([-1.0, 0.0]),),  # all: decided by the first item
        (np.array([0.0, 1.0]),),  # the first item raises, as eagerly
        (np.array([2.0, 3.0]),),
    ]
    same_as_eager(capsys, fn, inputs, signatures=(None, [F64_ANY]))


def any_inverse_positive_item(m):
    return any(1 // int(v) > 0 for row in m for v in row)  # two clauses: a `return` ends both


def test_items_after_the_deciding_one_are_not_computed_in_nested_clauses(capsys):
    inputs = [
        (np.array([[1.0, 0.0], [0.0, 0.0]]),),
        (np.array([[-1.0, 0.0], [0.0, 0.0]]),),
        (np.array([[-1.0, -2.0], [-3.0, 2.0]]),),
        (np.zeros((0, 2)),),
    ]
    same_as_eager(
        capsys,
        any_inverse_positive_item,
        inputs,
        signatures=(None, [staging.TensorSpec([None, 2], np.float64)]),
    )


def shown(v):
    print("item", v)
    return v


def any_shown_positive(x):
    return any(shown(v) > 0 for v in x)


def test_printed_items_stop_at_the_deciding_one(capsys):
    same_as_eager(capsys, any_shown_positive, VECTORS, signatures=(None, [F64_ANY]))


# -- nested comprehensions ------------------------------------------------------------------------


def outer_products(x, y):
    return [[a * b for b in y] for a in x]


def count_positive_items(m):
    return sum(sum(1 for v in row if v > 0) for row in m)


def rows_with_a_positive(m):
    return [i for i, row in enumerate(m) if any(v > 0 for v in row)]


def test_nested_comprehensions(capsys):
    same_as_eager(
        capsys,
        outer_products,
        [(np.array([1.0, 2.0]), np.array([3.0, -1.0, 0.5])), (np.zeros(0), np.ones(2))],
    )
    m = np.array([[1.0, -1.0], [-2.0, -3.0], [np.nan, 4.0]])
    for fn in (count_positive_items, rows_with_a_positive):
        same_as_eager(
            capsys,
            fn,
            [(m,), (np.zeros((0, 2)),), (-m,)],
            signatures=(None, [staging.TensorSpec([None, 2], np.float64)]),
        )


def test_lists_as_items_of_a_staged_loop_are_refused_naming_the_line():
    def rows_of_positives(x, y):
        return [[a * b for b in y] for a in x if a > 0]

    assert rows_of_positives(np.array([1.0, -1.0]), np.ones(2)) == [[1.0, 1.0]]
    with pytest.raises(errors.UnsupportedOpError) as info:
        staging.function(rows_of_positives)(np.array([1.0, -1.0]), np.ones(2))
    assert str(info.value).startswith(line_of(rows_of_positives, 1)), str(info.value)
    assert "cannot take a list" in str(info.value)


def test_a_comprehension_in_the_condition_of_another(capsys):
    def below_all_others(x):
        return [v for v in x if all(v <= w for w in x)]

    same_as_eager(capsys, below_all_others, VECTORS[:2] + VECTORS[3:], signatures=([F64_ANY],))


# -- Python values: run as Python ---------------------------------------------------------------


def python_only(n):
    squares = [i * i for i in range(n)]
    odd = {i for i in squares if i % 2}
    index = {str(i): i for i in squares}
    pairs = [(a, b) for a in range(2) for b in "xy"]
    return squares, sorted(odd), index, pairs, sum(i for i in squares), any(i > 8 for i in squares)


def test_python_only_comprehensions_give_python_values(capsys):
    converted = autograph.convert(python_only)
    for n in (0, 1, 5):
        strictly_same(converted(n), python_only(n))
        strictly_same(staging.function(python_only)(n), python_only(n))


def test_comprehension_over_python_values_with_a_staged_condition(capsys):
    def both_signs(x):
        return sum(1.0 for v in [x, -x] if v > 0), [v for v in [x, -x] if v > 0]

    same_as_eager(capsys, both_signs, [(np.float64(2.0),), (np.float64(0.0),)])


# -- scoping ----------------------------------------------------------------------------------


def test_targets_do_not_leak(capsys):
    def leak(x):
        v = "outer"
        i = -1
        doubled = [v * 2 for v in x]
        pairs = [(i, w) for i, w in enumerate(x) if w > 0]
        return v, i, doubled, pairs

    same_as_eager(capsys, leak, VECTORS[:2], signatures=(None, [F64_ANY]))


def test_names_of_the_function_are_read(capsys):
    def scaled(x, k):
        offset = k + 1
        return [v * k + offset for v in x if v > k]

    same_as_eager(capsys, scaled, [(np.array([1.0, 3.0]), 2.0), (np.zeros(0), 1.0)])


def test_first_iterable_is_evaluated_once_in_the_enclosing_scope(capsys):
    def rows(x):
        print("iterable")
        return x

    def f(x):
        x = [x for x in rows(x)]  # the first `x` is the argument, the others the target
        return x

    same_as_eager(capsys, f, VECTORS[:1], signatures=(None, [F64_ANY]))


def test_later_iterables_are_evaluated_per_item(capsys):
    def triangle(n):
        return [(i, j) for i in range(n) for j in range(i)]

    same_as_eager(capsys, triangle, [(np.int64(4),), (np.int64(0),), (4,)])


def test_lambdas_made_in_a_comprehension_share_its_target():
    def late(n):
        functions = [lambda: i for i in range(n)]
        return [f() for f in functions]

    assert autograph.convert(late)(3) == late(3) == [2, 2, 2]


def test_comprehension_in_a_lambda(capsys):
    def by_positive_total(rows):
        return sorted(rows, key=lambda r: sum(v for v in r if v > 0))

    rows = [np.array([1.0, 2.0]), np.array([-1.0, 5.0]), np.array([0.5, 0.5])]
    converted = autograph.convert(by_positive_total)
    strictly_same(converted(rows), by_positive_total(rows))


def test_comprehension_in_the_test_of_a_while(capsys):
    def raise_until_none_above(x, k):
        steps = 0
        while any(v > k for v in x):
            k = k + 1.0
            steps += 1
        return k, steps

    same_as_eager(
        capsys,
        raise_until_none_above,
        [(np.array([1.0, 3.5]), np.float64(0.0)), (np.zeros(0), np.float64(2.0))],
        signatures=(None, [F64_ANY, staging.TensorSpec([], np.float64)]),
    )
    assert raise_until_none_above([1.0, 3.5], 0.0) == (4.0, 4)
    assert autograph.convert(raise_until_none_above)([1.0, 3.5], 0.0) == (4.0, 4)


def test_comprehension_in_a_staged_loop_reads_the_loop_variables(capsys):
    def windows(x, n):
        out = []
        for i in range(n):
            out.append(sum(v * i for v in x if v > i))
        return out

    same_as_eager(capsys, windows, [(np.array([1.0, 3.0, 2.0]), np.int64(3))])


def test_comprehension_after_a_staged_if_reads_its_result(capsys):
    def after(x, flag):
        k = 1.0
        if flag > 0:
            k = 2.0
        return [v * k for v in x]

    same_as_eager(capsys, after, [(np.array([1.0, 2.0]), np.int64(1)), (np.ones(2), np.int64(0))])


def test_an_error_in_an_item_keeps_its_type(capsys):
    def bad(x):
        return [v.no_such_attribute for v in x]

    def wrong(x):
        return [v + "text" for v in x if v > 0]

    for fn in (bad, wrong):
        with pytest.raises((AttributeError, TypeError)) as eager:
            fn(np.ones(2))
        with pytest.raises(type(eager.value)) as staged:
            staging.function(fn)(np.ones(2))
        assert not isinstance(staged.value, errors.SymbolicValueError) or isinstance(
            eager.value, errors.SymbolicValueError
        )


def test_a_run_time_error_in_an_item_names_the_line():
    def inverses(x):
        return [1 // int(v) for v in x if v < 5]

    staged = staging.function(inverses, input_signature=[F64_ANY])
    assert staged(np.array([1.0, 2.0])) == inverses(np.array([1.0, 2.0]))
    with pytest.raises(ZeroDivisionError) as info:
        staged(np.array([1.0, 0.0]))
    assert line_of(inverses, 1) in "".join(getattr(info.value, "__notes__", [])) + str(info.value)


# -- set and dict comprehensions ---------------------------------------------------------------


def test_set_and_dict_comprehensions_of_python_keys(capsys):
    def keyed(x):
        by_index = {i: v * 2 for i, v in enumerate(x)}
        names = {f"k{i}" for i in range(len(x))}
        return by_index, sorted(names)

    same_as_eager(capsys, keyed, [(np.array([1.0, -2.0]),), (np.zeros(0),)])


def set_of_staged_items(x):
    return {i for i, v in enumerate(x) if v > 0}


def dict_of_staged_items(x):
    return {i: v for i, v in enumerate(x) if v > 0}


@pytest.mark.parametrize("fn", [set_of_staged_items, dict_of_staged_items])
def test_set_and_dict_of_staged_items_are_made_when_the_graph_runs(capsys, fn):
    inputs = [(np.array([1.0, -1.0]),), (np.zeros(0),), (np.array([2.0, 3.0, 2.0]),)]
    same_as_eager(capsys, fn, inputs)


def test_a_set_of_symbolic_values_is_made_when_the_graph_runs(capsys):
    def signs(x):
        return {v > 0 for v in x}

    same_as_eager(capsys, signs, [(np.array([1.0, -1.0]),), (np.array([2.0]),)])


def test_a_frozenset_of_symbolic_values_is_refused_naming_the_line():
    def signs(x):
        return frozenset(v > 0 for v in x)

    with pytest.raises(errors.SymbolicValueError) as info:
        staging.function(signs)(np.array([1.0, -1.0]))
    assert str(info.value).startswith(line_of(signs, 1))
    assert "hash()" in str(info.value)


# -- generator expressions left as they are ------------------------------------------------------


def first_positive(x):
    return next(v for v in x if v > 0)  # next() reads one item: a lazy generator


def largest_by_size(x):
    return max((v for v in [x, -x] if v > 0), key=abs)  # key= runs between the items


def kept_for_later(x):
    items = (v * 2.0 for v in x)
    return list(items)


@pytest.mark.parametrize("fn", [first_positive, largest_by_size])
def test_lazily_read_generator_expressions_stay_generators(fn):
    with pytest.raises(errors.SymbolicValueError) as info:
        staging.function(fn)(np.array([-1.0, 2.0]) if fn is first_positive else np.float64(1.0))
    message = str(info.value)
    assert message.startswith(line_of(fn, 1)), message
    assert "This is inside a generator expression, which autograph does not convert" in message
    assert "(v for v in" in autograph.to_code(fn)


def test_a_generator_kept_in_a_name_iterates_in_python(capsys):
    same_as_eager(capsys, kept_for_later, VECTORS)


def test_a_local_function_named_like_a_builtin_is_not_a_known_consumer():
    def f(x):
        sum = list  # noqa: A001 - the name `sum` is the function's own
        return sum(v for v in x)

    assert "(v for v in x)" in autograph.to_code(f)


# -- what autograph.to_code shows --------------------------------------------------------------


def test_converted_code_calls_the_function_directly():
    code = autograph.to_code(count_positives)
    assert "def genexpr(x):" in code
    assert "ag__.call(sum, genexpr(x))" in code
    assert "ag__.call(genexpr" not in code
    code = autograph.to_code(any_positive)
    assert "return genexpr(x)" in code and "ag__.call(any" not in code


def test_comprehension_with_walrus_stays_as_written():
    def f(x):
        return [(y := v) for v in x], y

    code = autograph.to_code(f)
    assert "[(y := v) for v in x]" in code
    assert staging.function(f)(np.array([1.0, 2.0]))[1] == 2.0


def test_pop_of_an_outer_list_stays_as_written(capsys):
    def f(n):
        stack = list(range(n))
        taken = [stack.pop() for _ in range(2)]
        return taken, stack

    assert "[ag__.call(stack.pop) for _ in" in autograph.to_code(f)
    strictly_same(staging.function(f)(4), f(4))


# -- under jit_compile=True ----------------------------------------------------------------------


def test_jit_compile_gives_eager_results_or_refuses_naming_the_line():
    pytest.importorskip("jax")
    x = np.array([1.0, -2.0, 3.0])
    for fn in (doubled, any_positive, all_positive):
        strictly_same(staging.function(fn, jit_compile=True)(x), fn(x))
    with pytest.raises(NotImplementedError) as info:  # (the backend's LoweringError)
        staging.function(positives, jit_compile=True)(x)
    assert str(info.value).startswith(line_of(positives, 1))


def test_deque_and_counter_read_a_generator_whole(capsys):
    def queue(n):
        ready = collections.deque(i for i in range(n) if i % 2 == 0)
        return list(ready), collections.Counter(i % 3 for i in range(n))

    strictly_same(autograph.convert(queue)(7), queue(7))
    assert "collections.deque(genexpr(" in autograph.to_code(queue)


# -- what the lists comprehensions make meet ------------------------------------------------------


def test_indexing_with_a_list_a_staged_loop_made(capsys):
    def marked(r):
        bad = [i for i, v in enumerate(r) if not np.isfinite(v)]
        r = r.copy()
        r[bad] = 0.0
        return r, r[bad], len(bad)

    same_as_eager(
        capsys,
        marked,
        [(np.array([1.0, np.inf, np.nan]),), (np.array([1.0, 2.0]),), (np.zeros(0),)],
        signatures=(None, [F64_ANY]),
    )


def test_min_and_max_of_no_items(capsys):
    def extremes(x):
        return max(v for v in x if v > 0), min((v for v in x if v > 0), default=-1.0)

    same_as_eager(capsys, extremes, VECTORS, signatures=(None, [F64_ANY]))


def test_sum_starts_from_start(capsys):
    def totals(m):
        return sum(m), sum(m, 0.5), sum((row for row in m if row[0] > 0), 1)

    same_as_eager(
        capsys,
        totals,
        [(np.ones((2, 3)),), (np.zeros((0, 3)),), (np.array([[-1.0], [2.0]]),)],
        signatures=(None, [staging.TensorSpec([None, None], np.float64)]),
    )


def test_a_list_repeated_a_symbolic_number_of_times_is_a_staged_list(capsys):
    def padded(row):
        tiles = [v for v in row if v != 0]
        return tiles + [0] * (len(row) - len(tiles))

    same_as_eager(
        capsys,
        padded,
        [(np.array([2, 0, 2]),), (np.zeros(0, dtype=np.int64),), (np.array([0, 0]),)],
    )
