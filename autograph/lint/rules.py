"""Rule codes, titles and message templates of the `autograph lint` checker."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Rule:
    """One lint rule: its code, a short name and what it catches."""

    code: str
    name: str
    summary: str
    fixable: bool = False


RULES: dict[str, Rule] = {
    rule.code: rule
    for rule in (
        Rule(
            "AG001",
            "outer-mutation",
            "mutation of a global, nonlocal or outer object inside a staged function",
        ),
        Rule(
            "AG002",
            "trace-time-print",
            "Python print in a function staged with autograph=False, or a logging call, inside a "
            "staged function",
            fixable=True,
        ),
        Rule(
            "AG003",
            "trace-time-random",
            "datetime / uuid / os / secrets / non-clock time calls (and, with autograph=False, random "
            "draws and clocks) evaluated once while tracing",
        ),
        Rule(
            "AG004",
            "unconditional-variable",
            "staging.Variable created unconditionally in a staged function",
        ),
        Rule(
            "AG005",
            "unrolled-loop",
            "for loop over a Python list / tuple / dict / NumPy array literal",
        ),
        Rule("AG006", "frozen-global", "read of a module-level name that the module reassigns"),
        Rule("AG007", "recursion", "a staged function that calls itself"),
        Rule(
            "AG008",
            "mutable-default",
            "mutable default argument of a staged function",
            fixable=True,
        ),
        Rule(
            "AG009",
            "leaked-tensor",
            "value computed in a staged function stored where it outlives the call",
        ),
        Rule(
            "AG010",
            "unsupported-construct",
            "yield, async, try/except or a NumPy run-time context around possibly symbolic "
            "control flow",
        ),
        Rule(
            "AG011",
            "retracing-argument",
            "staged function called in a loop with a changing Python number or a new object",
        ),
    )
}

# Code for a file that cannot be parsed: never filtered by --select / --ignore / noqa.
PARSE_ERROR = "AG000"

_DO_STATE = "return the value or keep the state in a staging.Variable"
_LEAK = (
    "it leaks a symbolic tensor out of the trace (using it after the call raises "
    "an error); return the value instead, or assign it to a staging.Variable"
)

MESSAGES: dict[str, str] = {
    # AG001: kind is "global" / "nonlocal"; target names the mutated thing.
    "AG001-assign": (
        "{kind} '{name}' is assigned in staged function '{func}': the assignment "
        "runs only while tracing, not on every call; " + _DO_STATE
    ),
    "AG001-object": (
        "outer object '{name}' is mutated by {how} in staged function '{func}': "
        "the mutation runs only while tracing, not on every call; " + _DO_STATE
    ),
    "AG001-argument": (
        "argument '{name}' is mutated by {how} in staged function '{func}': a staged function "
        "gets the items of a list, dict or set passed in, so the caller's container would "
        "never change (the trace is refused); return the new items instead"
    ),
    "AG002-print-noautograph": (
        "print() in staged function '{func}' (autograph=False) runs only while tracing, not on "
        "every call; use staging.print(...) to print on every call"
    ),
    "AG002-logging": (
        "logging call '{name}' in staged function '{func}' runs only while "
        "tracing, not on every call; use staging.print(...) to report on every "
        "call"
    ),
    "AG003": (
        "'{name}' in staged function '{func}' is evaluated once while tracing and baked "
        "into the graph as a constant; pass the value in as an argument instead"
    ),
    "AG003-noautograph": (
        "'{name}' in staged function '{func}' (autograph=False) is evaluated once while tracing "
        "and baked into the graph as a constant; with autograph (the default), random draws and "
        "clock reads run on every call"
    ),
    "AG004": (
        "staging.Variable created unconditionally in staged function '{func}': the next "
        "trace creates another one and raises ValueError; create it once outside the "
        "function, or under 'if self.v is None:'"
    ),
    "AG005": (
        "for loop over {what} in staged function '{func}' is unrolled while tracing (one "
        "copy of the body per element); pass the values in as an array so the loop is "
        "staged, or add '# noqa: AG005' if unrolling is intended"
    ),
    "AG006": (
        "staged function '{func}' reads module-level '{name}', which is reassigned at "
        "line {line}: the value is frozen at trace time and later changes are ignored; "
        "pass it as an argument or keep it in a staging.Variable"
    ),
    "AG007": (
        "staged function '{func}' calls itself: recursion of a staged function is "
        "rejected at trace time; rewrite it as a loop"
    ),
    "AG008": (
        "mutable default argument '{name}' of staged function '{func}' is created once "
        "and shared by every call and trace; default it to None and create the value "
        "in the body"
    ),
    "AG009-global": "staged function '{func}' stores a computed value in {kind} '{name}': " + _LEAK,
    "AG009-object": (
        "staged function '{func}' stores a computed value in outer object "
        "'{name}' by {how}: " + _LEAK
    ),
    "AG010-yield": (
        "'{name}' in staged function '{func}': generators are rejected by the "
        "converter; return a list or a staging.TensorArray instead"
    ),
    "AG010-async": (
        "staged function '{func}' is 'async def', which the converter rejects; "
        "make it a plain 'def'"
    ),
    "AG010-block": (
        "'{name}' around control flow on '{var}', which may be symbolic: staged, it "
        "runs when the graph runs, after the '{name}' block has finished while "
        "tracing, so the block would not apply to it and the staged function is "
        "refused; move the if/while/for out of the '{name}' block"
    ),
    "AG011-number": (
        "staged function '{func}' is called in a loop with '{name}', a Python number "
        "that changes on every iteration: Python numbers are trace keys by value, so "
        "every iteration traces '{func}' again; pass a NumPy value instead, such as "
        "np.asarray({name})"
    ),
    "AG011-object": (
        "staged function '{func}' is called in a loop with a new {what} on every "
        "iteration: objects are trace keys by identity, so every iteration traces "
        "'{func}' again; create it once before the loop, or pass its numbers as NumPy "
        "values"
    ),
}


def message(key: str, **fields: object) -> str:
    """Format the message template `key` (a code, or a code plus a variant)."""
    return MESSAGES[key].format(**fields)


def expand_codes(spec: str | list[str] | tuple[str, ...] | None) -> frozenset[str] | None:
    """Turn a comma-separated list of codes or code prefixes into the set of rule codes.

    Raises ValueError on an item that matches no rule.
    """
    if spec is None:
        return None
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    codes: set[str] = set()
    for item in items:
        item = item.strip().upper()
        if not item:
            continue
        matched = {code for code in RULES if code.startswith(item)}
        if not matched:
            raise ValueError(f"unknown rule code {item!r} (known: {', '.join(RULES)})")
        codes |= matched
    return frozenset(codes)
