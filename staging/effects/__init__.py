"""Effects that run when the graph runs, in program order: random draws and clocks (random_ops,
random_probe, generators), staged print / assert / py_function (debugging), and the warnings
about trace-time side effects (trace_effects)."""
