"""``legco`` entry point: argument parsing and dispatch to the subcommand modules."""
from __future__ import annotations

import argparse
import os
import sys

from cli import api, ask_cmd, audit_cmd, dlq_cmd, docs_cmd, eval_cmd, ingest_cmd, keys_cmd, reindex_cmd, split_cmd
from shared.settings import ClientSettings


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand; each sets ``func`` (returns the exit code)."""
    ap = argparse.ArgumentParser(prog="legco", description="Client for the LegCo briefing assistant.")
    ap.add_argument("--url", default=None,
                    help=f"gateway URL (default: $LEGCO_URL or {ClientSettings.model_fields['url'].default})")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (ingest_cmd, ask_cmd, docs_cmd, split_cmd, eval_cmd, keys_cmd, audit_cmd, dlq_cmd, reindex_cmd):
        module.add_parser(sub)
    return ap


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse ``argv`` (default ``sys.argv[1:]``), read ``client`` (``ClientSettings`` from the
    environment) and resolve ``url`` (flag, else ``LEGCO_URL``, else the default)."""
    args = build_parser().parse_args(argv)
    args.client = ClientSettings()
    args.url = api.resolve_url(args.url, args.client)
    return args


def main(argv: list[str] | None = None) -> int:
    """Run ``legco``; returns the process exit code (0 ok, 1 failure, 2 usage error)."""
    args = parse_args(argv)
    try:
        code: int = args.func(args)
        return code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
