"""Starts the real built Tessera server (apps/server/dist) on a free loopback port with a fresh
data directory, and hands the tests an official `argilla` SDK client signed in as the owner."""
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
OWNER_PASSWORD = "sdk-owner-password"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def server():
    node = os.environ.get("TESSERA_NODE") or shutil.which("node")
    main = ROOT / "apps/server/dist/main.js"
    assert main.exists(), "build the server first (pnpm turbo run build)"
    data_dir = tempfile.mkdtemp(prefix="tessera-sdk-")
    port = _free_port()
    env = {**os.environ, "TESSERA_PORT": str(port), "TESSERA_HOST": "127.0.0.1", "TESSERA_DATA_DIR": data_dir,
           "TESSERA_OWNER_USERNAME": "owner", "TESSERA_OWNER_PASSWORD": OWNER_PASSWORD, "TESSERA_LOG_LEVEL": "error"}
    log = open(Path(data_dir) / "server.log", "w")
    proc = subprocess.Popen([node, str(main)], env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 30
    while True:
        try:
            if httpx.get(f"{url}/api/v1/settings", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.time() > deadline:
            raise RuntimeError("server did not start: " + (Path(data_dir) / "server.log").read_text())
        time.sleep(0.1)
    token = httpx.post(f"{url}/api/v1/token", data={"username": "owner", "password": OWNER_PASSWORD}).json()["access_token"]
    # API keys are stored as digests and shown once: the owner's comes from a rotation, as in the web app.
    me = httpx.get(f"{url}/api/v1/me", headers={"Authorization": f"Bearer {token}"}).json()
    api_key = httpx.post(f"{url}/api/v1/users/{me['id']}/api-key", headers={"Authorization": f"Bearer {token}"}).json()["api_key"]
    yield {"url": url, "api_key": api_key}
    proc.terminate()
    proc.wait(timeout=10)
    log.close()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def client(server):
    import argilla as rg

    return rg.Argilla(api_url=server["url"], api_key=server["api_key"])
