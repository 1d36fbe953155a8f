"""``pagewise config list|get|set|unset``: the settings the window's dialog edits, from a shell.

Values are checked as the settings dialog checks them; ``list`` shows where each value in force
comes from (the environment, the file, or the default).
"""

from __future__ import annotations

import argparse
import sys

from app.services.output import add_json_flag, emit_json


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("config", help="show or change the settings (the same file the window uses)")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="every setting, its value and where it comes from")
    add_json_flag(listing)
    get = actions.add_parser("get", help="one setting's value in force")
    get.add_argument("key", metavar="KEY")
    add_json_flag(get)
    put = actions.add_parser("set", help="store a value (checked as the settings dialog does)")
    put.add_argument("key", metavar="KEY")
    put.add_argument("value", metavar="VALUE")
    unset = actions.add_parser("unset", help="go back to the default")
    unset.add_argument("key", metavar="KEY")
    actions.add_parser("path", help="where the settings file is")
    parser.set_defaults(handler=run)


def _key(key: str) -> str:
    from app.services.settings import BY_KEY
    from summarizer.errors import SettingsError

    name = key.replace("-", "_")
    if name not in BY_KEY:
        raise SettingsError(f"There is no setting '{key}'. Settings: {', '.join(BY_KEY)}.")
    return name


def run(args: argparse.Namespace) -> int:
    from app.services.settings import BY_KEY, SCHEMA, Settings

    settings = Settings.load()
    if args.action == "path":
        print(settings.path)
        return 0
    if args.action == "list":
        rows = [
            {"key": s.key, "value": settings.effective(s.key), "source": settings.source(s.key), "label": s.label}
            for s in SCHEMA
        ]
        if args.json:
            emit_json({"path": str(settings.path), "settings": rows})
            return 0
        width = max(len(s.key) for s in SCHEMA)
        for row in rows:
            print(f"{row['key']:<{width}}  {row['value']!s:<30}  ({row['source']})")
        print(f"\nFile: {settings.path}")
        return 0
    key = _key(args.key)
    if args.action == "get":
        value = settings.effective(key)
        if args.json:
            emit_json({"key": key, "value": value, "source": settings.source(key)})
        else:
            print(value)
        return 0
    if args.action == "unset":
        settings.update({key: BY_KEY[key].default})
    else:
        settings.update({key: args.value})
    settings.save()
    if settings.source(key) == "environment":
        sys.stderr.write(f"pagewise: stored, but the environment overrides {key} in this shell.\n")
    return 0
