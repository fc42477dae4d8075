"""Starts the real built Tessera server (apps/server/dist) on a free loopback port with a fresh data
directory (tessera_server.py), and hands the tests an official `argilla` SDK client signed in as the owner."""
import shutil
import tempfile
from pathlib import Path

import pytest

from tessera_server import tessera_server


@pytest.fixture(scope="session")
def server():
    data_dir = tempfile.mkdtemp(prefix="tessera-sdk-")
    try:
        with tessera_server(Path(data_dir)) as running:
            yield {"url": running.url, "api_key": running.api_key}
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def client(server):
    import argilla as rg

    return rg.Argilla(api_url=server["url"], api_key=server["api_key"])
