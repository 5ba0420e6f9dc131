"""What converted code calls as `ag__.*`: overloaded control flow, logic, lists, assertions,
exceptions, contexts and writes to composite names.

autograph.impl.api assembles the `ag__` namespace from these and its `call`."""

from autograph.operators import composites
from autograph.operators.composites import *  # noqa: F401,F403 - setitem, setattr, key, iadd ...
from autograph.operators.comprehensions import (
    comprehension_dict,
    comprehension_iter,
    comprehension_set,
)
from autograph.operators.contexts import catches, caught, context, finally_guard
from autograph.operators.control_flow import for_stmt, if_exp, if_stmt, return_value, while_stmt
from autograph.operators.data_structures import StagedList, list_append, list_pop
from autograph.operators.exceptions import assert_stmt, new_error, raise_value, try_stmt
from autograph.operators.logical import (
    and_,
    eq,
    in_,
    is_none,
    is_not_none,
    not_,
    not_eq,
    not_in,
    or_,
)
from autograph.operators.strings import fstring, percent
from autograph.operators.variables import Undefined, UndefinedReturnValue, ld

__all__ = [
    "if_stmt",
    "while_stmt",
    "for_stmt",
    "if_exp",
    "and_",
    "or_",
    "not_",
    "in_",
    "not_in",
    "is_none",
    "is_not_none",
    "eq",
    "not_eq",
    "assert_stmt",
    "new_error",
    "raise_value",
    "list_append",
    "list_pop",
    "Undefined",
    "UndefinedReturnValue",
    "StagedList",
    "return_value",
    "ld",
    "fstring",
    "percent",
    "context",
    "catches",
    "caught",
    "finally_guard",
    "try_stmt",
    "comprehension_iter",
    "comprehension_set",
    "comprehension_dict",
    *composites.__all__,
]
