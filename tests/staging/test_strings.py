"""Strings of staged values and print: staged with eager's exact text, on every call."""

from __future__ import annotations

import io
import os
import sys

import numpy as np
import pytest

import staging
from staging import errors

HERE = os.path.basename(__file__)

# -- helpers -----------------------------------------------------------------------------------


def outcome(fn, args, capsys):
    """(result or (error type, message), what it printed to stdout, to stderr)."""
    try:
        result = fn(*args)
    except Exception as error:  # noqa: BLE001 - compared with the eager call's
        result = (type(error), str(error))
    captured = capsys.readouterr()
    return result, captured.out, captured.err


def assert_same(fn, *argsets, capsys, calls=2):
    """Each argument set: the staged function gives what `fn` gives (result, its Python types,
    printed text), on the call that traces and on the calls after it."""
    staged = _STAGED.get(fn)
    if staged is None:
        staged = _STAGED[fn] = staging.function(fn)  # (one per function: no retracing warning)
    for args in argsets:
        eager = outcome(fn, args, capsys)
        for _ in range(calls):
            got = outcome(staged, args, capsys)
            assert got == eager, (args, got, eager)
            assert _types(got[0]) == _types(eager[0])
    return staged


_STAGED: dict = {}


def _types(value):
    if type(value) in (tuple, list):
        return [type(value), *(_types(v) for v in value)]
    return type(value)


def line_of(fn, offset: int) -> str:
    return f"{HERE}:{fn.__code__.co_firstlineno + offset}:"


VALUES = [
    np.float64(1 / 3),
    np.float64(np.nan),
    np.float64(-np.inf),
    np.float64(-0.0),
    np.float32(0.1),
    np.float16(3.14159),
    np.int64(-7),
    np.int8(5),
    np.uint16(9),
    np.bool_(True),
    np.complex128(1 + 2j),
    np.array(2.5),
    np.array([1.0, 2.5, np.nan]),
    np.arange(6).reshape(2, 3),
    np.array([True, False]),
    np.zeros(0),
    np.array([1e-10, 1e10]),
    np.linspace(0, 1, 2000),
    np.array([1 + 1j, -0.5j]),
]


def conversions(x):
    return (f"{x}", f"{x!r}", f"{x!s}", f"{x!a}", str(x), repr(x), format(x), ascii(x), f"<{x}>")


@pytest.mark.parametrize("value", VALUES, ids=lambda v: f"{np.asarray(v).dtype}{np.shape(v)}")
def test_str_and_repr_of_values(value, capsys):
    assert_same(conversions, (value,), capsys=capsys)


def padded(x):
    return (f"[{x:>12}]", f"{x:<8}|", f"{x:^9}", format(x, "10"), "{:>7}".format(x))


def floats(x):
    return (f"{x:.3f}", f"{x:+.2e}", f"{x:g}", f"{x:,.1f}", f"{x:%}", "%5.2f" % x, "%r" % (x,))


def integers(x):
    return (f"{x:d}", f"{x:05d}", f"{x:x}", f"{x:#b}", "%d" % x, "%03i|%s" % (x, x))


@pytest.mark.parametrize(
    "value", [v for v in VALUES if np.ndim(v) == 0], ids=lambda v: np.asarray(v).dtype.name
)
def test_format_specs_of_scalars(value, capsys):
    assert_same(padded, (value,), capsys=capsys)
    if np.asarray(value).dtype.kind in "fiu":
        assert_same(floats, (value,), capsys=capsys)
    if np.asarray(value).dtype.kind in "iu":
        assert_same(integers, (value,), capsys=capsys)


def python_numbers(x):
    n = len(x)  # a Python int known at run time
    total = 0  # a Python int, or a float64 after the loop
    for v in x:
        total += v
    return f"{n} items", f"{n:03d}", str(total), repr(total), f"{total:.2f}", f"{n / 3}"


def test_python_numbers_known_at_run_time(capsys):
    assert_same(
        python_numbers, (np.array([1.5, 2.0]),), (np.zeros(0),), (np.ones(7),), capsys=capsys
    )


def nested_specs(x, width, digits):
    return (
        f"{x:{width}.{digits}f}",
        "{:{}.{}f}".format(x, width, digits),
        f"{x:>{width}}",
        "{0:{1}}|{0!r:>{1}}".format(x, width),
    )


def test_nested_format_specs(capsys):
    assert_same(
        nested_specs,
        (np.float64(2 / 3), 10, 3),
        (np.float64(2 / 3), np.int64(8), np.int64(2)),
        (np.float64(-1e300), np.int64(4), np.int64(0)),
        capsys=capsys,
    )


def str_format(x, n):
    return (
        "{} and {}".format(x, n),
        "{1}-{0}".format(x, n),
        "{a!r}/{b}".format(a=x, b="text"),
        "{:>5}|{:<5}|".format(n, "ab"),
        "%(v).1f %(k)s" % {"v": x, "k": "k"},
        "%s" % x,
    )


def test_str_format_and_percent(capsys):
    assert_same(str_format, (np.float64(1.25), np.int64(3)), capsys=capsys)
    assert_same(str_format, (np.array([1.0, 2.0]), np.int64(-1)), capsys=capsys)


def containers(x, y):
    return (
        f"{(x, y)}",
        str([x, 1.5, "a"]),
        repr({"k": x, 2: None}),
        f"{(x,)}",
        f"{[x, [y]]!r}",
        str((x, y)),
        f"{[x, y]!s:>40}",
    )


def test_tuples_lists_and_dicts_of_staged_values(capsys):
    assert_same(containers, (np.float64(1.5), np.int64(2)), capsys=capsys)
    assert_same(containers, (np.array([1.0, 2.0]), np.float32(0.5)), capsys=capsys)


# -- errors eager code raises --------------------------------------------------------------------


def bad_spec(x):
    return f"{x:d}"


def too_few(x):
    return "%d %d" % (x,)  # noqa: F507 - raises, as eagerly


def bad_conversion_of_text(x):
    return "%d" % f"{x}"


def test_errors_of_formatting_are_eagers(capsys):
    assert_same(bad_spec, (np.float64(1.5),), (np.int64(2),), capsys=capsys)
    assert_same(too_few, (np.int64(1),), capsys=capsys)
    assert_same(bad_conversion_of_text, (np.int64(1),), capsys=capsys)


def unused_bad_spec(x):
    f"{x:d}"  # noqa: B018 - raises eagerly though unused
    return x


def test_a_format_that_raises_is_kept_when_unused(capsys):
    assert_same(unused_bad_spec, (np.float64(1.5),), capsys=capsys)


# -- operations on staged strings --------------------------------------------------------------


def operations(x):
    s = f"{x}"
    t = "<" + s + ">"
    t += "!"
    return (
        t,
        len(t),
        t == "<3>!",
        t != "x",
        "3" in t,
        "9" not in t,
        t in ("<3>!", "other"),
        t not in ["a"],
        t[1],
        t[-1],
        t[1:3],
        t * 2,
        2 * t,
        "-" * len(s),
        s < "5",
        s >= "1",
        not s,
    )


def joined_generators(x):
    return ",".join(f"{v:.1f}" for v in (x, x + 1)), f"{x}".join(str(k) for k in range(3))


def test_join_reads_a_generator(capsys):
    assert_same(joined_generators, (np.float64(1.5),), capsys=capsys)


def methods(x):
    t = f"  {x}  "
    return (
        t.strip(),
        t.upper(),
        t.startswith(" "),
        t.find("1"),
        t.replace("1", "one"),
        t.zfill(9),
        t.count(" "),
        t.title(),
        t.strip().isdigit(),
        "|".join([t, "b", t]),
        t.center(11, "*"),
        t.removeprefix(" "),
    )


def test_operators_and_methods_of_staged_strings(capsys):
    assert_same(operations, (np.int64(3),), (np.int64(77),), capsys=capsys)
    assert_same(methods, (np.int64(12),), (np.float64(1.5),), capsys=capsys)


def parse(x):
    text = f"{x}0"
    return int(text), float(text), bool(text)


def test_int_and_float_of_a_staged_string(capsys):
    assert_same(parse, (np.int64(12),), (np.float64(1.5),), capsys=capsys)


def truth(x):
    s = f"{x}".strip("0")
    if s:
        return "some"
    return "none"


def test_truth_of_a_staged_string(capsys):
    assert_same(truth, (np.int64(0),), (np.int64(10),), capsys=capsys)


# -- in branches and loops --------------------------------------------------------------------


def branches(x):
    if x > 0:
        msg = f"big {x:.1f}"
    else:
        msg = "small"
    label = "pos" if x > 0 else "neg"
    msg += "!"
    if msg == "small!":
        print("small one", label)
    return msg.upper(), label


def test_strings_in_staged_branches(capsys):
    assert_same(branches, (np.float64(2.0),), (np.float64(-1.0),), capsys=capsys)


def loops(x):
    status = "running"
    log = ""
    i = 0
    while x[i] > 0:
        status = "done"
        log += f"{i}:{x[i]:.1f};"
        i += 1
    names = []
    for v in x:
        names.append(f"<{v}>" if v > 0 else "neg")
    return status, log, names, ", ".join(names), str(names)


def test_strings_in_staged_loops(capsys):
    assert_same(
        loops,
        (np.array([1.0, -1.0]),),
        (np.array([-1.0, -1.0]),),
        (np.array([2.0, 3.5, -1.0]),),
        capsys=capsys,
    )


def letters(x):
    n = 0
    for ch in f"{x}":
        if ch == "1":
            n += 1
    return n


def test_a_loop_over_a_staged_string(capsys):
    assert_same(letters, (np.int64(1121),), (np.int64(5),), capsys=capsys)


def assigned_in_loop(n):
    i = 0
    while i < n:
        label = f"x{i}"
        i += 1
    return label


def test_a_string_first_assigned_in_a_staged_loop(capsys):
    assert_same(assigned_in_loop, (np.int64(2),), (np.int64(1),), capsys=capsys)
    with pytest.raises(UnboundLocalError):
        _STAGED[assigned_in_loop](np.int64(0))


def test_a_str_on_one_path_and_a_number_on_another_is_what_its_path_made_it():
    def mixed(x):
        if x > 0:
            y = "pos"
        else:
            y = 1
        return y

    staged = staging.function(mixed)
    assert staged(np.float64(1.0)) == "pos" and staged(np.float64(-1.0)) == 1
    assert type(staged(np.float64(-1.0))) is int
    assert "str | int" in str(staged.get_concrete_function(np.float64(1.0)).graph)


def test_an_op_on_a_str_on_some_paths_raises_eagers_error_on_that_path():
    def mixed(x):
        if x > 0:
            y = "pos"
        else:
            y = 1
        return y * 2.5

    staged = staging.function(mixed)
    assert staged(np.float64(-1.0)) == 2.5
    with pytest.raises(TypeError, match="can't multiply sequence by non-int") as e:
        staged(np.float64(1.0))
    assert line_of(mixed, 5) in "".join(getattr(e.value, "__notes__", []))


def test_an_op_no_path_of_a_str_union_can_run_is_refused_naming_the_line():
    def mixed(x):
        if x > 0:
            y = "pos"
        else:
            y = 1
        return y == "pos"

    with pytest.raises(errors.BranchMismatchError) as e:
        staging.function(mixed)(np.float64(1.0))
    assert line_of(mixed, 5) in str(e.value)
    assert "a str on some paths" in str(e.value)


def test_a_staged_string_is_a_python_str_for_the_caller(capsys):
    f = staging.function(lambda x: f"{x:.2f}")
    value = f(np.float64(1 / 3))
    assert type(value) is str and value == "0.33"
    concrete = f.get_concrete_function(np.float64(1.0))
    assert "str" in str(concrete.graph)


def test_text_of_python_values_only_stays_a_python_str():
    seen = []

    def f(x):
        name = f"w{3}"
        seen.append(type(name))
        return x

    staging.function(f)(np.float64(1.0))
    assert seen == [str]


# -- print -----------------------------------------------------------------------------------


def prints(x, n):
    print("x =", x, "n =", n, sep=";", end="!\n")
    print(x)
    print(f"{n} positive")
    print("%d items, %.2f mean, %s" % (n, x.mean(), x))
    print("constant text")
    print()
    print([x, n], (n,), {"n": n})
    for i in range(2):
        print(f"i={i}")
    return x


def test_print_on_every_call_with_eagers_text(capsys):
    assert_same(
        prints,
        (np.array([1.5, 2.0]), np.int64(3)),
        (np.array([np.nan, -0.0]), np.int64(-1)),
        capsys=capsys,
        calls=3,
    )


def streams(x):
    print("to err", x, file=sys.stderr, flush=True)
    print("to out", x, file=sys.stdout)
    print("none", x, file=None, sep="", end="")
    print()
    return x


def test_print_to_stdout_and_stderr_as_they_are_when_the_graph_runs(capsys):
    assert_same(streams, (np.float64(1.5),), capsys=capsys, calls=3)


def test_print_to_another_file_writes_to_it_on_every_call():
    buffer = io.StringIO()

    def to_buffer(x):
        print("v", x, file=buffer)
        return x

    f = staging.function(to_buffer)
    f(np.float64(1.0))
    f(np.float64(2.0))
    assert buffer.getvalue() == "v 1.0\nv 2.0\n"


def test_print_in_staged_branches_and_loops(capsys):
    def f(x):
        for v in x:
            if v > 0:
                print("positive", v)
            else:
                print(f"not positive: {v!r}")
        return x

    assert_same(f, (np.array([1.0, -2.0, 0.0]),), (np.zeros(0),), capsys=capsys)


def test_staging_print_takes_file_and_flush(capsys):
    def f(x):
        staging.print("err", x, file=sys.stderr, flush=True)
        return x

    staged = staging.function(f)
    staged(np.float64(2.0))
    staged(np.float64(3.0))
    assert capsys.readouterr().err == "err 2.0\nerr 3.0\n"


def test_print_with_a_bad_sep_raises_as_print_does():
    def f(x):
        print(x, sep=1)
        return x

    with pytest.raises(TypeError, match="sep must be None or a string, not int"):
        staging.function(f)(np.float64(1.0))


# -- NumPy's print options -------------------------------------------------------------------


def show(x):
    print(x)
    return f"{x}", str(x), repr(x)


def test_print_options_in_force_when_the_graph_runs(capsys):
    x = np.array([1 / 3, 2 / 3, 1e-9])
    staged = staging.function(show)
    staged(x)
    capsys.readouterr()
    for options in ({"precision": 3}, {"suppress": True}, {"precision": 2, "floatmode": "fixed"}):
        with np.printoptions(**options):
            eager = outcome(show, (x,), capsys)
            assert outcome(staged, (x,), capsys) == eager


def scoped(x):
    with np.printoptions(precision=2):
        print(x)
        inside = f"{x}"
    print(x)
    return inside, f"{x}"


def test_print_options_set_in_the_function(capsys):
    assert_same(scoped, (np.array([1 / 3, 2 / 3]),), capsys=capsys)
    with np.printoptions(precision=4):
        assert_same(scoped, (np.array([1 / 3, 2 / 3]),), capsys=capsys)


# -- refused, naming the line -------------------------------------------------------------------


def test_unstaged_methods_are_refused_naming_the_line():
    def f(x):
        s = f"{x}"
        return s.split(",")

    with pytest.raises(errors.UnsupportedOpError) as e:
        staging.function(f)(np.float64(1.0))
    assert line_of(f, 2) in str(e.value) and "str.split()" in str(e.value)


def test_a_staged_string_as_a_dict_key_makes_a_staged_dict():
    def f(x):
        counts = {}
        counts[f"{x}"] = 1
        counts[f"{x}"] += 1
        return counts

    for x in (np.float64(1.0), np.float64(-0.0)):
        result = staging.function(f)(x)
        assert result == f(x) and all(type(k) is str for k in result)


def test_a_staged_string_in_a_dict_display_is_refused_naming_the_line():
    def f(x):
        return {f"{x}": 1}

    with pytest.raises(errors.SymbolicValueError) as e:
        staging.function(f)(np.float64(1.0))
    assert line_of(f, 1) in str(e.value) and "staged string" in str(e.value)


def test_formatting_in_unconverted_code_is_refused_naming_the_line():
    def f(x):
        return "{}".format(x)

    with pytest.raises(errors.SymbolicValueError) as e:
        staging.function(f, autograph=False)(np.float64(1.0))
    assert line_of(f, 1) in str(e.value) and "formatting" in str(e.value)


def test_what_str_does_not_have_raises_eagers_error(capsys):
    def sub(x):
        return f"{x}" - 1

    def add_number(x):
        return f"{x}" + x

    assert_same(sub, (np.float64(1.0),), capsys=capsys)
    with pytest.raises(TypeError):
        staging.function(add_number)(np.float64(1.0))


def test_numpy_functions_of_a_staged_string_are_refused_naming_the_line():
    def f(x):
        return np.sum(f"{x}")

    with pytest.raises(errors.UnsupportedOpError) as e:
        staging.function(f)(np.float64(1.0))
    assert line_of(f, 1) in str(e.value)


def test_comparing_a_staged_string_with_an_array_is_refused_naming_the_line():
    def f(x):
        return f"{x}" == x

    with pytest.raises(errors.UnsupportedOpError) as e:
        staging.function(f)(np.float64(1.0))
    assert line_of(f, 1) in str(e.value)


def test_strings_are_refused_by_the_jax_backend_naming_the_line():
    pytest.importorskip("jax")

    def f(x):
        return f"{x}"

    with pytest.raises(Exception, match="Python str is not an array") as e:
        staging.function(f, jit_compile=True)(np.float64(1.0))
    assert line_of(f, 1) in str(e.value)


def test_a_print_of_a_constant_runs_on_the_jax_backend(capsys):
    pytest.importorskip("jax")

    def f(x):
        print("x is", x)
        return x + 1

    staged = staging.function(f, jit_compile=True)
    staged(np.float64(1.0))
    staged(np.float64(2.0))
    assert capsys.readouterr().out == "x is 1.0\nx is 2.0\n"


# -- saving --------------------------------------------------------------------------------------


def saved_strings(x, n):
    s = f"x={x:.3f} n={n!r}"
    print(s, "|", "%d items" % n, file=sys.stderr)
    label = "pos" if x > 0 else "neg"
    t = s.upper() + label
    return t, len(t), "3" in t, t == "a", label in ("pos",)


def test_saved_functions_keep_their_strings(tmp_path, capsys):
    f = staging.function(saved_strings)
    path = tmp_path / "strings.stg"
    staging.save(
        f.get_concrete_function(
            staging.TensorSpec([], np.float64), staging.TensorSpec([], np.int64)
        ),
        str(path),
    )
    loaded = staging.load(str(path))
    args = (np.float64(1 / 3), np.int64(5))
    capsys.readouterr()
    assert loaded(*args) == saved_strings(*args)
    captured = capsys.readouterr()
    assert captured.err == "x=0.333 n=np.int64(5) | 5 items\n" * 2


# -- staged strings among other staged values ------------------------------------------------


def test_a_staged_string_passed_to_another_staged_function(capsys):
    exclaim = staging.function(lambda s: s + "!")

    def outer(x):
        return exclaim(f"{x:.1f}")

    assert_same(outer, (np.float64(1.25),), (np.float64(-3.0),), capsys=capsys)
    signature = staging.function(outer).get_concrete_function(np.float64(1.0))
    assert "str" in signature.pretty_printed_signature()


def test_a_variable_is_formatted_with_its_value_at_that_point(capsys):
    v = staging.Variable(np.float64(3.0))

    def f(x):
        before = f"v={v}"
        v.assign_add(x)
        return before, str(v)

    staged = staging.function(f)
    assert staged(np.float64(1.0)) == ("v=3.0", "4.0")
    assert staged(np.float64(1.0)) == ("v=4.0", "5.0")


def maybe_set(x):
    if x > 0:
        y = x * 2
    return f"y={y}"


def test_a_name_set_on_some_paths_is_checked_where_it_is_formatted(capsys):
    f = staging.function(maybe_set)
    assert f(np.float64(1.0)) == maybe_set(np.float64(1.0)) == "y=2.0"
    with pytest.raises(UnboundLocalError):
        f(np.float64(-1.0))


def printed_list(x):
    items = []
    for v in x:
        items.append(v * 2)
    print(items, len(items))
    return f"{items}"


def test_a_staged_list_is_printed_and_formatted_as_the_list_it_is(capsys):
    assert_same(printed_list, (np.array([1.0, 2.5]),), (np.zeros(0),), capsys=capsys)


def test_a_staged_separator_is_refused_naming_the_line():
    def f(x):
        print(x, sep=f"{x}")
        return x

    with pytest.raises(errors.UnsupportedOpError) as e:
        staging.function(f)(np.float64(1.0))
    assert line_of(f, 1) in str(e.value) and "sep=" in str(e.value)


def _point(x):
    import dataclasses

    @dataclasses.dataclass
    class Point:
        x: object

    return Point(x)


REFUSALS = {
    "a method with keywords": lambda x: f"{x}".center(9, fillchar="*"),
    "join over an array": lambda x: f"{x}".join(x),
    "repeat by a NumPy count on the left": lambda x: x.astype(np.int64) * f"{x}",
    "a dataclass holding a staged value": lambda x: f"{_point(x)}",
    "% of a list holding a staged value": lambda x: "%s" % ([x],),
    "a field looking into a staged value": lambda x: "{0.real}".format(x),
    "% with a staged template": lambda x: f"{x}%d" % 3,
    "in a tuple holding a staged value": lambda x: f"{x}" in (f"{x}", "a"),
    "ascii of a list holding a staged value": lambda x: ascii([x]),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_what_is_not_staged_is_refused_naming_the_line(name):
    fn = REFUSALS[name]
    with pytest.raises(errors.StagingError) as e:
        staging.function(fn)(np.float64(1.5))
    assert f"{HERE}:{fn.__code__.co_firstlineno}:" in str(e.value), str(e.value)


TEMPLATE = "v=%s"


def test_percent_with_a_template_that_is_not_a_literal_is_refused_naming_the_line():
    def f(x):
        return TEMPLATE % x

    with pytest.raises(errors.SymbolicValueError) as e:
        staging.function(f)(np.float64(1.0))
    assert line_of(f, 1) in str(e.value) and "str()" in str(e.value)


def test_an_attribute_str_lacks_is_eagers_error_with_the_line_in_a_note():
    def f(x):
        return f"{x}".sum()

    with pytest.raises(AttributeError, match="'str' object has no attribute 'sum'") as e:
        staging.function(f)(np.float64(1.0))
    assert any(line_of(f, 1) in note for note in getattr(e.value, "__notes__", []))


def asserted(x):
    assert x > 0, f"x={x:.2f} must be positive"
    return x


def test_a_staged_string_is_the_message_of_a_staged_assert():
    """(A staged string is a node input like any value: what raises at run time can carry it.
    pytest rewrites the asserts of this module, so the eager message is written out here.)"""
    f = staging.function(asserted)
    assert f(np.float64(1.5)) == 1.5
    for _ in range(2):
        with pytest.raises(AssertionError) as e:
            f(np.float64(-1.5))
        assert str(e.value) == "x=-1.50 must be positive"
