"""The real built Tessera server (apps/server/dist/main.js) as the SDK suites meet it: on a free
loopback port with a fresh data directory (or the DATABASE_URL of the environment), with an owner
whose API key the caller gets. Shared by tests/sdk (conftest.py) and the SDK's own integration suite
(tests/sdk-integration/run_suite.py)."""
import os
import shutil
import socket
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
OWNER_PASSWORD = "sdk-owner-password"


@dataclass
class RunningServer:
    url: str
    api_key: str
    log_path: Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def tessera_server(data_dir: Path):
    """Starts the server with its data in `data_dir` (which must exist) and stops it on leaving."""
    node = os.environ.get("TESSERA_NODE") or shutil.which("node")
    main = ROOT / "apps/server/dist/main.js"
    assert main.exists(), "build the server first (pnpm turbo run build)"
    port = free_port()
    env = {**os.environ, "TESSERA_PORT": str(port), "TESSERA_HOST": "127.0.0.1", "TESSERA_DATA_DIR": str(data_dir),
           "TESSERA_OWNER_USERNAME": "owner", "TESSERA_OWNER_PASSWORD": OWNER_PASSWORD, "TESSERA_LOG_LEVEL": "error"}
    log_path = Path(data_dir) / "server.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen([node, str(main)], env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.time() + 60
            while True:
                try:
                    if httpx.get(f"{url}/api/v1/settings", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError("server did not start: " + log_path.read_text())
                time.sleep(0.1)
            token = httpx.post(f"{url}/api/v1/token", data={"username": "owner", "password": OWNER_PASSWORD}).json()["access_token"]
            auth = {"Authorization": f"Bearer {token}"}
            me = httpx.get(f"{url}/api/v1/me", headers=auth).json()
            # The owner's API key from a rotation, as in the web app (keys may be shown only when made).
            api_key = httpx.post(f"{url}/api/v1/users/{me['id']}/api-key", headers=auth).raise_for_status().json()["api_key"]
            yield RunningServer(url=url, api_key=api_key, log_path=log_path)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
