"""``legco keys create|list|revoke``: manage API keys (needs an admin key).

``create --department NAME --role member|reader|admin [--label L]`` prints what was made and
then the new key alone on the last line of standard output (``legco keys create … | tail -1``);
the key is not shown again. ``list [--json]`` shows every key's department, role, prefix,
label, created, last-used and revoked times; ``revoke PREFIX`` (the 8 characters after
``lgk_``, or the whole key) revokes one: its next request gets 401.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from cli import api

ROLES = ("member", "reader", "admin")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``keys`` subcommand and its three actions."""
    p = sub.add_parser("keys", help="create, list and revoke API keys (admin key needed)")
    actions = p.add_subparsers(dest="keys_action", required=True, metavar="ACTION")
    c = actions.add_parser("create", help="create a key; the key is printed once, alone on the last line")
    c.add_argument("--department", required=True, help="department name (lowercase letters, digits, '-')")
    c.add_argument("--role", required=True, choices=ROLES)
    c.add_argument("--label", default="", help="who or what the key is for")
    c.set_defaults(func=run_create)
    ls = actions.add_parser("list", help="list every key (prefix only, never the key)")
    ls.add_argument("--json", action="store_true", help="print the raw JSON response")
    ls.set_defaults(func=run_list)
    r = actions.add_parser("revoke", help="revoke a key by its prefix")
    r.add_argument("prefix", help="the key's prefix (lgk_<prefix>_…), or the whole key")
    r.set_defaults(func=run_revoke)


def key_prefix(value: str) -> str:
    """The prefix of ``lgk_<prefix>_<secret>``, ``lgk_<prefix>`` or ``<prefix>``."""
    v = value.strip()
    if v.startswith("lgk_"):
        v = v[4:].split("_", 1)[0]
    return v.lower()


async def _call(args: argparse.Namespace, fn: Any, *params: Any) -> dict[str, Any]:
    async with api.make_client(args.url, args.client) as client:
        body: dict[str, Any] = await fn(client, *params)
        return body


def _fail(e: api.ApiError) -> int:
    print(f"error: {e}", file=sys.stderr)
    return 1


def run_create(args: argparse.Namespace) -> int:
    """Create a key; exit code 1 on an API error."""
    try:
        made = asyncio.run(_call(args, api.create_key, args.department, args.role, args.label))
    except api.ApiError as e:
        return _fail(e)
    label = f' ("{made["label"]}")' if made.get("label") else ""
    print(f"created {made['role']} key {made['key_prefix']} for department {made['department']}{label}.")
    print("It is shown this once; keep it safe (sign in with it, or set LEGCO_API_KEY):")
    print(made["key"])
    return 0


def _when(ts: str | None) -> str:
    return (ts or "")[:19].replace("T", " ")


def print_keys(listing: dict[str, Any]) -> None:
    """One table row per key, oldest first."""
    table = Table(show_edge=False, pad_edge=False)
    for col in ("department", "role", "prefix", "label", "created", "last used", "revoked"):
        table.add_column(col)
    for k in listing.get("keys", []):
        table.add_row(k.get("department", ""), k.get("role", ""), k.get("key_prefix", ""), k.get("label", ""),
                      _when(k.get("created_at")), _when(k.get("last_used_at")) or "never",
                      _when(k.get("revoked_at")))
    console = Console() if sys.stdout.isatty() else Console(width=200)
    console.print(table, highlight=False, markup=False)
    active = sum(1 for k in listing.get("keys", []) if not k.get("revoked_at"))
    console.print(f"{len(listing.get('keys', []))} keys, {active} active", highlight=False)


def run_list(args: argparse.Namespace) -> int:
    """List the keys; exit code 1 on an API error."""
    try:
        listing = asyncio.run(_call(args, api.list_keys))
    except api.ApiError as e:
        return _fail(e)
    if args.json:
        print(json.dumps(listing, ensure_ascii=False, indent=2))
    else:
        print_keys(listing)
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    """Revoke a key; exit code 1 on an API error (404: no key has that prefix)."""
    try:
        done = asyncio.run(_call(args, api.revoke_key, key_prefix(args.prefix)))
    except api.ApiError as e:
        return _fail(e)
    print(f"revoked key {done['key_prefix']}; its next request gets 401.")
    return 0
