"""``python -m services.gateway.bootstrap KEY_FILE``: the first admin key of a deployment.

Run by ``scripts/stack.sh up`` once MinIO is up and before the gateway starts. When the key store
(MinIO ``auth/keys/``) holds no active admin key, it creates one (department ``default``, the
department of documents indexed before departments existed), writes it to ``KEY_FILE`` with mode
0600 and prints where it is. Otherwise it does nothing: a restart never creates or replaces a key.
If every admin key was revoked, the next bootstrap creates a new one (the operator's way back in).
"""
from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from services.gateway.auth.keys import KeyStore
from shared.settings import get_settings
from shared.storage import open_store


async def bootstrap(key_file: Path) -> str | None:
    """Create and write the first admin key if there is none; returns it, else ``None``."""
    keys = KeyStore(await open_store(get_settings()))
    await keys.load()
    if keys.has_active_admin():
        return None
    key, _ = await keys.create("default", "admin", label="bootstrap admin key")
    key_file.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(key + "\n")
    os.chmod(key_file, 0o600)
    return key


def main() -> int:
    """Entry point; exit code 0 (created or already there), 2 on usage errors."""
    if len(sys.argv) != 2:
        sys.stderr.write("usage: python -m services.gateway.bootstrap KEY_FILE\n")
        return 2
    path = Path(sys.argv[1])
    created = asyncio.run(bootstrap(path))
    if created:
        sys.stdout.write(f"[stack] admin key created: {path} (mode 0600; shown once, keep it safe)\n")
    else:
        where = f" ({path})" if path.exists() else ""
        sys.stdout.write(f"[stack] admin key: an active admin key exists{where}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
