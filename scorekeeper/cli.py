"""The ``scorekeeper`` command.

``score``, ``play`` and ``roll`` import only what they need (no Flask, no WeasyPrint), so
a one-off request starts fast; the other commands open the app's database.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import sys
from contextlib import contextmanager
from pathlib import Path

from .messages import LANGUAGES, escaped, gettext, quotable  # pure: no Flask, no WeasyPrint


def _emit(body: dict) -> None:
    sys.stdout.write(json.dumps(body, ensure_ascii=False) + "\n")


# ---------------------------------------------------------------- engines


def _request_bytes(args) -> bytes | None:
    """The JSON request of ``score`` or ``play``: from ``--file`` or stdin; None (and the
    reason printed in the error shape) when the file cannot be read."""
    if not args.file:
        return sys.stdin.buffer.read()
    try:
        return Path(args.file).read_bytes()
    except OSError as exc:
        # Translators: %(reason)s is the system's reason (No such file or directory)
        message = gettext("Cannot read %(file)s: %(reason)s.", file=args.file, reason=exc.strerror)
        _emit({"error": {"message": message, "path": ""}})
        return None


@contextmanager
def speaking(language: str | None):
    """The engines' sentences (and this command's) in ``--lang``. English needs no
    catalogue, so ``score`` and ``play`` in English still go without Flask."""
    if not language or language == "en":
        yield
        return
    from . import i18n, messages

    messages.use(i18n.translations)  # outside a request: the catalogue spoken below
    token = i18n.speak(language)
    try:
        yield
    finally:
        i18n.stop_speaking(token)


def cmd_score(args) -> int:
    from . import api

    with speaking(args.lang):
        raw = _request_bytes(args)
        if raw is None:
            return 2
        body, status = api.respond(args.kind, raw)
    _emit(body)
    return 0 if status == 200 else 2


def cmd_play(args) -> int:
    from .games import play

    with speaking(args.lang):
        raw = _request_bytes(args)
        if raw is None:
            return 2
        body, status = play.respond(args.game, raw)
    _emit(body)
    return 0 if status == 200 else 2


def cmd_roll(args) -> int:
    from .games import catalog

    roll = catalog.roll(args.kind)
    if roll is None:
        kinds = ", ".join(catalog.roll_kinds())
        sys.stderr.write(f"There is no roll called “{quotable(args.kind)}” (one of {kinds}).\n")
        return 2
    _emit(roll())
    return 0


# ---------------------------------------------------------------- database commands


class CommandError(Exception):
    """A command that cannot go on: its message is printed, the exit code is 2."""


def _reason(exc: Exception) -> str:
    """What went wrong, without the error's class or number: "No such file or directory"."""
    return getattr(exc, "strerror", None) or str(exc)


def _app(args):
    from .app import create_app

    try:
        return create_app(database=args.db)
    except sqlite3.Error as exc:  # --db names a folder, or a file that is not a database
        if args.db:
            message = gettext(
                "Cannot open the database %(file)s: %(reason)s.", file=args.db, reason=_reason(exc)
            )
        else:
            message = gettext(
                "Cannot open the database in the app's instance folder: %(reason)s.",
                reason=_reason(exc),
            )
        raise CommandError(message) from exc


def _store(args, existing: bool = True):
    """The store of ``--db`` (or the instance folder's). ``existing``: the command reads
    or changes tables already there, so a --db naming no file is a typo, said so, not
    an empty database made there to answer from."""
    from . import store

    if existing and args.db and not Path(args.db).exists():
        raise CommandError(
            gettext("There is no database at %(file)s: check the path given to --db.", file=args.db)
        )
    app = _app(args)
    from .games import catalog

    made = store.Store(
        store.connect(app.config["DATABASE"]),
        **store.caps(app.config),
        numbering=catalog.numbering,
        round_slot=catalog.round_slot,
    )
    return made, app


DEFAULT_PORT = 8000


def served_url_file(database: str) -> Path:
    """Where ``serve`` notes the address it serves a database at, beside the file: the
    links ``tables`` prints then carry the port actually served, whatever --port was."""
    return Path(str(database) + ".served-url")


def _served_url(app) -> str | None:
    try:
        text = served_url_file(app.config["DATABASE"]).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeError):
        return None
    return text if re.fullmatch(r"https?://[^\s/]+/?", text) else None


def _base_url(args, app=None) -> str:
    """--base-url, else the address the server of this database noted while serving,
    else this machine's address on the default port (what ``make run`` serves)."""
    found = args.base_url or (app is not None and _served_url(app))
    return (found or f"http://{lan_address()}:{DEFAULT_PORT}").rstrip("/")


# A table is named by its key or by a link holding it (as `tables` prints it).
TABLE_LINK = re.compile(r"/t/([A-Za-z0-9_-]+)")


def _find(s, key: str):
    from . import store

    if link := TABLE_LINK.search(key):
        key = link.group(1)
    try:
        table, access = s.table_by_key(key)
    except store.NotFound as exc:
        sys.stderr.write(exc.message + "\n")
        return None
    return table


def cmd_tables(args) -> int:
    s, app = _store(args)
    base = _base_url(args, app)
    tables = s.list_tables()
    if not tables:
        print("No tables yet. Start one in the app.")
    for t in tables:
        # a name kept from before names refused control characters may still hold one
        names = ", ".join(escaped(p.name) for p in s.players(t.id))
        print(
            f"{escaped(t.name)}  [{t.game}]  {escaped(t.created[:16].replace('T', ' '))}  {names}"
        )
        print(f"  scorer: {base}/t/{t.scorer_key}")
        print(f"  watch:  {base}/t/{t.watch_key}")
    return 0


def cmd_delete(args) -> int:
    s, _app_ = _store(args)
    table = _find(s, args.table)
    if table is None:
        return 2
    s.delete_table(table.id)
    print(f"Deleted {table.name}.")
    return 0


def cmd_export(args) -> int:
    s, _app_ = _store(args)
    table = _find(s, args.table)
    if table is None:
        return 2
    if args.format == "csv":
        from .store import history_csv

        text = history_csv(s, table)
    else:
        text = json.dumps(s.export_table(table.id), ensure_ascii=False, indent=2) + "\n"
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            message = gettext(
                "Cannot write %(file)s: %(reason)s.", file=args.output, reason=_reason(exc)
            )
            sys.stderr.write(message + "\n")
            return 2
    else:
        sys.stdout.write(text)
    return 0


def cmd_import(args) -> int:
    from . import store

    s, app = _store(args, existing=False)  # a new database is made for it
    with speaking(args.lang):
        try:
            data = json.loads(Path(args.file).read_text(encoding="utf-8"))
            table_id = s.import_table(data)
        except OSError as exc:
            message = gettext(
                "Cannot import %(file)s: %(reason)s.", file=args.file, reason=_reason(exc)
            )
            sys.stderr.write(message + "\n")
            return 2
        except (ValueError, RecursionError):  # not UTF-8, or not JSON
            message = gettext(
                "Cannot import %(file)s: it is not JSON, so not a table export.", file=args.file
            )
            sys.stderr.write(message + "\n")
            return 2
        except store.StoreError as exc:
            sys.stderr.write(exc.message + "\n")
            return 2
        table = s.table(table_id)
        url = f"{_base_url(args, app)}/t/{table.scorer_key}"
        # Translators: %(name)s is the table's name, %(url)s its scorer link
        print(gettext("Imported the table %(name)s: %(url)s", name=escaped(table.name), url=url))
    return 0


def cmd_backup(args) -> int:
    from . import store

    s, _app_ = _store(args)
    try:
        s.backup(args.path)
    except store.StoreError as exc:
        sys.stderr.write(exc.message + "\n")
        return 2
    except (OSError, sqlite3.Error) as exc:
        message = gettext(
            "Cannot back up to %(path)s: %(reason)s.", path=args.path, reason=_reason(exc)
        )
        sys.stderr.write(message + "\n")
        return 2
    print(f"Backed up to {args.path}.")
    return 0


def cmd_print(args) -> int:
    from . import printing

    app = _app(args)
    out = Path(args.output) if args.output else None
    languages = LANGUAGES if args.lang == "all" else (args.lang,)
    with app.app_context():
        try:
            for path in printing.build_all(out, languages):
                print(path)
        except OSError as exc:
            message = gettext(
                "Cannot write the PDFs to %(file)s: %(reason)s.",
                file=exc.filename,
                reason=_reason(exc),
            )
            sys.stderr.write(message + "\n")
            return 2
    return 0


# ---------------------------------------------------------------- serve


def lan_address() -> str:
    """This machine's address on the local network, for the phones' link."""
    import socket

    try:
        # a UDP "connect" only picks the outgoing interface; no packet is sent
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.connect(("192.0.2.1", 9))
            address = sock.getsockname()[0]
            if not address.startswith("0."):
                return address
    except OSError:
        pass
    return "127.0.0.1"


def cmd_serve(args) -> int:
    import segno

    from . import server

    app = _app(args)  # opens (or upgrades) the database before any worker starts
    try:
        port = server.check_listen(args.host, args.port)
    except (OSError, UnicodeError, TypeError) as exc:  # TypeError: a host name not encodable
        message = gettext(
            "Cannot listen on %(host)s:%(port)s: %(reason)s.",
            host=args.host,
            port=args.port,
            reason=_reason(exc),
        )
        print(message, file=sys.stderr)
        return 1
    host = lan_address() if args.host in ("0.0.0.0", "::", "") else args.host
    url = f"http://{host}:{port}/"
    print(f"Scorekeeper is serving {app.config['DATABASE']}", flush=True)
    noted = served_url_file(app.config["DATABASE"])

    def ready() -> None:  # printed once a phone can open the address
        try:
            noted.write_text(url + "\n", encoding="utf-8")
        except OSError:
            pass  # a read-only folder: `tables` then prints the default port
        print(f"Open {url} on every phone at the table (same Wi-Fi), or scan:")
        if not args.no_qr:
            segno.make(url, error="l").terminal(compact=True)
        print("Press Ctrl+C to stop.", flush=True)

    workers = args.workers if args.workers is not None else server.default_workers()
    threads = args.threads if args.threads is not None else server.DEFAULT_THREADS
    try:
        server.serve(args.host, port, args.db, workers=workers, threads=threads, ready=ready)
    except KeyboardInterrupt:
        pass
    finally:
        try:  # only this server's note: another may have started on the file since
            if noted.read_text(encoding="utf-8").strip() == url:
                noted.unlink()
        except OSError:
            pass
    return 0


# ---------------------------------------------------------------- parser


def _language(text: str) -> str:
    """A language of the app as the web takes it, in any case and with - or _
    (``sr_Cyrl``, ``sr-cyrl``); anything else as it is, for argparse's choices to refuse."""
    wanted = text.replace("_", "-").casefold()
    return next((tag for tag in LANGUAGES if tag.casefold() == wanted), text)  # else: choices


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(
            f"“{quotable(text)}” is not a port: a whole number from 0 to 65535 (0: any free one)"
        )
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"“{quotable(text)}” is not a whole number of 1 or more")
    return value


class Parser(argparse.ArgumentParser):
    """argparse's parser, refusing a choice as the command's other messages quote what
    was typed (“de”, its control characters written as codes), not as Python's repr
    ('de'). Its subcommands' parsers are of this class too."""

    def _check_value(self, action, value):  # argparse's check of ``choices``
        if action.choices is not None and value not in action.choices:
            listed = ", ".join(map(str, action.choices))
            raise argparse.ArgumentError(
                action, f"invalid choice: “{quotable(value)}” (choose from {listed})"
            )


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="scorekeeper", description="A table's score keeper.")
    sub = parser.add_subparsers(dest="command", required=True)

    def with_db(p):
        p.add_argument("--db", help="the SQLite file (default: in the app's instance folder)")
        return p

    def with_lang(p):
        p.add_argument(
            "--lang",
            type=_language,
            choices=LANGUAGES,
            default="en",
            help="the language of the sentences in the answer (default: en)",
        )
        return p

    p = with_lang(sub.add_parser("score", help="answer one JSON request of CONTRACT.md"))
    p.add_argument("kind")
    p.add_argument("--file", help="read the request from this file instead of stdin")
    p.set_defaults(func=cmd_score)

    p = with_lang(sub.add_parser("play", help="a deal's state from its taps (PLAY.md)"))
    p.add_argument("game")
    p.add_argument("--file", help="read the request from this file instead of stdin")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("roll", help="roll a game's dice (Kvanta's target or exchange)")
    p.add_argument("kind", help="the roll: kvanta-target or kvanta-exchange")
    p.set_defaults(func=cmd_roll)

    p = with_db(sub.add_parser("serve", help="serve the app to the phones at the table"))
    p.add_argument("--host", default="0.0.0.0")
    p.add_argument("--port", type=_port, default=8000)
    p.add_argument(
        "--workers",
        type=_positive,
        default=None,
        help="worker processes (default: one per core, at most 8)",
    )
    p.add_argument(
        "--threads", type=_positive, default=None, help="threads per worker (default: 4)"
    )
    p.add_argument("--no-qr", action="store_true", help="don't print the QR code")
    p.set_defaults(func=cmd_serve)

    p = with_db(sub.add_parser("tables", help="list the tables with their links"))
    p.add_argument(
        "--base-url",
        help="the address phones use (default: the one `serve` is serving this database at,"
        " else this machine's LAN address on port 8000)",
    )
    p.set_defaults(func=cmd_tables)

    p = with_db(sub.add_parser("delete", help="delete a table"))
    p.add_argument("table", help="the table's scorer or watch key, or its link")
    p.set_defaults(func=cmd_delete)

    p = with_db(sub.add_parser("export", help="export a table as JSON or CSV"))
    p.add_argument("table", help="the table's scorer or watch key, or its link")
    p.add_argument("--format", choices=["json", "csv"], default="json")
    p.add_argument("-o", "--output", help="write to this file instead of stdout")
    p.set_defaults(func=cmd_export)

    p = with_lang(with_db(sub.add_parser("import", help="import a table from a JSON export")))
    p.add_argument("file")
    p.add_argument("--base-url")
    p.set_defaults(func=cmd_import)

    p = with_db(sub.add_parser("backup", help="copy the whole database, safely while in use"))
    p.add_argument("path")
    p.set_defaults(func=cmd_backup)

    p = with_db(sub.add_parser("print", help="build every rule card and blank score sheet as PDF"))
    p.add_argument(
        "-o", "--output", help="folder (default: printables/build), a folder a language in it"
    )
    p.add_argument(
        "--lang",
        type=_language,
        default="en",
        choices=(*LANGUAGES, "all"),
        help="the language to print in, or all six (default: en)",
    )
    p.set_defaults(func=cmd_print)
    return parser


# Older keys may start with "-"; argparse would take one for an unknown option.
COMMANDS_TAKING_A_KEY = ("delete", "export")
OPTIONS_TAKING_A_VALUE = ("--db", "--format", "-o", "--output")
DASHED_KEY = re.compile(r"-[A-Za-z0-9_-]{21,}")


def _dashed_key_last(argv: list[str]) -> list[str]:
    """Moves a key that starts with "-" behind "--", where argparse reads it as the table."""
    if not argv or argv[0] not in COMMANDS_TAKING_A_KEY or "--" in argv:
        return argv
    for i, arg in enumerate(argv[1:], start=1):
        if DASHED_KEY.fullmatch(arg) and argv[i - 1] not in OPTIONS_TAKING_A_VALUE:
            return [*argv[:i], *argv[i + 1 :], "--", arg]
    return argv


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser().parse_args(_dashed_key_last(argv))
    try:
        code = args.func(args)
        sys.stdout.flush()  # here, so a reader gone away is caught below
        return code
    except BrokenPipeError:
        # the reader stopped early (``scorekeeper tables | head``): nothing more to say,
        # and nothing left for the interpreter to flush into the closed pipe at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except CommandError as exc:
        sys.stderr.write(f"{exc}\n")
        return 2
    except Exception as exc:
        from . import store  # not at the top: ``score`` and ``roll`` go without it

        reason = store.unavailable(exc)  # the machine's fault: said plainly, no traceback
        if reason is None:
            raise
        sys.stderr.write(f"{reason}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
