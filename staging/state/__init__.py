"""Python state a trace writes: the journal of writes made in staged branches and loop bodies
(journal), in-place writes into symbolic arrays and their views (aliasing, stale_values), writes
into arguments (argument_writes), Variables (variables) and staged lists (tensor_array)."""
