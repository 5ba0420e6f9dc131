"""Differential test: random programs give the same results staged as eagerly (see docs/testing.md)."""

from __future__ import annotations

import collections
import os

import numpy as np
import pytest

pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402

from .analysis import analyze  # noqa: E402
from .features import ALL_FEATURES, CI_FEATURES  # noqa: E402
from .generate import build_program, programs  # noqa: E402
from .program import (
    Arg,
    Assign,
    BinOp,
    Call,
    Cmp,
    For,
    FuncDef,
    If,
    ListLit,
    Lit,
    Name,
    Print,
    Program,
    Return,
)  # noqa: E402
from .run import staged_factory  # noqa: E402
from .runner import CallResult, compare_call, run_program  # noqa: E402
from .shrink import shrink  # noqa: E402

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "1000"))
# (category, dtype-stable) -> programs, over the run; conftest.py prints it after the tests.
OUTCOMES = collections.Counter()


def _derandomized(examples: int):
    """The settings of a differential test: always the same `examples` programs."""
    return settings(
        max_examples=examples,
        derandomize=True,
        deadline=None,
        database=None,
        print_blob=False,
        suppress_health_check=list(HealthCheck),
    )


@_derandomized(EXAMPLES)
@given(programs(CI_FEATURES))
def test_staged_equals_eager(program):
    """Every program AGREEs, raises the same error staged as eagerly (SAME_ERROR), or is REFUSED
    with the program's file:line; a refusal only where the program is not dtype-stable or uses
    a construct staging may refuse (runner.Outcome.acceptable). Never a silent mismatch, a
    wrong error, a crash or a timeout. The outcomes are counted and printed after the tests.

    Programs with an operation that some call's types reject are left out: staging traces
    branches eager never takes, and the error such an operation raises there is expected."""
    analysis = analyze(program)
    if analysis.errors:
        OUTCOMES[("SKIPPED", False)] += 1
    assume(not analysis.errors)
    outcome = run_program(program, analysis=analysis)
    OUTCOMES[(outcome.category, outcome.stable)] += 1
    assert outcome.acceptable, outcome.report()


NUMBA_EXAMPLES = int(os.environ.get("FUZZ_NUMBA_EXAMPLES", "150"))


@_derandomized(NUMBA_EXAMPLES)
@given(programs(CI_FEATURES))
def test_staged_by_numba_equals_eager(program):
    """The same check with every staged function compiled by numba (jit_compile="numba"):
    graphs numba compiles give eager's answers, the others run on the interpreter."""
    pytest.importorskip("numba")
    analysis = analyze(program)
    assume(not analysis.errors)
    outcome = run_program(program, staged_factory=staged_factory("numba"), analysis=analysis)
    assert outcome.acceptable, outcome.report()


# -- the instrument's own tests -------------------------------------------------------------


def _program(body, calls, params=("x", "n")):
    return Program((), FuncDef("f", tuple(params), tuple(body)), tuple(calls))


F64 = Arg("np", "float64", 1.5)
N2 = Arg("np", "int64", 2)


def test_generated_programs_run_eagerly():
    """Every feature together still gives programs that run eagerly (no NameError, no hang)."""
    for i in range(60):
        data = bytes((i * 37 + k * 11) % 256 for k in range(400))
        program = build_program(bytes((i + k) % 256 for k in range(64)), data)
        outcome = run_program(program, staged_factory=lambda f: f)  # "staged" = eager: must AGREE
        assert outcome.category in ("AGREE", "SAME_ERROR"), outcome.report()


def test_classifier_finds_a_silent_mismatch():
    program = _program([Return((BinOp("*", Name("x"), Lit(2)),))], [(F64, N2)])

    def wrong(f):
        return lambda *args: np.float32(f(*args))

    outcome = run_program(program, staged_factory=wrong)
    assert outcome.category == "SILENT_MISMATCH"
    assert "pytype np.float64 -> np.float32" in outcome.key


def test_classifier_compares_printed_text_and_python_types():
    program = _program([Print((Lit("p"), Name("x"))), Return((Lit(1),))], [(F64, N2)])

    def quiet(f):
        return lambda *args: np.int64(1)

    outcome = run_program(program, staged_factory=quiet)
    assert outcome.category == "SILENT_MISMATCH"
    assert "print" in outcome.key and "pytype int -> np.int64" in outcome.key


def test_classifier_errors():
    from staging import errors

    path = "/tmp/prog_7.py"
    ok = CallResult(value=np.float64(1.0))
    refusal = CallResult(error=errors.BranchMismatchError(f"{path}:3: 'y' differs"))
    unclear = CallResult(error=errors.BranchMismatchError("'y' differs"))
    assert compare_call(ok, refusal, path)[0] == "REFUSED"
    assert compare_call(ok, unclear, path)[0] == "WRONG_ERROR"
    raised = CallResult(error=ZeroDivisionError("division by zero"))
    assert compare_call(raised, ok, path)[0] == "SILENT_MISMATCH"
    assert compare_call(raised, CallResult(error=ZeroDivisionError("x")), path)[0] == "SAME_ERROR"
    assert compare_call(raised, CallResult(error=ValueError("x")), path)[0] == "WRONG_ERROR"
    # the same error after other printed text: the text is part of the contract
    printed = CallResult(error=ZeroDivisionError("x"), stdout="p1 2.0\n")
    assert compare_call(printed, CallResult(error=ZeroDivisionError("x")), path)[0] == (
        "SILENT_MISMATCH"
    )
    nan = CallResult(value=np.float64("nan"))
    assert compare_call(nan, CallResult(value=np.float64("nan")), path)[0] == "AGREE"
    assert compare_call(CallResult(value=0.0), CallResult(value=-0.0), path)[0] == "SILENT_MISMATCH"


def test_classifier_holds_the_programs_exceptions_to_their_class_and_arguments():
    path = "/tmp/prog_7.py"
    module = {"__module__": "fuzzprog_1_2"}
    fuzz_error = type("FuzzError", (ValueError,), module)
    sub = type("FuzzSub", (fuzz_error,), module)

    def category(eager, staged):
        return compare_call(CallResult(error=eager), CallResult(error=staged), path)[0]

    assert category(fuzz_error("r1", np.float64(2.0)), fuzz_error("r1", np.float64(2.0))) == (
        "SAME_ERROR"
    )
    assert category(fuzz_error("r1", np.float64(2.0)), fuzz_error("r1", 2.0)) == "WRONG_ERROR"
    assert category(fuzz_error("r1"), ValueError("r1")) == "WRONG_ERROR"  # not the program's class
    assert category(fuzz_error("r1"), sub("r1")) == "WRONG_ERROR"
    other = fuzz_error("r1")
    other.value = 3
    assert category(fuzz_error("r1"), other) == "WRONG_ERROR"  # another attribute
    linalg = np.linalg.LinAlgError("Singular matrix")
    assert category(linalg, ValueError("Singular matrix")) == "WRONG_ERROR"


def test_classifier_compares_strings_sets_and_deques():
    import collections

    path = "/tmp/prog_7.py"

    def category(eager, staged):
        return compare_call(CallResult(value=eager), CallResult(value=staged), path)[0]

    assert category("1.500", "1.500") == "AGREE"
    assert category("1.500", "1.5") == category("1", 1) == "SILENT_MISMATCH"
    assert category({1, np.int64(2)}, {1, np.int64(2)}) == "AGREE"
    assert category({1, np.int64(2)}, {1, 2}) == "SILENT_MISMATCH"  # an element's type
    assert category({float("nan")}, {float("nan")}) == "AGREE"
    deque = collections.deque
    assert category(deque([1.0]), deque([1.0])) == "AGREE"
    assert category(deque([1.0]), [1.0]) == category(deque([1.0]), deque([1])) == "SILENT_MISMATCH"


def test_refusals_are_accepted_where_the_program_is_unstable_or_uses_a_new_construct():
    from .program import ExprStmt, Method
    from .runner import Outcome

    plain = _program([Return((Name("x"),))], [(F64, N2)])
    method = _program(
        [
            Assign("l", ListLit((Name("x"),))),
            ExprStmt(Method(Name("l"), "pop", ())),
            Return((Lit(1),)),
        ],
        [(F64, N2)],
    )
    for program, stable, accepted in [
        (plain, True, False),
        (plain, False, True),
        (method, True, True),
    ]:
        outcome = Outcome("REFUSED", "key", stable, [], [], program)
        assert outcome.acceptable == accepted


def test_classifier_accepts_exactly_the_documented_join_conversion():
    path = "/tmp/prog_7.py"

    def category(eager, staged, joins=True):
        return compare_call(CallResult(value=eager), CallResult(value=staged), path, joins=joins)[0]

    # A Python number that met another type where paths join: the joined type, the same value.
    assert category(0, np.int32(0)) == "AGREE"
    assert category((True, 3), (np.True_, 3.0)) == "AGREE"
    assert category(2, 2.0) == category(1.5, 1.5 + 0j) == category(True, np.int8(1)) == "AGREE"
    assert (
        category(0.5, np.float32(0.5)) == category(0.1, np.float32(0.1)) == "AGREE"
    )  # 0.1 as a float32
    # Anything else still differs: another value, a dtype NEP 50 would not keep, a narrower type,
    # a NumPy value to begin with, or a dtype-stable program (no such join happens there).
    assert category(3, np.int32(4)) == "SILENT_MISMATCH"
    assert category(0.1, np.float32(0.2)) == "SILENT_MISMATCH"
    assert category(2.0, np.int64(2)) == "SILENT_MISMATCH"  # a float does not become an int
    assert category(1.0, 1) == category(300, np.uint8(44)) == "SILENT_MISMATCH"
    assert (
        category(np.int64(0), np.int32(0))
        == category(0, np.int32(0), joins=False)
        == "SILENT_MISMATCH"
    )


def test_analysis_finds_dtype_changes():
    stable = _program(
        [
            Assign("v", Name("x")),
            For("i", Call("range", (Name("n"),)), (Assign("v", BinOp("*", Name("v"), Lit(2))),)),
            Return((Name("v"),)),
        ],
        [(F64, N2)],
    )
    assert analyze(stable).stable
    int_x = Arg("np", "int32", 1)
    changing = _program(
        [
            Assign("v", Name("x")),
            If(Cmp(">", Name("x"), Lit(0)), (Assign("v", BinOp("/", Name("v"), Lit(2))),)),
            Return((Name("v"),)),
        ],
        [(int_x, N2)],
    )
    analysis = analyze(changing)
    assert not analysis.stable and "'v' after an if statement" in analysis.unstable[0]


def test_shrinker_keeps_the_failure_and_drops_the_rest():
    body = [
        Assign("a", BinOp("+", Name("x"), Lit(1))),
        Assign("b", BinOp("*", Name("a"), Lit(3))),
        If(Cmp(">", Name("a"), Lit(0)), (Assign("c", Lit(2)),)),
        Print((Lit("p"), BinOp("-", Name("b"), Lit(1)), Name("x"))),
        Return((Name("b"),)),
    ]
    program = _program(body, [(F64, N2), (F64, N2)])
    small = shrink(program, lambda p: "print(" in p.source())
    assert "print(" in small.source() and len(small.calls) == 1
    assert "if " not in small.source()
    assert small.source().count("\n") < program.source().count("\n")


@pytest.mark.parametrize("features", [frozenset(), ALL_FEATURES])
def test_generation_is_deterministic(features):
    data = bytes(range(256)) + bytes(144)
    one = build_program(bytes(range(64)), data, features)
    two = build_program(bytes(range(64)), data, features)
    assert one.source() == two.source() and one.calls == two.calls
