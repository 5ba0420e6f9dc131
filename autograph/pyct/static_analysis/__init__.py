"""Static analyses the converters read: activity (reads/writes), liveness, definedness."""
