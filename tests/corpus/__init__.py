"""A corpus of ordinary user programs, each run eagerly and staged and compared (see README.md)."""
