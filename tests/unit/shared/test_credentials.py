"""MinIO credentials: explicit settings win, else the file ``make up`` writes; none at all is a
clear error, never MinIO's defaults."""
from __future__ import annotations

from pathlib import Path

import pytest

from shared.settings import Settings, read_credentials
from shared.storage import ObjectStore


def test_credentials_come_from_the_file_when_unset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MINIO_ACCESS_KEY", raising=False)
    monkeypatch.delenv("MINIO_SECRET_KEY", raising=False)
    f = tmp_path / "minio.credentials"
    f.write_text("# made by make up\nMINIO_ACCESS_KEY=legco-0a1b2c3d4e5f\nMINIO_SECRET_KEY=" + "9" * 40 + "\n")
    s = Settings(minio_credentials_file=f)
    assert (s.minio_access_key, s.minio_secret_key) == ("legco-0a1b2c3d4e5f", "9" * 40)
    explicit = Settings(minio_credentials_file=f, minio_access_key="ops", minio_secret_key="s" * 20)
    assert (explicit.minio_access_key, explicit.minio_secret_key) == ("ops", "s" * 20)
    assert read_credentials(tmp_path / "missing") == {}


def test_no_credentials_is_an_error_not_minioadmin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MINIO_ACCESS_KEY", raising=False)
    monkeypatch.delenv("MINIO_SECRET_KEY", raising=False)
    s = Settings(minio_credentials_file=tmp_path / "missing")
    assert s.minio_access_key == "" and s.minio_secret_key == ""
    with pytest.raises(ValueError, match="No MinIO credentials"):
        ObjectStore(s)


def test_allowed_hosts_from_a_comma_separated_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALLOWED_HOSTS", " Legco.Example.org, *.internal ,,localhost")
    assert Settings().allowed_hosts == ["legco.example.org", "*.internal", "localhost"]
    monkeypatch.delenv("ALLOWED_HOSTS")
    assert Settings().allowed_hosts == ["localhost", "127.0.0.1", "::1"]
