"""The Function layer: `staging.function` (function), its traces (concrete), trace keys and
input signatures (trace_key), staged methods (method_binding), the lock a trace holds
(trace_lock) and the warnings about retracing (retracing)."""
