"""Who may read what: the department rule, in one place for the gateway (documents, SSE) and
the query service (Chroma searches, the keyword index).

A *scope* is the set of departments whose documents a caller may read, or ``None`` for every
department (an admin without a department filter). Whatever the scope, documents whose
visibility is ``shared`` (the shared library) are in it. Records, manifests and vector metadata
written before departments existed carry no visibility and read as ``department``; their
department is ``default``.
"""
from __future__ import annotations

from collections.abc import Collection
from typing import Any

DEFAULT_DEPARTMENT = "default"
SHARED = "shared"

Scope = Collection[str] | None
"""Departments a caller may read (plus the shared library); ``None``: every department."""


def in_scope(department: str | None, visibility: str | None, scope: Scope) -> bool:
    """True when a document of ``department`` with ``visibility`` may be read in ``scope``
    (missing values read as department ``default``, visibility ``department``)."""
    if scope is None or (visibility or "department") == SHARED:
        return True
    return (department or DEFAULT_DEPARTMENT) in scope


def meta_in_scope(meta: dict[str, Any], scope: Scope) -> bool:
    """:func:`in_scope` of a chunk's flat Chroma metadata (``department``, ``visibility``)."""
    return in_scope(meta.get("department"), meta.get("visibility"), scope)


def chroma_where(scope: Scope) -> dict[str, Any] | None:
    """The Chroma ``where`` condition of ``scope``: department in the scope or visibility
    ``shared`` (``None``: no condition). An empty scope reads the shared library only."""
    if scope is None:
        return None
    shared = {"visibility": SHARED}
    if not scope:
        return shared
    return {"$or": [{"department": {"$in": sorted(scope)}}, shared]}


def scope_label(scope: Scope) -> str:
    """Metrics label of a scope: its department (several joined with ``,``), or ``all``."""
    return ",".join(sorted(scope)) if scope else "all" if scope is None else "shared"
