"""The built web frontend, served by the gateway at ``/`` (one origin for the app and the API)."""
from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, HTTPException, Response
from fastapi.responses import FileResponse, HTMLResponse


def mount_frontend(app: FastAPI, dist: Path) -> None:
    """Serve the built frontend ``dist`` (``frontend/dist``) at ``/`` with a single-page-app
    fallback; a page that says how to build it when it was not built."""

    root = dist.resolve()

    @app.get("/{path:path}", include_in_schema=False)
    def spa(path: str) -> Response:  # sync: FastAPI runs it in a thread (file-system checks)
        if path.startswith("api/"):
            raise HTTPException(404, "Not found.")
        if not (root / "index.html").exists():
            return HTMLResponse("<h1>LegCo briefing assistant</h1><p>The web frontend is not built; "
                                "run <code>make up</code>. The API is at <a href='/docs'>/docs</a>.</p>")
        candidate = (root / path).resolve()
        if path and candidate.is_file() and root in candidate.parents:
            return FileResponse(candidate)
        return FileResponse(root / "index.html")
