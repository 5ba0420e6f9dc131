"""assert_stmt, new_error, raise_value: `assert` and `raise` in converted code.

`assert test, msg` becomes `ag__.assert_stmt(test, lambda: msg)`: Python's assert on a concrete
test, a staged assertion on a symbolic one.

`raise Cls(a, b)` becomes `raise ag__.new_error(Cls, (a, b), {})` and `raise x [from y]`
`raise ag__.raise_value(x [, y])`: the exception Python raises, which inside a trace also
carries how to make it again (its class and arguments): a staged branch or loop that raises it
records a `raise` node making it from the values of the run that takes the path
(staging.control_flow.raising). A bare `raise` in an `except` clause of a converted `try`
becomes `raise ag__.raise_value(e)` of the exception the clause caught.
"""

from __future__ import annotations

from autograph.operators.control_flow import _objects, _outer_write_error, _staged_if
from autograph.operators.staged_state import Cells
from autograph.operators.variables import Undefined
from runtime.core_ops import NO_CAUSE
from staging import errors
from staging.control_flow import handlers as handlers_
from staging.control_flow import raising
from staging.core.exceptions import is_caught_exception
from staging.core.recording import current_graph
from staging.core.source_map import where as _where
from staging.core.tensor import is_symbolic
from staging.effects.debugging import assert_true
from staging.state import containers as staged_containers

# ag__.call, given by autograph.impl.api (the operators do not import the converter): a
# `raise f(x)` of a function that returns the exception calls it as converted code does
_CALL = {"call": None}


def install_call(call) -> None:
    _CALL["call"] = call


def assert_stmt(test, message_fn=None):
    """`assert test, message`; message_fn runs only if needed (once, when staged)."""
    if is_symbolic(test):
        message = message_fn() if message_fn is not None else None
        assert_true(test, message)
        return
    if not test:
        if message_fn is None:
            raise AssertionError()
        raise AssertionError(message_fn())


def _is_exception_class(x) -> bool:
    return isinstance(x, type) and issubclass(x, BaseException)


def new_error(func, args=(), kwargs=None, cause=NO_CAUSE):
    """The exception of `raise func(*args, **kwargs) [from cause]`. When `func` is an exception
    class, inside a trace it is recorded with its arguments (made again from the run-time
    values when a staged path raises it); another callable (a function returning the exception)
    is called as converted code calls it."""
    if _is_exception_class(func):
        return raising.new_error(func, args, kwargs, cause)
    call = _CALL["call"] or (lambda f, *a, **k: f(*a, **k))
    return raise_value(call(func, *args, **(kwargs or {})), cause)


def raise_value(value, cause=NO_CAUSE):
    """The exception of `raise value [from cause]`: an exception class is made without
    arguments, as Python makes it; an exception a staged `try` caught is raised again when the
    graph runs; an exception object is raised as it is (a staged path that raises it makes a
    copy with the values of that run)."""
    if _is_exception_class(value):
        return raising.new_error(value, (), {}, cause)
    if is_caught_exception(value):
        return raising.reraise(value, cause)
    if not isinstance(value, BaseException):
        return value  # `raise` itself raises Python's TypeError
    if current_graph() is not None:
        return raising.as_raised(value, cause)
    return raising.with_cause(value, cause)


# -- try ------------------------------------------------------------------------------------


def try_stmt(  # noqa: PLR0913
    body,
    handlers,
    state,
    names,
    unsettled=(),
    writes_early=False,
    outer_writes=(),
    cells=(),
    get_state=None,
    set_state=None,
    returns=(),
    unread=None,
    containers=(),
    appended=(),
):
    """`try: body except ...: handler` in converted code: Python's `try` on concrete values;
    staged (staging.control_flow.handlers) where the body stages code whose errors a clause may
    catch when the graph runs.

    The body and each clause are functions taking `state` (the names they assign that later
    code reads first, named by `names`, then the names they read before assigning, as an
    `if`'s branches do); a clause takes the exception first. `handlers`: ((types, clause), ...),
    types() the classes of the clause. A staged clause starts from the state before the `try`:
    `unsettled` names the ones the body may assign before a later line that may raise (a clause
    reading them is refused), `writes_early` says that the body may write items, attributes or
    arrays before such a line. `cells`, `returns`, `unread`, `containers`, `appended`: as for
    if_stmt."""
    state = tuple(state)
    if current_graph() is None:
        return _native_try(body, handlers, state)
    state = staged_containers.promote_entering(
        state, names, (body, *(clause for _, clause in handlers)), containers, appended
    )
    cells_ = Cells(cells, get_state, set_state)
    statement = _StagedTry(body, handlers, state, names, cells_, _where())
    statement.unsettled, statement.writes_early = tuple(unsettled), writes_early
    statement.outer_writes = tuple(outer_writes)
    try:
        return statement.run(False, tuple(returns), unread)
    except _ConvertLists:
        statement.restore_lists()
        return statement.run(True, tuple(returns), unread)


def _first_clause(error, handlers):
    """The clause of `handlers` that catches `error`: the first whose classes (evaluated in
    order, as Python evaluates them) it is an instance of; None when none does."""
    for types, clause in handlers:
        if isinstance(error, handlers_.clause_classes(types())):
            return clause
    return None


def _is_refusal(error) -> bool:
    """An error saying the function cannot be staged as written (a user's `except` never catches
    it); an UndefinedNameError is a name read before assignment, as in Python."""
    return isinstance(
        error, (errors.StagingError, raising.PathRaises, raising.PendingRaise)
    ) and not isinstance(error, errors.UndefinedNameError)


def _at_raise(error, body, state) -> tuple:
    """The state as the body left it when it raised `error` (its frame's locals): what
    Python's clause sees. The state itself when the body did not start."""
    code = body.__code__
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code is not code:
        tb = tb.tb_next
    if tb is None:
        return state
    local = tb.tb_frame.f_locals
    return tuple(local.get(name, Undefined(name)) for name in code.co_varnames[: len(state)])


def _native_try(body, handlers, state):
    """Python's `try`: the first clause that catches the error runs, with the state as the body
    left it."""
    try:
        result = body(*state)
    except BaseException as error:
        clause = None if _is_refusal(error) else _first_clause(error, handlers)
        if clause is None:
            raise
        result = clause(error, *_at_raise(error, body, state))
    return () if result is None else result


class _ConvertLists(Exception):
    """A staged `try` whose state holds Python lists: traced again with staged lists (each path
    appends to its own copy), as a staged `if` does."""


class _StagedTry:
    """A `try` inside a trace: its body traced into a subgraph, its clauses where they may catch
    what the body raises when the graph runs (staging.control_flow.handlers)."""

    def __init__(self, body, handlers, state, names, cells, where):
        self.body, self.handlers, self.state, self.names = body, handlers, state, tuple(names)
        self.cells, self.where = cells, where
        self.lists = [(v, list(v)) for v in state + cells.get() if type(v) is list]
        self.cells_before = cells.get()  # (the cell variables' values before the body)
        self.cells_left = None  # theirs where the body raised, while traced
        self.converted = False
        self.caught = {}  # what the handler path is running for (see clause_path)

    def restore_lists(self) -> None:
        for lst, items in self.lists:
            lst[:] = items

    def run(self, converted, returns, unread):
        self.converted = converted
        return _staged_if(
            None,
            self.body_path,
            self.clause_path,
            self.state,
            self.names,
            self.cells,
            returns,
            _objects(unread),
            join=self.join,
            kind="`try`",
            lists=converted,
            watched=(self.body, *(clause for _, clause in self.handlers)),
        )

    def body_path(self, *state):
        try:
            result = self.body(*state)
        except BaseException as error:
            self.left = _at_raise(error, self.body, state)
            self.cells_left = self.cells.get()
            raise
        self.left = () if result is None else tuple(result)
        return result

    def clause_path(self, *state):
        """The clauses: Python's `try` (`native`: the body staged nothing and raised while
        traced), or the staged clauses, dispatched on the caught exception's class."""
        error = self.caught.get("native")
        if error is None:
            return self.caught["clause"](self.caught["e"], *state)
        clause = _first_clause(error, self.handlers)
        if clause is None:
            raise error
        try:
            raise error
        except BaseException:  # (the clause runs handling it, as in Python)
            return clause(error, *self.left)

    def join(self, then, other, *, unread, names, watch=None):
        def native(error):
            self.caught = {"native": error}
            return other()

        def handler(clause):
            def run(e):
                self.caught = {"clause": clause, "e": e}
                return other()

            return run

        return handlers_.try_except(
            then,
            [(types, handler(clause)) for types, clause in self.handlers],
            native=native,
            check_body=self.check_body,
            names=names,
            unread=unread,
            watch=watch,
        )

    def _check_cell(self, name: str) -> None:
        """Refuses a `try` whose body assigned the cell variable `name` before the line that
        raised (while traced): the clause would see it as it was before the `try`."""
        j = self.cells.names.index(name)
        left = self.cells_left
        if left is None or left[j] is not self.cells_before[j]:
            raise handlers_.refuse_unsettled(name, self.where)

    def check_body(self, results, wrote) -> None:
        """Refuses a staged `try` whose clauses would not see what Python's see."""
        if self.outer_writes:
            raise _outer_write_error("`try`", self.outer_writes)
        if self.lists and not self.converted:
            raise _ConvertLists()
        for name in self.unsettled:
            if name in self.cells.names:  # (a cell variable: written through its cell)
                self._check_cell(name)
            if name not in self.names:
                continue
            i = self.names.index(name)
            left = getattr(self, "left", None)
            if left is None or i >= len(left) or left[i] is not self.state[i]:
                raise handlers_.refuse_unsettled(name, self.where)
        if wrote and self.writes_early:
            raise errors.UnsupportedConstructError(
                f"{self.where}this `try` is staged (its `except` clause may catch an error raised "
                f"when the graph runs), and its body writes items, attributes or arrays in place "
                f"before a later line that may raise: Python's clause would see them written, "
                f"the staged clause as they were before the `try`. Make the writes in the body's "
                f"last line, or after the `try`"
            )
