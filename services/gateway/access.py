"""Which documents a caller may see, change and upload to: the gateway's department rules.

* A caller reads its department's documents and the shared library (``visibility`` ``shared``);
  an admin reads every department, or, when it names one (``?department=X`` on the list and
  event routes), that department's documents and the shared library.
* A document outside the caller's scope is answered exactly as a missing one (404, the same
  body), so no route reveals that another department's document exists.
* Members change (delete, delete chunks of, replace) their department's documents; admins any
  document. Shared documents are readable by every department but changed by admins only: a
  member gets 403 with that reason (it can see the document, so a 404 would be a lie).
* Uploads go to the caller's department; only an admin names another (``?department=``) or
  files into the shared library (``?visibility=shared``).

The rules are plain functions of the ``Caller`` and the ``DocumentRecord`` (the route
dependencies in ``api/deps.py`` apply them), so they are tested without a gateway.
"""
from __future__ import annotations

from fastapi import HTTPException

from services.gateway.auth.keys import valid_department
from shared.api import Caller, DocumentRecord
from shared.models import VISIBILITIES, Visibility
from shared.scope import Scope, in_scope

NO_DOCUMENT = "No such document."
NO_PAGE = "No such page."
NO_CHUNK = "No such chunk."
SHARED_IS_ADMIN_ONLY = ("This document is in the shared library: only an admin key can delete, replace or change "
                        "it.")


def read_scope(caller: Caller, department: str | None = None) -> Scope:
    """The departments ``caller`` reads (plus the shared library); ``None``: every department.

    Args:
        department: a department filter (``?department=``): an admin's choice of one department;
            for anyone else it may only name their own (or be omitted).

    Raises:
        HTTPException: 400 for a malformed department name, 403 when a non-admin names another
            department.
    """
    if department is not None and department.strip() == "":
        department = None
    if department is not None and not valid_department(department):
        raise HTTPException(400, "A department name is 1-63 lowercase letters, digits or '-'.")
    if caller.role == "admin":
        return None if department is None else frozenset({department})
    if department is not None and department != caller.department:
        raise HTTPException(403, "Only an admin key can choose another department.")
    return frozenset({caller.department})


def can_read(scope: Scope, record: DocumentRecord) -> bool:
    """True when a document is in ``scope`` (its department's, or shared)."""
    return in_scope(record.department, record.visibility, scope)


def visible(caller: Caller, record: DocumentRecord | None) -> DocumentRecord | None:
    """``record`` when ``caller`` may read it (any department filter aside), else ``None``."""
    if record is None or not can_read(read_scope(caller), record):
        return None
    return record


def check_can_modify(caller: Caller, record: DocumentRecord) -> None:
    """Allow ``caller`` (already a member or admin, and able to read ``record``) to delete or
    change ``record``.

    Raises:
        HTTPException: 403 when the document is shared and the caller is not an admin.
    """
    if caller.role != "admin" and record.visibility == "shared":
        raise HTTPException(403, SHARED_IS_ADMIN_ONLY)


def upload_target(caller: Caller, department: str | None, visibility: str | None) -> tuple[str, Visibility]:
    """The (department, visibility) an upload of ``caller`` is filed under.

    Args:
        department: ``?department=`` (default: the caller's department).
        visibility: ``?visibility=`` (``department`` default, or ``shared``).

    Raises:
        HTTPException: 400 for an unknown visibility or a malformed department name; 403 when a
            non-admin names another department or the shared library.
    """
    vis = (visibility or "department").strip() or "department"
    if vis not in VISIBILITIES:
        raise HTTPException(400, f"Unknown visibility {vis!r}; use one of: {', '.join(VISIBILITIES)}.")
    dept = (department or "").strip() or caller.department
    if not valid_department(dept):
        raise HTTPException(400, "A department name is 1-63 lowercase letters, digits or '-'.")
    if caller.role != "admin":
        if dept != caller.department:
            raise HTTPException(403, "Only an admin key can upload to another department.")
        if vis == "shared":
            raise HTTPException(403, "Only an admin key can upload to the shared library.")
    return dept, "shared" if vis == "shared" else "department"
