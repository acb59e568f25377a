"""Scorekeeper: a table's score keeper for five regional card games."""

__version__ = "0.1.0"


def create_app(test_config=None):
    """The Flask application factory (``flask --app scorekeeper run``).

    Flask is imported here, not at package import, so the engines and the
    ``scorekeeper score`` command start fast.
    """
    from .app import create_app as _create_app

    return _create_app(test_config)
