"""runtime/user_lines.py places generated code at the user's lines: every instruction of the
generated function (and of the functions and comprehensions nested in it) carries the user's
line of the node it came from and, in its end line, the generated line."""

import sys
import types

import pytest

from runtime import user_lines
from runtime.user_lines import GENERATED_BASE, compile_at_user_lines, generated_line

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="code positions: Python 3.11+")


class Node:
    def __init__(self, location):
        self.location = location


def _code_objects(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def _source(statements: int) -> str:
    body = "".join(f"    v{i} = v{i - 1} + {i}\n" for i in range(1, statements + 1))
    return (
        "def run(v0):\n" + body + "    def inner(a):\n        while a < 3:\n"
        "            a = a + 1\n        return a\n"
        f"    return [inner(x) for x in (v0, v{statements})]\n"
    )


@pytest.mark.parametrize("statements", [3, 200])
def test_every_instruction_is_at_its_users_line(statements):
    source = _source(statements)
    count = source.count("\n")
    # User lines that go up and down by large steps (varints of several bytes, negative deltas).
    nodes = {g: Node(("user.py", 1000 + (g * 7919) % 5000)) for g in range(2, count + 1, 2)}
    nodes[3] = Node(("helper.py", 5))  # another file: the main file's line before it
    code, filename = compile_at_user_lines(source, nodes, "<fallback>")
    assert filename == "user.py"
    expected = user_lines._user_lines(count + 1, nodes, "user.py")
    plain = compile(source, "<plain>", "exec")
    checked = 0
    for relocated, original in zip(_code_objects(code), _code_objects(plain)):
        assert relocated.co_filename == "user.py" and relocated.co_code == original.co_code
        for (line, end, col, end_col), (g, *_rest) in zip(
            relocated.co_positions(), original.co_positions()
        ):
            if g is None or g < 1:
                continue
            assert (line, end, col, end_col) == (expected[g], GENERATED_BASE + g, 0, 0)
            checked += 1
    assert checked > 4 * statements
    namespace = {}
    exec(code, namespace)
    assert namespace["run"](1) == [3, 1 + statements * (statements + 1) // 2]


def test_generated_line_is_read_back_from_a_frame():
    source = _source(3) + "def fails(v):\n    return v / 0\n"
    nodes = {g: Node(("user.py", 40 + g)) for g in range(1, source.count("\n") + 1)}
    code, _ = compile_at_user_lines(source, nodes, "<fallback>")
    namespace = {}
    exec(code, namespace)
    with pytest.raises(ZeroDivisionError) as info:
        namespace["fails"](1)
    tb = info.tb
    while tb.tb_next is not None:
        tb = tb.tb_next
    generated = source.count("\n")
    assert tb.tb_lineno == 40 + generated
    assert generated_line(tb.tb_frame.f_code, tb.tb_lasti, tb.tb_lineno) == generated
