"""Printables over the web: rule cards, blank and filled score sheets (PDF), and
the in-app Rules pages. (``printing`` imports WeasyPrint only when it renders.)

Both table links may read here: printing a sheet changes nothing, so the watch
link gets the same downloads as the scorer link. Every PDF is printed in the
request's language (``printing.request_language``), as the Rules page is shown; a
``?lang=`` that names none of the app's languages is refused on both
(``refuse_unknown_language``), not answered in another. PDFs come from
``printing``'s per-app cache; a repeated download is a lookup, and a browser that
sends the ETag back gets a 304 without the body.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, render_template, request, url_for

from .. import i18n, printing, rulecards
from ..games import catalog
from ..i18n import gettext as _
from ..messages import LANGUAGES, quotable
from ..store import Table
from .db import get_store, load

bp = Blueprint("prints", __name__)
# the rule card's texts (N_ msgids) in the page's language, as the printed card has them
bp.add_app_template_filter(printing.translated_markup, "rules_markup")
bp.add_app_template_filter(printing.translated, "translated")


@bp.errorhandler(printing.RenderBusy)
@bp.errorhandler(printing.RenderTimeout)
def _not_now(exc):
    """Every render slot busy, or a render stopped at its time limit: a 503 the
    phone may retry, with what happened in words."""
    if isinstance(exc, printing.RenderTimeout):
        current_app.logger.warning("a PDF render ran over its time limit and was stopped")
    page = render_template("error.html", title=_("Not now"), message=exc.message, status=503)
    return page, 503, {"Retry-After": str(printing.RETRY_AFTER_S)}


def _game_or_404(slug: str) -> catalog.Game:
    game = catalog.GAMES.get(slug)
    if game is None:
        abort(404)
    return game


def refuse_unknown_language() -> None:
    """A link whose ``?lang=`` names none of the app's languages is refused (400)
    rather than answered in another one, which would pass for what was asked; an
    empty or absent one asks for nothing. The refusal speaks the request's language
    (a table's page: load the table first)."""
    asked = request.args.get("lang")
    if asked and i18n.known(asked) is None:
        abort(
            400,
            description=_(
                "“%(language)s” is not a language of Scorekeeper (%(languages)s).",
                language=quotable(asked, 20),
                languages=", ".join(LANGUAGES),
            ),
        )


def print_language() -> str:
    """The language a PDF is printed in: the request's, unless refused."""
    refuse_unknown_language()
    return printing.request_language()


def pdf_response(doc: printing.Printed, private: bool) -> Response:
    """The PDF as a download, revalidated by its ETag.

    ``private``: a table's sheet is as secret as its link, so no shared cache may keep it.
    """
    response = Response(doc.pdf, mimetype="application/pdf")
    response.headers["Content-Disposition"] = f'attachment; filename="{doc.filename}"'
    response.headers["Cache-Control"] = "private, no-cache" if private else "public, no-cache"
    response.set_etag(doc.etag)
    return response.make_conditional(request)


# ---------------------------------------------------------------- the Rules pages


def _downloads(slug: str, key: str | None) -> list[tuple[str, str]]:
    """(label, url) of the PDFs a Rules page offers."""
    if key is None:
        return [
            (_("Rule card (A6, PDF)"), url_for("prints.rule_card_pdf", slug=slug)),
            (_("Blank score sheet (A4, PDF)"), url_for("prints.blank_sheet_pdf", slug=slug)),
        ]
    return [
        (_("Rule card with house rules (A6, PDF)"), url_for("prints.table_rule_card_pdf", key=key)),
        (_("Score sheet of this table (A4, PDF)"), url_for("prints.filled_sheet_pdf", key=key)),
        (
            _("Blank sheet with these names (A4, PDF)"),
            url_for("prints.table_blank_sheet_pdf", key=key),
        ),
    ]


def _rules_page(slug: str, table: Table | None = None, key: str | None = None):
    card = rulecards.card(slug)
    return render_template(
        "prints/rules.html",
        card=card,
        games=catalog.GAMES,
        house=rulecards.house_rules(card.game, table.settings if table else None),
        house_table=table.name if table else None,
        table=table,
        table_key=key,
        downloads=_downloads(slug, key),
    )


@bp.get("/rules")
def rules_index():
    refuse_unknown_language()
    return render_template("prints/rules_index.html", games=catalog.GAMES)


@bp.get("/rules/<slug>")
def rules(slug: str):
    _game_or_404(slug)
    refuse_unknown_language()
    return _rules_page(slug)


@bp.get("/t/<key>/rules")
def table_rules(key: str):
    table, _access = load(key)  # first: a refusal speaks the table's language
    refuse_unknown_language()
    return _rules_page(table.game, table, key)


# ---------------------------------------------------------------- a game's PDFs


@bp.get("/print/<slug>/rule-card.pdf")
def rule_card_pdf(slug: str):
    _game_or_404(slug)
    return pdf_response(printing.rule_card(slug, language=print_language()), private=False)


@bp.get("/print/<slug>/score-sheet.pdf")
def blank_sheet_pdf(slug: str):
    _game_or_404(slug)
    return pdf_response(printing.blank_sheet(slug, language=print_language()), private=False)


# ---------------------------------------------------------------- a table's PDFs


@bp.get("/t/<key>/rule-card.pdf")
def table_rule_card_pdf(key: str):
    table, _access = load(key)  # first: a refusal speaks the table's language
    language = print_language()
    return pdf_response(printing.rule_card(table.game, table, language), private=True)


@bp.get("/t/<key>/score-sheet.pdf")
def filled_sheet_pdf(key: str):
    table, _access = load(key)
    language = print_language()
    return pdf_response(printing.filled_sheet(get_store(), table, language), private=True)


@bp.get("/t/<key>/blank-sheet.pdf")
def table_blank_sheet_pdf(key: str):
    table, _access = load(key)
    language = print_language()
    return pdf_response(
        printing.blank_sheet(table.game, get_store(), table, language), private=True
    )
