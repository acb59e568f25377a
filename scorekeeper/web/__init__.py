"""Web blueprints: tables (create, join, players, rounds, undo) and the score API."""
