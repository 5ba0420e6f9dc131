"""The corpus cases that do not agree today: (module, function, case index) -> (category, reason).

test_corpus.py marks each of them `xfail(strict=True)`, expecting exactly this category: a fix
that makes a case agree turns it into an XPASS, which fails until its entry is removed here, and
a case that changes category (a refusal becoming a silent difference) fails too.

Each reason is "likely cause; what differs": the cause is causes.py's guess (grep for it to find
every case of one mechanism), the rest is the harness's description of the first staged call that
differs. Keep the entries sorted; `python -m tests.corpus.report --write-known` rewrites this file
from a run, keeping the reasons of entries whose category did not change.
"""

KNOWN_FAILURES: dict[tuple[str, str, int], tuple[str, str]] = {
    ("games", "life_score", 0): (
        "refused",
        "other; both calls: UnstagedAttributeError at games.py:29: `.tobytes` of a symbolic tensor <i64[4,4]> is not staged: its value exists only when the graph runs. Use Nu...",
    ),
    ("games", "life_score", 1): (
        "refused",
        "other; both calls: UnstagedAttributeError at games.py:29: `.tobytes` of a symbolic tensor <i64[3,3]> is not staged: its value exists only when the graph runs. Use Nu...",
    ),
    ("geometry", "grid_cells", 0): (
        "refused",
        "iterating or unpacking a traced array in Python code; both calls: SymbolicValueError at geometry.py:194: iterating (a Python `for` loop, unpacking, list(), ...) of a symbolic tensor <f64[2]> needs its value, whic...",
    ),
    ("geometry", "nearest_neighbor_tour", 0): (
        "refused",
        "comparison inside unconverted code (sorted, min/max key, any, bisect, `in` a tuple); both calls: SymbolicValueError at geometry.py:168: using the truth value (`if`, `while`, `and`, `or`, `not`, bool()) of a symbolic tensor <bool[]> needs its v...",
    ),
    ("graphs", "degree_stats", 0): (
        "refused",
        "traced value used outside its trace (leaked); both calls: LeakedTensorError at harness.py:197: symbolic tensor <int> (created at graphs.py:202) was used outside the trace of 'degree_stats' that created ...",
    ),
    ("graphs", "degree_stats", 1): (
        "refused",
        "traced value used outside its trace (leaked); both calls: LeakedTensorError at harness.py:197: symbolic tensor <int> (created at graphs.py:202) was used outside the trace of 'degree_stats' that created ...",
    ),
    ("graphs", "shortest_path", 0): (
        "refused",
        "NumPy function without a staged op; both calls: UnsupportedOpError at graphs.py:185: np.flatnonzero (no staged op) is not supported on symbolic tensors; wrap the computation in staging.py_func...",
    ),
    ("graphs", "shortest_path", 1): (
        "refused",
        "NumPy function without a staged op; both calls: UnsupportedOpError at graphs.py:185: np.flatnonzero (no staged op) is not supported on symbolic tensors; wrap the computation in staging.py_func...",
    ),
    ("graphs", "topo_sort", 0): (
        "refused",
        "comparison inside unconverted code (sorted, min/max key, any, bisect, `in` a tuple); both calls: SymbolicValueError at graphs.py:87: using the truth value (`if`, `while`, `and`, `or`, `not`, bool()) of a symbolic tensor <bool[]> needs its v...",
    ),
    ("graphs", "topo_sort", 1): (
        "refused",
        "comparison inside unconverted code (sorted, min/max key, any, bisect, `in` a tuple); both calls: SymbolicValueError at graphs.py:87: using the truth value (`if`, `while`, `and`, `or`, `not`, bool()) of a symbolic tensor <bool[]> needs its v... (eager raised CycleError)",
    ),
    ("learning", "knn_predict", 0): (
        "refused",
        "comparison inside unconverted code (sorted, min/max key, any, bisect, `in` a tuple); both calls: SymbolicValueError at learning.py:67: using the truth value (`if`, `while`, `and`, `or`, `not`, bool()) of a symbolic tensor <bool> needs its val...",
    ),
    ("learning", "knn_predict", 1): (
        "refused",
        "comparison inside unconverted code (sorted, min/max key, any, bisect, `in` a tuple); both calls: SymbolicValueError at learning.py:67: using the truth value (`if`, `while`, `and`, `or`, `not`, bool()) of a symbolic tensor <bool> needs its val...",
    ),
    ("learning", "perceptron", 0): (
        "refused",
        "in-place write into a loop variable refused; both calls: MutationError at learning.py:54: the staged loop writes in place into loop variable 'w', but at the end of an iteration 'return value[0]' is...",
    ),
    ("learning", "perceptron", 1): (
        "refused",
        "in-place write into a loop variable refused; both calls: MutationError at learning.py:54: the staged loop writes in place into loop variable 'w', but at the end of an iteration 'return value[0]' is...",
    ),
    ("numerics", "binomial_pmf", 3): (
        "refused",
        "other; both calls: SymbolicValueError at numerics.py:315: iterating range(0, <staging.Tensor int in trace of 'binomial_pmf'>, 1), whose bounds are known only when th...",
    ),
    ("records", "ledger", 0): (
        "refused",
        "try/except around staged code; both calls: UnsupportedConstructError at records.py:255: this `try` would catch the OverdrawnError raised while tracing the staged `if` at records.py:247; whether i...",
    ),
    ("records", "lru_cache_hits", 0): (
        "refused",
        "dict keyed by a traced value; both calls: UndefinedNameError at records.py:163: OrderedDict[<staging.Tensor int in trace of 'lru_cache_hits'>] is first set inside this staged loop, whose ...",
    ),
    ("records", "parse_records", 2): (
        "refused",
        "math.*, int(), round() of a traced scalar; both calls: SymbolicValueError at records.py:133: float() of a symbolic tensor <float> needs its value, which is only known when the staged graph runs. autog...",
    ),
    ("records", "pivot_counts", 2): (
        "refused",
        ".tolist() of a traced array; both calls: SymbolicValueError at records.py:102: .tolist() of a symbolic tensor <<U1[2]> needs its value, which is only known when the staged graph runs. au...",
    ),
    ("records", "session_lengths", 0): (
        "refused",
        "dict keyed by a traced value; both calls: UndefinedNameError at records.py:145: dict[<staging.Tensor int in trace of 'session_lengths'>] is first set inside this staged loop, whose condit...",
    ),
    ("records", "summarize_readings", 2): (
        "refused",
        "in-place write into a loop variable refused; both calls: MutationError at records.py:74: this staged `if` (its condition is symbolic) changes the list 's.flagged' while it is traced: a staged bran...",
    ),
    ("records", "tally_events", 0): (
        "refused",
        "other; both calls: SymbolicValueError at records.py:231: in bump(): hash() (as a dict key, a set member, in Counter(), ...) of a symbolic tensor <int> needs its val...",
    ),
    ("searching", "argsort_stable", 0): (
        "refused",
        "comparison inside unconverted code (sorted, min/max key, any, bisect, `in` a tuple); both calls: SymbolicValueError at searching.py:227: using the truth value (`if`, `while`, `and`, `or`, `not`, bool()) of a symbolic tensor <bool[]> needs its v...",
    ),
    ("searching", "merge_intervals", 0): (
        "refused",
        ".tolist() of a traced array; both calls: SymbolicValueError at searching.py:134: .tolist() of a symbolic tensor <i64[4]> needs its value, which is only known when the staged graph runs. au...",
    ),
    ("searching", "merge_intervals", 2): (
        "refused",
        ".tolist() of a traced array; both calls: SymbolicValueError at searching.py:134: .tolist() of a symbolic tensor <f64[2]> needs its value, which is only known when the staged graph runs. au...",
    ),
    ("signals", "find_peaks", 0): (
        "refused",
        "traced value used outside its trace (leaked); both calls: LeakedTensorError at signals.py:79: symbolic tensor <list[int]> belongs to another trace ('find_peaks') and cannot be used in 'find_peaks'; pas...",
    ),
    ("signals", "find_peaks", 1): (
        "refused",
        "traced value used outside its trace (leaked); both calls: LeakedTensorError at signals.py:79: symbolic tensor <list[int]> belongs to another trace ('find_peaks') and cannot be used in 'find_peaks'; pas...",
    ),
    ("text", "evaluate_expression", 0): (
        "refused",
        "in-place write into a loop variable refused; both calls: MutationError at text.py:282: this staged `if` (its condition is symbolic) changes the variable 'pos' of 'evaluate_expression' (a closure...",
    ),
    ("text", "evaluate_expression", 1): (
        "refused",
        "in-place write into a loop variable refused; both calls: MutationError at text.py:282: this staged `if` (its condition is symbolic) changes the variable 'pos' of 'evaluate_expression' (a closure...",
    ),
    ("text", "evaluate_expression", 3): (
        "refused",
        "in-place write into a loop variable refused; both calls: MutationError at text.py:282: this staged `if` (its condition is symbolic) changes the variable 'pos' of 'evaluate_expression' (a closure... (eager raised ParseError)",
    ),
    ("text", "evaluate_expression", 4): (
        "refused",
        "in-place write into a loop variable refused; both calls: MutationError at text.py:282: this staged `if` (its condition is symbolic) changes the variable 'pos' of 'evaluate_expression' (a closure... (eager raised ZeroDivisionError)",
    ),
    ("text", "to_base", 1): (
        "refused",
        "None or str on one path, a tensor on another; both calls: BranchMismatchError at text.py:220: 'output[0]' is a str ('-') in the true branch and a str ('') in the false branch of a staged `if`; both bra...",
    ),
}
