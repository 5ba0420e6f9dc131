"""Looking at staged functions: to_code of a Function, the expected signature in a mismatch,
tracing_count of staged methods, repr and pictures (DOT) of graphs."""

from __future__ import annotations

import functools
import shutil
import warnings

import numpy as np
import pytest

import autograph
import staging
from runtime import Graph
from runtime.dot import GraphvizNotFoundError, to_dot, to_svg
from staging import TensorSpec


def nested(x, n):
    total = x * 0.0
    for i in range(n):
        if x.sum() > i:
            total = total + x
        else:
            total = total - 1.0
    return total


NESTED_SPECS = (TensorSpec([None], np.float64), TensorSpec([], np.int64))


class Model:
    def __init__(self, w):
        self.w = w

    @staging.function
    def apply(self, x):
        if x.sum() > 0:
            return x * self.w
        return x


# -- to_code ---------------------------------------------------------------------------


def test_to_code_of_a_function_and_of_a_staged_method():
    expected = autograph.to_code(nested)
    assert autograph.to_code(staging.function(nested)) == expected
    method_code = autograph.to_code(Model.apply.python_function)
    assert "ag__.if_stmt" in method_code
    assert autograph.to_code(Model.apply) == method_code  # through the class
    assert autograph.to_code(Model(2.0).apply) == method_code  # bound to an instance
    assert autograph.to_code(functools.partial(staging.function(nested), n=3)) == expected
    assert autograph.to_code(autograph.convert(nested)) == expected


def test_to_code_of_something_else_names_what_it_got():
    with pytest.raises(
        TypeError, match="expects a Python function, a method or a staging.Function, got int"
    ):
        autograph.to_code(3)


# -- calls matching no concrete function -----------------------------------------------------


def test_input_signature_mismatch_shows_the_signature_and_the_callers_line():
    @staging.function(input_signature=[TensorSpec([None], np.float32), TensorSpec([], np.int64)])
    def scaled(x, n):
        return x * n

    with pytest.raises(TypeError) as info:
        scaled(np.zeros((2, 2), np.float32), np.int64(1))
    message = str(info.value)
    assert message.startswith(f"{__file__}:")
    assert (
        "scaled(): argument 'x' is f32[2,2], which input_signature f32[?] does not accept"
        in message
    )
    assert message.endswith("the input_signature is scaled(x: f32[?], n: i64[])")


def test_input_signature_mismatch_names_the_line_of_the_call():
    @staging.function(input_signature=[TensorSpec([3], np.float64)])
    def three(x):
        return x

    def call():
        return three(np.ones(4))

    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value).startswith(
        f"{__file__}:{call.__code__.co_firstlineno + 1}: three(): argument 'x'"
    )


def test_concrete_function_mismatch_prints_its_signature():
    cf = staging.function(nested).get_concrete_function(*NESTED_SPECS)
    with pytest.raises(TypeError) as info:
        cf(np.ones((2, 2)), np.int64(1))
    assert "nested(x, n)\n  Args:\n    x: f64[?]\n    n: i64[]" in str(info.value)


# -- tracing_count of staged methods ---------------------------------------------------------


def test_class_level_tracing_count_is_the_total_over_instances():
    class Counter:
        @staging.function
        def apply(self, x):
            return x + 1.0

    assert Counter.apply.tracing_count == 0
    a, b = Counter(), Counter()
    a.apply(np.ones(2))
    assert a.apply.tracing_count == 1 and Counter.apply.tracing_count == 1
    b.apply(np.ones(2))
    b.apply(np.ones(3))
    assert b.apply.tracing_count == 2 and a.apply.tracing_count == 1
    assert Counter.apply.tracing_count == 3
    assert Counter.apply.experimental_get_tracing_count() == 3
    del a, b  # traces of instances that are gone still count: they were made
    assert Counter.apply.tracing_count == 3
    c = Counter()
    Counter.apply(c, np.ones(2))  # through the class, with the instance as an argument
    assert Counter.apply.tracing_count == 4
    assert c.apply.tracing_count == 0


# -- graphs: repr and DOT --------------------------------------------------------------------


def test_repr_of_a_graph():
    cf = staging.function(nested).get_concrete_function(*NESTED_SPECS)
    text = repr(cf.graph)
    assert text.startswith("<runtime.Graph nested(f64[?], i64[]) -> (f64[?]): ")
    top = len(cf.graph.nodes)
    inner = sum(1 for _ in cf.graph.walk()) - top
    assert text.endswith(f": {top} nodes, {inner} more in subgraphs>") and inner > 0
    assert repr(Graph("empty")) == "<runtime.Graph empty() -> (): 0 nodes>"


def _parse_dot(text):
    """The DOT text parsed by a real parser: pydot (the `test` extra), else Graphviz's `dot`."""
    try:
        import pydot
    except ImportError:
        pydot = None
    if pydot is not None:
        with warnings.catch_warnings():  # pydot's parser uses deprecated pyparsing names
            warnings.simplefilter("ignore", DeprecationWarning)
            graphs = pydot.graph_from_dot_data(text)
        assert graphs and len(graphs) == 1
        return graphs[0]
    if shutil.which("dot") is None:
        pytest.skip("neither pydot nor Graphviz is installed to parse DOT")
    import subprocess

    result = subprocess.run(
        ["dot", "-Tcanon"], input=text, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return None


def _clusters(graph, depth=0):
    """(depth, label) of every cluster, outer first (pydot graph)."""
    found = []
    for sub in graph.get_subgraphs():
        if sub.get_name().startswith("cluster_"):
            found.append((depth, sub.get_label().strip('"')))
            found += _clusters(sub, depth + 1)
    return found


def _labels(graph):
    labels = [n.get_label().strip('"') for n in graph.get_nodes() if n.get_label()]
    for sub in graph.get_subgraphs():
        labels += _labels(sub)
    return labels


def test_dot_draws_subgraphs_as_nested_clusters():
    cf = staging.function(nested).get_concrete_function(*NESTED_SPECS)
    text = cf.graph.to_dot()
    assert text == to_dot(cf.graph) == cf.graph.to_dot()  # deterministic
    parsed = _parse_dot(text)
    if parsed is None:
        return
    line = nested.__code__.co_firstlineno
    clusters = _clusters(parsed)
    assert clusters[0] == (0, f"while_loop at test_introspection.py:{line + 2}")
    assert (1, "cond") in clusters and (1, "body") in clusters
    assert (2, f"cond at test_introspection.py:{line + 3}") in clusters  # the `if`, inside the body
    assert (3, "then") in clusters and (3, "else") in clusters
    labels = _labels(parsed)
    # op, output types and the user's line
    assert f"add\\nf64[?]\\ntest_introspection.py:{line + 4}" in labels
    assert f"subtract (1.0)\\nf64[?]\\ntest_introspection.py:{line + 6}" in labels
    assert "graph output 0: f64[?]" in labels
    edges = parsed.get_edges()
    assert edges and all(e.get_source() and e.get_destination() for e in edges)


def test_dot_quotes_labels():
    g = Graph('say "hi"\\')
    g.outputs = ['a "quoted"\nvalue']
    parsed = _parse_dot(g.to_dot())
    if parsed is not None:
        assert parsed.get_name().strip('"') == 'say \\"hi\\"\\\\'


def test_svg_without_graphviz_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    cf = staging.function(nested).get_concrete_function(*NESTED_SPECS)
    with pytest.raises(
        GraphvizNotFoundError, match="Graphviz's `dot` program, which is not on PATH"
    ):
        to_svg(cf.graph)
    assert cf.graph._repr_svg_() is None
    html = cf.graph._repr_html_()
    assert html.startswith("<pre>nested(a:f64[?], b:i64[]) {") and "&lt;" not in html[:20]


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_svg_with_graphviz():
    cf = staging.function(nested).get_concrete_function(*NESTED_SPECS)
    svg = cf.graph._repr_svg_()
    assert "<svg" in svg and "while_loop" in svg
    assert cf.graph._repr_html_() == svg
