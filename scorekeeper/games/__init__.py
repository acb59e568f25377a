"""Pure rules engines, one module per game: no Flask, no database, no I/O."""
