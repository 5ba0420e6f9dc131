"""Staged control flow: `cond` and `while_loop`, each tracing its functions into subgraphs."""

from __future__ import annotations

import numpy as np

from runtime import ListType, TensorType, Value

from . import errors, nest
from .graph_building import FuncGraph, building, current_graph, record
from .source_map import where
from .tensor import Tensor, has_staged_value


# -- leaves ------------------------------------------------------------------

_PY_NUMBERS = (bool, int, float, complex)


def _is_tensor_array(x) -> bool:
    return getattr(type(x), "_is_tensor_array", False)


def _is_undefined(x) -> bool:
    """autograph's marker for a name with no value yet (class attribute `_is_undefined`)."""
    return getattr(type(x), "_is_undefined", False)


def _is_convertible(x) -> bool:
    return isinstance(x, (Tensor, np.ndarray, np.generic) + _PY_NUMBERS) or _is_tensor_array(x) \
        or has_staged_value(x)


def _leaf_type(x):
    """The graph type a leaf would have, and whether it is a weak Python scalar."""
    if isinstance(x, Tensor):
        return x.type, False
    if _is_tensor_array(x):
        return x._handle.type, False
    if has_staged_value(x):
        return TensorType(x.dtype, x.shape), False
    if isinstance(x, _PY_NUMBERS):
        return TensorType(np.result_type(type(x)) if type(x) is not bool else np.bool_, ()), True
    arr = np.asarray(x)
    return TensorType(arr.dtype, arr.shape), False


def _join_types(a, b, weak_a: bool, weak_b: bool, what: str):
    """The type a merged value takes, or raise naming `what`."""
    if isinstance(a, ListType) or isinstance(b, ListType):
        if not (isinstance(a, ListType) and isinstance(b, ListType)):
            raise errors.BranchMismatchError(f"{what} is a list in one case and a tensor in the other")
        if a.element is None or b.element is None:
            return ListType(a.element or b.element)
        joined = _join_types(a.element, b.element, False, False, f"the elements of {what}")
        return ListType(joined)
    dtype = a.dtype
    if a.dtype != b.dtype:
        if weak_a and not weak_b:
            dtype = b.dtype
        elif weak_b and not weak_a:
            dtype = a.dtype
        elif weak_a and weak_b:
            dtype = np.result_type(a.dtype, b.dtype)
        else:
            raise errors.BranchMismatchError(f"{what} has dtype {a.dtype.name} in one case and "
                                             f"{b.dtype.name} in the other; cast one of them explicitly")
    if len(a.shape) != len(b.shape):
        raise errors.BranchMismatchError(f"{what} has rank {len(a.shape)} ({a}) in one case and rank "
                                         f"{len(b.shape)} ({b}) in the other")
    shape = tuple(x if x == y else None for x, y in zip(a.shape, b.shape))
    return TensorType(dtype, shape)


def _value_in(graph: FuncGraph, leaf, target) -> Value:
    """`leaf` as a Value of `graph` with dtype `target.dtype` (recording a cast/const if needed)."""
    if _is_tensor_array(leaf):
        return graph.value_of(leaf._handle)
    if has_staged_value(leaf):
        with building(graph):
            leaf = leaf._staged_value()
    if isinstance(leaf, Tensor):
        value = graph.value_of(leaf)
        if value.type.dtype != target.dtype:
            with building(graph):
                return graph.value_of(record("astype", [leaf], {"dtype": target.dtype}))
        return value
    with building(graph):
        return record("const", [], {"value": np.asarray(leaf, dtype=target.dtype)[()]
                                    if np.ndim(leaf) == 0 else np.asarray(leaf, dtype=target.dtype)})._value


def _rebuild_leaf(template, tensor: Tensor):
    if _is_tensor_array(template):
        return template._with_handle(tensor)
    return tensor


def _align_captures(graphs: list[FuncGraph], leading: int) -> list[Value]:
    """Makes every graph's inputs [its first `leading` inputs] + [one per captured outer value],
    in the same order for all graphs; returns the outer values in that order."""
    order: list[Value] = []
    seen: set[int] = set()
    for g in graphs:
        for outer_value, _ in g.captures.values():
            if id(outer_value) not in seen:
                seen.add(id(outer_value))
                order.append(outer_value)
    for g in graphs:
        head = g.graph.inputs[:leading]
        head_names = g.graph.input_names[:leading]
        tail = []
        for outer_value in order:
            hit = g.captures.get(id(outer_value))
            tail.append(hit[1] if hit is not None else Value(outer_value.type))
        g.graph.inputs = head + tail
        g.graph.input_names = head_names + ["capture"] * len(tail)
    return order


def _name_of(names, index: int, path: str, default: str) -> str:
    top = names[index] if names is not None and index < len(names) else f"{default}[{index}]"
    return top + path


def _top_level_paths(structure, names, default):
    """[(display name, leaf)] for a tuple/list of top-level items."""
    out = []
    for i, item in enumerate(structure):
        for path, leaf in nest.flatten_with_paths(item):
            out.append((_name_of(names, i, path, default), leaf))
    return out


def _truth_value(graph: FuncGraph, c, what: str) -> Value:
    with building(graph):
        if not isinstance(c, Tensor):
            if has_staged_value(c):
                c = c._staged_value()
            else:
                return record("const", [], {"value": np.bool_(bool(c))})._value
        if c.type.shape != ():
            raise errors.SymbolicValueError(
                f"{where()}the {what} is a tensor of shape {c.type}, not a scalar: its truth value is "
                f"ambiguous; reduce it with .any() or .all()")
        if c.dtype != np.bool_:
            c = record("truth", [c])
        return graph.value_of(c)


# -- cond --------------------------------------------------------------------

def cond(pred, true_fn, false_fn, *, names=None):
    """`true_fn()` if pred else `false_fn()`; staged as one `cond` node when `pred` is symbolic.

    Both functions take no arguments and return the same nested structure.
    Tensors and numbers are merged; leaves identical (`is`) in both branches
    pass through unchanged.
    """
    if has_staged_value(pred) and current_graph() is not None:
        pred = pred._staged_value()
    if not isinstance(pred, Tensor):
        return true_fn() if pred else false_fn()
    outer = current_graph()
    if outer is None:
        outer = pred._graph  # raises the leaked-tensor error below
    pred_value = _truth_value(outer, pred, "condition of a staged `if`")

    branches = []
    for label, fn in (("then", true_fn), ("else", false_fn)):
        g = FuncGraph(label, outer=outer)
        g.function_name = outer.function_name
        with building(g):
            result = fn()
        branches.append((g, result))
    (tg, t_out), (eg, e_out) = branches

    if nest.structure_signature(t_out) != nest.structure_signature(e_out):
        path, a, b = _first_difference(t_out, e_out, names, "output")
        raise errors.BranchMismatchError(
            f"{where()}the branches of a staged `if` give {path} different structures: "
            f"{_describe_structure(a)} in the true branch and {_describe_structure(b)} in the false "
            f"branch")
    single = not isinstance(t_out, (tuple, list))
    t_items = [t_out] if single else list(t_out)
    e_items = [e_out] if single else list(e_out)
    t_leaves = _top_level_paths(t_items, names, "output")
    e_leaves = [leaf for _, leaf in _top_level_paths(e_items, names, "output")]

    merged, out_types = [], []
    for (name, a), b in zip(t_leaves, e_leaves):
        if a is b and not isinstance(a, Tensor) and not _is_tensor_array(a):
            merged.append(("static", a))
            continue
        if not (_is_convertible(a) and _is_convertible(b)):
            raise errors.BranchMismatchError(
                f"{where()}'{name}' is {_describe_leaf(a)} in the true branch and {_describe_leaf(b)} "
                f"in the false branch of a staged `if`; both branches must give it a tensor or number")
        ta, weak_a = _leaf_type(a)
        tb, weak_b = _leaf_type(b)
        try:
            joined = _join_types(ta, tb, weak_a, weak_b, f"'{name}'")
        except errors.BranchMismatchError as exc:
            raise errors.BranchMismatchError(f"{where()}{exc} (branches of a staged `if`)") from None
        merged.append(("dynamic", a if _is_tensor_array(a) else b if _is_tensor_array(b) else None))
        out_types.append(joined)

    dyn = [(a, b) for (_, a), b, (kind, _) in zip(t_leaves, e_leaves, merged) if kind == "dynamic"]
    tg.graph.outputs = [_value_in(tg, a, t) for (a, _), t in zip(dyn, out_types)]
    eg.graph.outputs = [_value_in(eg, b, t) for (_, b), t in zip(dyn, out_types)]
    operands = _align_captures([tg, eg], 0)
    outs = record("cond", [pred_value, *operands], {}, output_types=out_types,
                  subgraphs={"then": tg.graph, "else": eg.graph})
    tg.closed = eg.closed = True  # a tensor of a branch used later is a leak
    it = iter(outs)
    leaves = [next(it) if kind == "dynamic" else obj for kind, obj in merged]
    leaves = [_rebuild_leaf(obj, leaf) if kind == "dynamic" and obj is not None else leaf
              for (kind, obj), leaf in zip(merged, leaves)]
    rebuilt = nest.pack_as(t_items, leaves)
    return rebuilt[0] if single else type(t_out)(rebuilt) if not nest.is_namedtuple(t_out) else type(t_out)(*rebuilt)


def _describe_leaf(x) -> str:
    if isinstance(x, Tensor):
        return f"a tensor {x.type}"
    if x is None:
        return "None"
    if _is_undefined(x):
        return "undefined"
    return f"a {type(x).__name__} ({x!r:.40})"


def _describe_structure(s) -> str:
    if isinstance(s, (tuple, list)):
        return f"a {type(s).__name__} of {len(s)}"
    if isinstance(s, dict):
        return f"a dict with keys {sorted(map(str, s))}"
    return _describe_leaf(s)


def _first_difference(a, b, names, default):
    """(description of the place, its value in a, its value in b) where the structures of
    a and b first differ; top-level items of a tuple/list are named by `names`."""
    def walk(x, y, path):
        cx, cy = nest._children(x, None), nest._children(y, None)
        if cx is None or cy is None or type(x) is not type(y) or [p for p, _ in cx] != [p for p, _ in cy]:
            return path, x, y
        for (suffix, u), (_, v) in zip(cx, cy):
            if nest.structure_signature(u) != nest.structure_signature(v):
                return walk(u, v, path + suffix)
        return path, x, y

    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b):
        for i, (u, v) in enumerate(zip(a, b)):
            if nest.structure_signature(u) != nest.structure_signature(v):
                path, x, y = walk(u, v, "")
                return f"'{_name_of(names, i, path, default)}'", x, y
    return "the outputs", a, b


# -- while_loop --------------------------------------------------------------

def while_loop(cond, body, loop_vars, maximum_iterations=None, *, names=None, shape_invariants=None):
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`.

    Staged as one `while_loop` node when called while tracing. A loop
    variable whose shape changes is generalised (None dims) and the body
    traced again; a dtype change raises LoopVariableError (a Python number
    may widen, as it would in Python).
    """
    is_list = isinstance(loop_vars, list)
    loop_vars = tuple(loop_vars)
    outer = current_graph()
    if outer is None:
        return _eager_while(cond, body, loop_vars, maximum_iterations, is_list)

    flat = _top_level_paths(loop_vars, names, "loop_vars")
    kinds, types, weak, inits = [], [], [], []
    for name, leaf in flat:
        if _is_convertible(leaf) and not has_staged_value(leaf):
            t, w = _leaf_type(leaf)
            kinds.append("dynamic")
            types.append(t)
            weak.append(w)
            inits.append(leaf)
        else:
            kinds.append("static")
            types.append(None)
            weak.append(False)
            inits.append(leaf)
    if shape_invariants:
        _apply_shape_invariants(flat, types, shape_invariants)
    counter = maximum_iterations is not None

    for _attempt in range(64):
        cg, bg = _trace_loop(outer, cond, body, loop_vars, flat, kinds, types, counter,
                                           maximum_iterations)
        body_out = bg._loop_out
        changed = False
        out_leaves = _check_body_outputs(loop_vars, body_out, flat, kinds, names)
        new_types = list(types)
        for i, ((name, init), out) in enumerate(zip(flat, out_leaves)):
            if kinds[i] == "static" and _is_undefined(init) and _is_convertible(out) \
                    and not has_staged_value(out):
                # A name first assigned in the loop (e.g. a value returned from inside it): its
                # type comes from the body; before the first iteration it holds a zero of that
                # type, which converted code never reads (it tracks whether the name is set).
                kinds[i] = "dynamic"
                new_types[i], _ = _leaf_type(out)
                weak[i] = False
                inits[i] = _placeholder_value(new_types[i])
                flat[i] = (name, inits[i])
                changed = True
                continue
            if kinds[i] == "static":
                continue
            t_out, weak_out = _leaf_type(out) if _is_convertible(out) else (None, False)
            if t_out is None:
                raise errors.LoopVariableError(
                    f"{where()}loop variable '{name}' is a tensor before the loop but the loop body "
                    f"makes it {_describe_leaf(out)}")
            new = _generalise(types[i], t_out, weak[i], weak_out, name)
            if new != types[i]:
                new_types[i] = new
                changed = True
        if not changed:
            break
        cg.closed = bg.closed = True  # this attempt's tensors are discarded
        types = new_types
    else:  # pragma: no cover - each retrace loses at least one known dim, so this cannot loop
        raise errors.LoopVariableError(f"{where()}loop variable types did not settle")

    dyn_index = [i for i, k in enumerate(kinds) if k == "dynamic"]
    cg.graph.outputs = [cg._loop_cond]
    bg.graph.outputs = [_value_in(bg, out_leaves[i], types[i]) for i in dyn_index]
    init_values = [_value_in(outer, inits[i], types[i]) for i in dyn_index]
    if counter:
        bg.graph.outputs.append(bg._loop_counter_next)
        init_values.append(record("const", [], {"value": np.int64(0)})._value)
    nvars = len(init_values)
    captures = _align_captures([cg, bg], nvars)
    out_types = [types[i] for i in dyn_index] + ([TensorType(np.int64, ())] if counter else [])
    outs = record("while_loop", [*init_values, *captures], {"num_loop_vars": nvars},
                  output_types=out_types, subgraphs={"cond": cg.graph, "body": bg.graph})
    cg.closed = bg.closed = True  # a tensor of the loop body used after the loop is a leak
    it = iter(outs)
    leaves = []
    for i, (name, init) in enumerate(flat):
        if kinds[i] == "dynamic":
            leaves.append(_rebuild_leaf(init, next(it)))
        else:
            leaves.append(init)
    result = nest.pack_as(list(loop_vars), leaves)
    return result if is_list else tuple(result)


def _placeholder_value(t):
    if isinstance(t, ListType):
        raise errors.LoopVariableError(f"{where()}a list first created inside a staged loop cannot be "
                                       f"carried out of it; create it before the loop")
    return np.zeros(tuple(0 if d is None else d for d in t.shape), dtype=t.dtype)[()] if t.shape == () \
        else np.zeros(tuple(0 if d is None else d for d in t.shape), dtype=t.dtype)


def _trace_loop(outer, cond, body, loop_vars, flat, kinds, types, counter, maximum_iterations):
    graphs = []
    for label in ("cond", "body"):
        g = FuncGraph(label, outer=outer)
        g.function_name = outer.function_name
        placeholders = []
        for (name, init), kind, t in zip(flat, kinds, types):
            if kind == "dynamic":
                p = g.add_input(t, name)
                placeholders.append(_rebuild_leaf(init, p))
            else:
                placeholders.append(init)
        counter_in = g.add_input(TensorType(np.int64, ()), "iteration") if counter else None
        vars_ = nest.pack_as(list(loop_vars), placeholders)
        with building(g):
            if label == "cond":
                c = _truth_value(g, cond(*vars_), "condition of a staged `while`")
                if counter:
                    below = record("less", [counter_in, maximum_iterations])
                    c = g.value_of(record("logical_and", [below, Tensor(g, c)]))
                g._loop_cond = c
            else:
                out = body(*vars_)
                if len(loop_vars) == 1 and not isinstance(out, (tuple, list)):
                    out = (out,)
                g._loop_out = out
                if counter:
                    g._loop_counter_next = g.value_of(record("add", [counter_in, 1]))
        graphs.append(g)
    return graphs[0], graphs[1]


def _check_body_outputs(loop_vars, body_out, flat, kinds, names):
    if not isinstance(body_out, (tuple, list)) or len(body_out) != len(loop_vars):
        got = f"{len(body_out)} values" if isinstance(body_out, (tuple, list)) else _describe_leaf(body_out)
        raise errors.LoopVariableError(
            f"{where()}the loop body must return {len(loop_vars)} loop variables, got {got}")
    out_flat = _top_level_paths(tuple(body_out), None, "loop_vars")
    if nest.structure_signature(tuple(body_out)) != nest.structure_signature(loop_vars):
        path, a, b = _first_difference(tuple(loop_vars), tuple(body_out), names, "loop_vars")
        raise errors.LoopVariableError(
            f"{where()}the loop body changes the structure of loop variable {path}: "
            f"{_describe_structure(a)} before the loop, {_describe_structure(b)} after an iteration")
    outs = [leaf for _, leaf in out_flat]
    for ((name, init), kind, out) in zip(flat, kinds, outs):
        if kind == "static" and out is not init:
            if _is_undefined(init) and (_is_convertible(out) or _is_undefined(out)):
                continue  # given a type by the first body trace, see while_loop
            if _is_convertible(out) and init is None:
                raise errors.LoopVariableError(
                    f"{where()}loop variable '{name}' is {_describe_leaf(init)} before the staged loop "
                    f"and {_describe_leaf(out)} inside it; give it an initial value of the same dtype "
                    f"before the loop")
            if not (has_staged_value(init) and out is init):
                raise errors.LoopVariableError(
                    f"{where()}loop variable '{name}' is a Python {type(init).__name__} that the staged "
                    f"loop body changes ({_describe_leaf(init)} -> {_describe_leaf(out)}); only tensors "
                    f"and numbers can change in a staged loop")
    return outs


def _generalise(before, after, weak_before, weak_after, name):
    if isinstance(before, ListType) or isinstance(after, ListType):
        try:
            return _join_types(before, after, False, False, f"'{name}'")
        except errors.BranchMismatchError as exc:
            raise errors.LoopVariableError(f"{where()}loop variable {exc}") from None
    if before.dtype != after.dtype:
        if weak_after:
            after = TensorType(before.dtype, after.shape)
        elif weak_before and np.result_type(before.dtype, after.dtype) == after.dtype:
            before = TensorType(after.dtype, before.shape)
        else:
            raise errors.LoopVariableError(
                f"{where()}loop variable '{name}' changes dtype from {before.dtype.name} before the "
                f"loop to {after.dtype.name} in the loop body; cast it (e.g. .astype(np."
                f"{after.dtype.name})) before the loop so it keeps one dtype")
    if len(before.shape) != len(after.shape):
        raise errors.LoopVariableError(
            f"{where()}loop variable '{name}' changes rank from {before} to {after} in the loop body")
    return TensorType(before.dtype, tuple(a if a == b else None for a, b in zip(before.shape, after.shape)))


def _apply_shape_invariants(flat, types, shape_invariants):
    by_name = {}
    if isinstance(shape_invariants, dict):
        by_name = shape_invariants
    else:
        for var, shape in shape_invariants:
            for i, (_, leaf) in enumerate(flat):
                if leaf is var:
                    by_name[i] = shape
    for i, (name, _) in enumerate(flat):
        shape = by_name.get(name, by_name.get(i))
        if shape is not None and types[i] is not None:
            spec_shape = getattr(shape, "shape", shape)
            t = TensorType(types[i].dtype, spec_shape)
            if not t.is_supertype_of(types[i]):
                raise errors.LoopVariableError(
                    f"{where()}shape invariant {t} for loop variable '{name}' does not accept its "
                    f"initial value {types[i]}")
            types[i] = t


def _eager_while(cond, body, loop_vars, maximum_iterations, is_list):
    count = 0
    vars_ = loop_vars
    while maximum_iterations is None or count < maximum_iterations:
        if not cond(*vars_):
            break
        out = body(*vars_)
        if len(loop_vars) == 1 and not isinstance(out, (tuple, list)):
            out = (out,)
        vars_ = tuple(out)
        count += 1
    return list(vars_) if is_list else vars_
