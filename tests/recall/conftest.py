"""These tests run on every backend: ``db_url`` is the parameterised ``search_db``."""

from __future__ import annotations

import pytest

from ..conftest import SearchDb


@pytest.fixture
def db_url(search_db: SearchDb) -> str:
    return search_db.url
