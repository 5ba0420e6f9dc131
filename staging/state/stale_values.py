"""Values an in-place write makes stale: aliases that staged control flow hides from view tracking.

staging.state.aliasing rebinds a written tensor and its tracked views. Other tensors may still be the
same array eagerly: a value that passed through a staged `if` or loop may be an array from
before it (`if c: z = y` passes `y` through), and a loop variable written in place inside a
staged loop is, eagerly, the loop's initial array itself. So after a write every value the
written array may be, or be a view of (`sources`), is recorded as overwritten for the rest of
the trace, and using a tensor whose value may be one of them raises MutationError (check_use,
which FuncGraph.value_of calls once the trace has written in place).

A write into a loop variable inside a staged loop body is resolved once the loop node exists
(`pending`): the loop's initial array is overwritten, and the loop is refused when that array
is an argument, or shares memory with another loop variable or with an array the loop reads
(eagerly they would see each other's writes; the staged loop carries separate values).
"""

from __future__ import annotations

from runtime.registry import get_op
from staging import errors
from staging.core.source_map import user_names, where


def describe(tensor, fallback: str = "this array") -> str:
    """'name' of `tensor` in the user's code, for messages."""
    names = user_names(tensor)
    return f"'{names[0]}'" if names else fallback


def _views_input(node) -> bool:
    """Whether `node`'s output is (NumPy-wise) a view of its first input (OpDef.views_input)."""
    views = get_op(node.op).views_input
    return views is not None and views(node)


def sources(value, final=None):
    """`value`, then every value it may be or be a view of: through view ops, through the
    outputs of staged `if`s and loops (into their subgraphs) and back out through the values
    their subgraph inputs stand for. Values in `final` (ids) are not followed further: a loop's
    output for a variable the loop wrote in place holds the array after those writes."""
    for v, _ in _walk(value, final, False):
        yield v


def _walk(value, final, paths: bool):
    """(value, via) for sources(): `via` the (id(node), label) of each staged `if` branch passed
    on the way (with `paths`; else ()), a value reached by two ways given once per way."""
    stack = [(value, None, ())]
    seen = set()
    while stack:
        v, bound, via = stack.pop()
        key = (id(v), via) if paths else id(v)
        if key in seen or not hasattr(v, "producer"):
            continue
        seen.add(key)
        yield v, via
        if final and id(v) in final:
            continue
        node = v.producer
        if node is None:
            if bound is not None and id(v) in bound:
                stack.append(bound[id(v)])
        elif node.subgraphs:
            op = get_op(node.op)
            for label, source in op.output_sources(node, v.index):
                if label is None:
                    stack.append((source, bound, via))
                else:
                    sub = node.subgraphs[label]
                    branch = paths and op.predicate is not None  # (a staged `if`'s branch)
                    inside = via + ((id(node), label),) if branch else via
                    inner = {
                        id(a): (b, bound, inside)
                        for a, b in zip(sub.inputs, op.bind_subgraph(node, label))
                    }
                    stack.append((source, inner, inside))
        elif _views_input(node):
            stack.append((node.inputs[0], bound, via))


def _ids(value, final=None) -> set:
    return {id(v) for v in sources(value, final)}


def argument_label(name: str) -> str:
    """'argument x' for an input named after a parameter; generated names say less."""
    return (
        f"argument '{name}'" if name.isidentifier() and not name.startswith("_") else "an argument"
    )


def _is_argument(fg, value) -> bool:
    """Whether `value`, of the graph `fg` is building, is an argument itself (through captures
    into staged `if` and loop bodies), not a value that may be one on some paths."""
    while value.producer is None and fg.outer is not None:
        outer = next((o for o, inner in fg.captures.values() if inner is value), None)
        if outer is None:
            return False
        value, fg = outer, fg.outer
    return value.producer is None and fg.outer is None


def argument_of(fg, value) -> str | None:
    """The input name when `value` may be (a view of) an argument of the staged function whose
    trace `fg` belongs to, through staged control flow; else None."""
    top = fg
    while top.outer is not None:
        top = top.outer
    inputs = top.graph.inputs
    for v in sources(value):
        if v.producer is None:
            for i, x in enumerate(inputs):
                if x is v:
                    return top.graph.input_names[i] or "?"
    return None


def _graph_of_input(fg, value):
    """The FuncGraph (fg or one enclosing it) that has `value` as an input, or None."""
    g = fg
    while g is not None:
        if any(v is value for v in g.graph.inputs):
            return g
        g = g.outer
    return None


def mark_final(fg, value) -> None:
    """`value` holds an array after its writes (the merged result of a staged `if` or loop that
    wrote it in place): it is not followed back to the arrays it came from."""
    fg.trace_state.setdefault("final", {})[id(value)] = value


def mark_overwritten(fg, old_value, loc: str, unless=None) -> None:
    """Records that the array `old_value` (a value of `fg` or a graph enclosing it) stood for
    was written in place at `loc`. `unless`: (id(cond node), label) of a staged `if` branch on
    which the write did not happen (a value reaching the array only through that branch came
    from a path without it)."""
    state = fg.trace_state
    state["check_use"] = check_use
    over = state.setdefault("overwritten", {})
    for v in sources(old_value, state.get("final")):
        known = over.get(id(v))
        if known is None or (known[2] is not None and unless is None):
            over[id(v)] = (v, loc, unless)
        if v.producer is None:
            owner = _graph_of_input(fg, v)
            if owner is not None and owner.outer is not None and owner.name in ("cond", "body"):
                state.setdefault("pending", []).append((owner, owner.graph.inputs.index(v), loc))


def _loop_node(fg):
    """The staged loop node whose subgraph `fg` traced, once it exists."""
    if fg.outer is None:
        return None
    return next(
        (
            n
            for n in reversed(fg.outer.graph.nodes)
            if any(s is fg.graph for s in n.subgraphs.values())
        ),
        None,
    )


def _check_loop(node, position: int, name: str, loc: str) -> None:
    """Refuses a loop that writes loop variable `position` in place when, eagerly, another array
    of the loop would be that same memory."""
    nvars = node.attrs["num_loop_vars"]
    start = _ids(node.inputs[position])
    names = node.subgraphs["body"].input_names

    def refuse(why):
        raise errors.MutationError(
            f"{loc}: the staged loop writes in place into loop variable '{name}', but {why}: eagerly "
            f"they are one array and see each other's writes, while the staged loop carries separate "
            f"values. Copy one of them (`.copy()`), or rebind instead of writing in place"
        )

    others_k = [k for k in range(nvars) if k != position and not _return_value(names[k])]
    for k in others_k:
        if start & _ids(node.inputs[k]):
            refuse(f"'{names[k]}' starts as the same array (or a view of it)")
    if any(start & _ids(c) for c in node.inputs[nvars:]):
        refuse(f"the loop also reads an array from before it that shares memory with '{name}'")
    body = node.subgraphs["body"]
    ends = _ids(body.outputs[position])
    others = {id(v) for i, v in enumerate(body.inputs) if i != position}
    if ends & others:
        refuse(
            f"at the end of an iteration '{name}' is another loop variable or an array from "
            f"outside the loop (or a view of one)"
        )
    for k in others_k:
        if ends & _ids(body.outputs[k]):
            refuse(f"at the end of an iteration '{names[k]}' is the same array (or a view of it)")


def _return_value(name: str) -> bool:
    """Whether loop variable `name` is the function's return value (autograph's display name):
    set by a `return` in the loop, after which no iteration runs and no code of the function
    but the return itself, and unread on the paths that do not set it. That it is an array
    another loop variable also is cannot show."""
    return name == "return value" or name.startswith(("return value[", "return value."))


def _resolve_pending(state: dict) -> None:
    """Loop variables written in place inside staged loops whose loop node now exists: their
    initial arrays are overwritten (eagerly the loop wrote into those very arrays). Resolving
    one may add another: a loop nested in a loop writes the outer loop's variable too."""
    while state.get("pending"):
        pending, state["pending"] = state["pending"], []
        left, resolved = [], False
        for fg, position, loc in pending:
            node = _loop_node(fg)
            if node is None:
                if not fg.closed:
                    left.append((fg, position, loc))  # the loop is still being traced
                continue  # else a discarded attempt (the loop was traced again with other types)
            resolved = True
            if position >= node.attrs.get("num_loop_vars", 0):
                continue
            name = fg.graph.input_names[position] or "?"
            arg = argument_of(fg, node.inputs[position])
            if arg is not None and not _is_argument(fg.outer, node.inputs[position]):
                # (the argument itself is written back into the caller's array: staging.functions.argument_writes)
                raise errors.MutationError(
                    f"{loc}: the staged loop writes in place into loop variable '{name}', which starts as "
                    f"{argument_label(arg)} (or a view of one): eagerly this modifies the caller's array, "
                    f"which a staged function does not do. Copy it before the loop: `{name} = {name}.copy()`"
                )
            _check_loop(node, position, name, loc)
            mark_overwritten(fg.outer, node.inputs[position], loc)
            out = node.outputs[position]
            state.setdefault("final", {})[id(out)] = out
        state["pending"] = left + state["pending"]
        if not resolved:
            return


def check_use(tensor) -> None:
    """Raises when `tensor` may be an array an in-place write has changed, but does not show the
    write: a stale maybe-view (staging.state.aliasing), or a value that may be (a view of) a written
    array through staged control flow."""
    alias = tensor._alias
    if alias is not None and alias.stale is not None:
        raise errors.MutationError(f"{where()}{alias.stale}")
    state = tensor._graph.trace_state
    _resolve_pending(state)
    over = state.get("overwritten")
    if not over:
        return
    for v, via in _walk(tensor._value, state.get("final"), True):
        hit = over.get(id(v))
        if hit is not None and hit[0] is v and hit[2] not in via:
            raise errors.MutationError(
                f"{where()}{describe(tensor)} may be the same array as one written in place at {hit[1]} "
                f"(it passed through a staged `if` or loop, or is a loop's initial array): eagerly it "
                f"would show that write, the staged value does not. Copy it before the write "
                f"(`.copy()`), or use the written array"
            )
