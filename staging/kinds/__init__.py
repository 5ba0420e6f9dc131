"""The per-path model of a staged value: what it may be when the graph runs. Its graph type
(runtime.types) holds its kinds (a Python number, a NumPy dtype and shape, several of them by
path); decisions is the one place a trace-time decision that differs between kinds is refused;
forms tells a 0-d array from a NumPy scalar where an in-place write needs it; undefined stands
for a name or attribute set on only some paths."""
