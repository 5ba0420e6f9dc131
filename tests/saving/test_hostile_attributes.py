"""Every attribute of a loaded node is checked when the file is loaded, never when the function is
called; text from a file is never a format string. Each hostile file is a LoadError naming the
node and the attribute."""

import copy
import importlib.util
import json
import time
import tracemalloc
import zipfile

import numpy as np
import pytest

import staging
from staging import errors
from staging.errors import LoadError
from staging.saving import archive

var = staging.Variable(np.arange(3.0), name="v")


def corpus_function(x, n, buf):
    """Nodes with attributes of every kind the checks know: ints and tuples of them, bools,
    dtypes, strings, an index, print and assert parts, a Variable, a Python type, lists."""
    buf[0] = 7.0  # (a write into an argument: the distinct_arrays check)
    y = np.sum(x.reshape(3, 2), axis=1, keepdims=False).astype(np.float32)
    z = np.transpose(x.reshape(2, 3), (1, 0))[1:, ::2]
    assert y.sum() > -1e9, "finite"
    print("y is", y)
    var.assign_add(np.ones(3))
    items = []
    for i in range(n):
        items.append(np.clip(x[i], -1.0, 1.0))
    m = int(np.max(x))
    s = np.sort(x, kind="stable")
    return y, z, np.stack(items), m, s, buf.shape[0], np.pad(x, 1, mode="edge")


SPECS = (
    staging.TensorSpec([6], np.float64),
    staging.TensorSpec([], np.int64),
    staging.TensorSpec([None], np.float64),
)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "corpus.stg"
    staging.save(staging.function(corpus_function), path, signatures=[SPECS])
    with zipfile.ZipFile(path) as zf:
        document = json.loads(zf.read(archive.JSON_ENTRY))
        entries = {n: zf.read(n) for n in zf.namelist()}
    return path, document, entries


def write(tmp_path, document, entries, name="h.stg"):
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(archive.JSON_ENTRY, json.dumps(document))
        for entry, data in entries.items():
            if entry != archive.JSON_ENTRY:
                zf.writestr(entry, data)
    return path


def nodes(graph):
    for node in graph["nodes"]:
        yield node
        for _, sub in node["subgraphs"]:
            yield from nodes(sub)


def all_nodes(document):
    for function in document["functions"]:
        yield from nodes(function["graph"])


def with_node(document, op, change):
    """A copy of `document` with `change(node)` applied to its first node of `op`."""
    document = copy.deepcopy(document)
    node = next(n for n in all_nodes(document) if n["op"] == op)
    change(node)
    return document


def load_error(path) -> str:
    with pytest.raises(LoadError) as caught:
        staging.load(path)
    return str(caught.value)


def test_the_corpus_loads_and_runs(saved):
    path, document, _ = saved
    ops = {n["op"] for n in all_nodes(document)}
    assert {"assert", "print", "distinct_arrays", "dim", "getitem", "astype", "sum"} <= ops
    loaded = staging.load(path)
    out = loaded(np.arange(6.0), np.int64(2), np.zeros(3))
    np.testing.assert_array_equal(out[0], np.array([1.0, 5.0, 9.0], np.float32))


# -- format strings ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        "{0.__init__.__globals__}",  # reads objects reachable from the graph
        "{0.__class__.__mro__} {1}",
        "{1:>400000000}",  # allocates 400 MB
        "x" + "{!r}{!r}" + "{2}",
    ],
)
def test_a_message_from_a_file_is_not_formatted(saved, tmp_path, message):
    _, document, entries = saved
    hostile = with_node(document, "distinct_arrays", lambda n: n["attrs"].update(message=message))
    text = load_error(write(tmp_path, hostile, entries))
    assert "(distinct_arrays): its message is not the message staging writes" in text


def test_a_message_that_only_ends_like_ours_is_refused(saved, tmp_path):
    _, document, entries = saved
    node = next(n for n in all_nodes(document) if n["op"] == "distinct_arrays")
    ours = node["attrs"]["message"]
    tail = ours[ours.index(" writes in place") :]
    for head in ("{0.__class__}", "{{x}", "}{"):
        hostile = with_node(
            document, "distinct_arrays", lambda n, h=head: n["attrs"].update(message=h + tail)
        )
        assert "its message is not the message staging writes" in load_error(
            write(tmp_path, hostile, entries)
        )


def test_a_saved_message_with_braces_in_its_text_works(tmp_path, monkeypatch):
    """The function's file name may hold braces: they are escaped in the message, which loads
    and gives the eager text."""
    source = tmp_path / "we{ir}d {0} mod.py"
    source.write_text("def scale(x, y):\n    x *= 2.0\n    return x + y\n")
    spec = importlib.util.spec_from_file_location("weird_mod", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    f = staging.function(module.scale)
    f.get_concrete_function(np.ones(3), np.ones(3))
    staging.save(f, tmp_path / "s.stg")
    loaded = staging.load(tmp_path / "s.stg")
    a = np.ones(3)
    with pytest.raises(errors.MutationError) as caught:
        loaded(a, a)
    assert (
        "we{ir}d {0} mod.py:1: the staged function 'scale' writes in place into argument 'x'"
        in str(caught.value)
    )
    assert "and argument 'y' shares memory with it" in str(caught.value)


def test_a_hostile_message_allocates_nothing(saved, tmp_path):
    _, document, entries = saved
    hostile = with_node(
        document, "distinct_arrays", lambda n: n["attrs"].update(message="{1:>400000000}")
    )
    path = write(tmp_path, hostile, entries)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        load_error(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20 and time.perf_counter() - start < 30


# -- attribute kinds ---------------------------------------------------------------------------

HOSTILE_ATTRIBUTES = {
    "assert error is a string": (
        "assert",
        lambda a: a.update(error="boom"),
        "(assert): attribute 'error' must be AssertionError or an error class of staging.errors, "
        "not str 'boom'",
    ),
    "assert parts hold a number": (
        "assert",
        lambda a: a.update(parts={"t": "tuple", "items": [{"t": "float", "v": "1.5"}]}),
        "(assert): attribute 'parts' must be a tuple of (a string or an argument slot)",
    ),
    "assert parts with a slot too many": (
        "assert",
        lambda a: a.update(parts={"t": "tuple", "items": [{"t": "arg_slot"}]}),
        "(assert): its message has 1 argument slots for 0 inputs",
    ),
    "dim with a string axis": (
        "dim",
        lambda a: a.update(axis="0"),
        "(dim): attribute 'axis' must be an int, not str '0'",
    ),
    "dim without its axis": ("dim", lambda a: a.clear(), "(dim): it lacks attribute(s) 'axis'"),
    "print sep is a number": (
        "print",
        lambda a: a.update(sep=5),
        "(print): attribute 'sep' must be a string, not int 5",
    ),
    "print parts without the slot": (
        "print",
        lambda a: a.update(parts={"t": "tuple", "items": ["y is"]}),
        "(print): its message has 0 argument slots for 1 inputs",
    ),
    "distinct_arrays names too few": (
        "distinct_arrays",
        lambda a: a.update(names={"t": "tuple", "items": ["x"]}),
        "(distinct_arrays): it names 1 arguments for 3 inputs",
    ),
    "distinct_arrays written too many": (
        "distinct_arrays",
        lambda a: a.update(written=5),
        "(distinct_arrays): it checks 5 written arrays of 3 inputs",
    ),
    "distinct_arrays written as a bool": (
        "distinct_arrays",
        lambda a: a.update(written=True),
        "(distinct_arrays): attribute 'written' must be an int, not bool True",
    ),
    "getitem index with code": (
        "getitem",
        lambda a: a.update(index={"t": "tuple", "items": ["__import__('os')"]}),
        "(getitem): attribute 'index' must be a tuple of (None, an int, '...', '?' or a slice",
    ),
    "getitem index as a list": (
        "getitem",
        lambda a: a.update(index={"t": "list", "items": [0]}),
        "(getitem): attribute 'index' must be a tuple of",
    ),
    "sum keepdims as an int": (
        "sum",
        lambda a: a.update(keepdims=1),
        "(sum): attribute 'keepdims' must be a bool, not int 1",
    ),
    "astype dtype as a string": (
        "astype",
        lambda a: a.update(dtype="float32"),
        "(astype): attribute 'dtype' must be None or a dtype, not str 'float32'",
    ),
    "python_number kind as a dtype": (
        "python_number",
        lambda a: a.update(kind={"t": "dtype", "name": "int64"}),
        "(python_number): attribute 'kind' must be bool, int, float or complex",
    ),
    "assign_variable mode": (
        "assign_variable",
        lambda a: a.update(mode="delete"),
        "(assign_variable): attribute 'mode' must be 'set' or 'add' or 'sub', not str 'delete'",
    ),
    "while_loop without its loop variables' count": (
        "while_loop",
        lambda a: a.clear(),
        "(while_loop): it lacks attribute(s) 'num_loop_vars'",
    ),
    "while_loop with another attribute": (
        "while_loop",
        lambda a: a.update(catch=1),
        "(while_loop): op 'while_loop' has no attribute 'catch'",
    ),
    "an attribute the op does not take": (
        "dim",
        lambda a: a.update(keepdims=True),
        "(dim): op 'dim' has no attribute 'keepdims'",
    ),
    "an attribute no op takes": (
        "sum",
        lambda a: a.update(command="rm -rf /"),
        "(sum): op 'sum' has no attribute 'command'",
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_ATTRIBUTES))
def test_hostile_attributes(name, saved, tmp_path):
    _, document, entries = saved
    op, change, message = HOSTILE_ATTRIBUTES[name]
    hostile = with_node(document, op, lambda n: change(n["attrs"]))
    text = load_error(write(tmp_path, hostile, entries))
    assert message in text, text


def test_every_attribute_of_every_node_is_checked(saved, tmp_path):
    """Each attribute in turn replaced by a value of another kind: every one is a LoadError."""
    _, document, entries = saved
    wrong = {bool: 2, int: "0", str: 1, dict: "x", list: "x", type(None): "x"}
    tried = 0
    for k, node in enumerate(all_nodes(document)):
        for name, value in node["attrs"].items():
            for replacement in (wrong[type(value)], {"t": "ellipsis"}):
                hostile = copy.deepcopy(document)
                list(all_nodes(hostile))[k]["attrs"][name] = replacement
                text = load_error(write(tmp_path, hostile, entries))
                assert f"({node['op']})" in text, text
                tried += 1
    assert tried >= 30


def _scaled(x):
    return x.astype(np.float64) * 2.0


def _caller(x):
    return inner(x) + 1.0


inner = staging.function(_scaled)


def test_a_call_calls_a_function_of_the_file_with_what_it_takes(tmp_path):
    outer = staging.function(_caller)
    outer.get_concrete_function(staging.TensorSpec([3], np.float64))
    path = tmp_path / "calls.stg"
    staging.save(outer, path)
    with zipfile.ZipFile(path) as zf:
        document = json.loads(zf.read(archive.JSON_ENTRY))
        entries = {n: zf.read(n) for n in zf.namelist()}
    np.testing.assert_array_equal(staging.load(path)(np.ones(3)), np.full(3, 3.0))
    not_a_function = with_node(document, "call", lambda n: n["attrs"].update(fn=5))
    assert "(call): attribute 'fn' must be a staged function of the file, not int 5" in (
        load_error(write(tmp_path, not_a_function, entries))
    )
    without = with_node(document, "call", lambda n: n["attrs"].clear())
    assert "(call): it lacks attribute(s) 'fn'" in load_error(write(tmp_path, without, entries))
    other_types = copy.deepcopy(document)
    other_types["functions"][0]["graph"]["inputs"][0]["type"]["dtype"] = "float32"
    assert "passes inputs of other types than it takes" in load_error(
        write(tmp_path, other_types, entries)
    )
