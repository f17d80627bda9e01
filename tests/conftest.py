"""Fixtures shared by the tests of the built site."""

from pathlib import Path

import pytest
from make_pdf import build


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The site as `make test` builds it (--strict), built once for every test that reads it."""
    out = tmp_path_factory.mktemp("site")
    build(out)
    return out
