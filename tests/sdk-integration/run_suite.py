"""Runs the argilla SDK's own integration suite (`tests/integration` of an unpacked sdist) against the
real built Tessera server, as a user's scripts would reach it (ARGILLA_API_URL, ARGILLA_API_KEY of
an owner). Called by tools/scripts/sdk-integration.sh, which downloads and checks the sdist.

Starts apps/server/dist/main.js on a free loopback port with a fresh data directory (or the
DATABASE_URL it is given), runs pytest on the suite with only the tests that need the Hugging Face
Hub deselected (each with its reason below), prints the counts and exits non-zero when any test
fails or errs, when a deselected name matches no test, or when a test is skipped other than by the
suite's own unconditional skip marks listed below.
"""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
OWNER_PASSWORD = "sdk-integration-owner-password"

HUB_WRITE = "pushes a dataset to, and reads it back from, the argilla-internal-testing organisation on the Hugging Face Hub (needs HF_TOKEN_ARGILLA_INTERNAL_TESTING and the internet)"
HUB_READ = "reads a dataset of the argilla-internal-testing organisation from the Hugging Face Hub (needs HF_TOKEN_ARGILLA_INTERNAL_TESTING and the internet)"
# Deselected by name (pytest --deselect matches a node id prefix; "[" keeps one name from selecting
# another that starts like it). Nothing else is deselected, skipped or edited.
NEEDS_THE_HUB = {
    "tests/integration/test_export_dataset.py::TestHubImportExportMixin::test_export_dataset_to_hub[": HUB_WRITE,
    "tests/integration/test_export_dataset.py::TestHubImportExportMixin::test_import_dataset_from_hub[": HUB_WRITE,
    "tests/integration/test_export_dataset.py::TestHubImportExportMixin::test_import_dataset_from_hub_using_settings[": HUB_WRITE,
    "tests/integration/test_export_dataset.py::TestHubImportExportMixin::test_import_dataset_from_hub_using_wrong_settings[": HUB_WRITE,
    "tests/integration/test_export_dataset.py::TestHubImportExportMixin::test_import_dataset_from_hub_with_automatic_settings[": HUB_WRITE,
    "tests/integration/test_import_features.py::TestImportFeaturesFromHub::test_import_records_from_datasets_with_classlabel": HUB_WRITE,
    "tests/integration/test_import_features.py::TestImportFeaturesFromHub::test_import_from_hub_with_upper_case_columns": HUB_READ,
    "tests/integration/test_import_features.py::TestImportFeaturesFromHub::test_import_from_hub_with_unlabelled_classes": HUB_READ,
    "tests/integration/test_import_features.py::TestImportFeaturesFromHub::test_import_with_row_id_as_record_id": HUB_READ,
}
# Skipped by the suite itself, unconditionally (@pytest.mark.skip in the sdist): not ours to run.
SKIPPED_BY_THE_SUITE = {
    "tests.integration.test_update_records.TestUpdateSuggestions::test_update_records_without_fields",
}
# A hanging test (a similarity iteration that never ends) fails after this long instead of holding the run.
TEST_TIMEOUT_SECONDS = 600


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(work: Path):
    node = os.environ.get("TESSERA_NODE") or shutil.which("node")
    main = ROOT / "apps/server/dist/main.js"
    if not main.exists():
        sys.exit("build the server first (pnpm turbo run build)")
    data_dir = work / "data"
    data_dir.mkdir()
    port = free_port()
    env = {**os.environ, "TESSERA_PORT": str(port), "TESSERA_HOST": "127.0.0.1", "TESSERA_DATA_DIR": str(data_dir),
           "TESSERA_OWNER_USERNAME": "owner", "TESSERA_OWNER_PASSWORD": OWNER_PASSWORD, "TESSERA_LOG_LEVEL": "error"}
    log_path = work / "server.log"
    log = open(log_path, "w")
    proc = subprocess.Popen([node, str(main)], env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while True:
        try:
            if httpx.get(f"{url}/api/v1/settings", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            sys.exit("the server did not start:\n" + log_path.read_text())
        time.sleep(0.2)
    token = httpx.post(f"{url}/api/v1/token", data={"username": "owner", "password": OWNER_PASSWORD}).json()["access_token"]
    auth = {"Authorization": f"Bearer {token}"}
    me = httpx.get(f"{url}/api/v1/me", headers=auth).json()
    # The owner's API key from a rotation (as in the web app): keys may be shown only when made.
    api_key = httpx.post(f"{url}/api/v1/users/{me['id']}/api-key", headers=auth).raise_for_status().json()["api_key"]
    return proc, log, log_path, url, api_key


def collected(suite: Path, env: dict) -> list:
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests/integration"],
                         cwd=suite, env=env, capture_output=True, text=True)
    # Node ids only (the warnings summary also has lines starting with a test file's path).
    ids = [line for line in out.stdout.splitlines() if re.fullmatch(r"tests/integration/\S+::\S+", line)]
    if out.returncode != 0 or not ids:
        sys.exit(f"collecting the suite failed:\n{out.stdout}\n{out.stderr}")
    return ids


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", required=True, help="the unpacked sdist (holds tests/integration)")
    args = parser.parse_args()
    suite = Path(args.suite)
    work = Path(tempfile.mkdtemp(prefix="tessera-sdk-integration-run-"))
    proc = None
    log = None
    try:
        proc, log, log_path, url, api_key = start_server(work)
        hf_home = work / "hf"
        env = {**os.environ, "ARGILLA_API_URL": url, "ARGILLA_API_KEY": api_key,
               # Nothing selected reaches the Hub: offline mode makes a stray call fail at once.
               "HF_HOME": str(hf_home), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}
        env.pop("HF_TOKEN_ARGILLA_INTERNAL_TESTING", None)

        ids = collected(suite, env)
        unmatched = [name for name in NEEDS_THE_HUB if not any(i.startswith(name) for i in ids)]
        if unmatched:
            print("deselected names that match no test of the suite: " + ", ".join(unmatched))
            return 1
        deselected = [i for i in ids if i.startswith(tuple(NEEDS_THE_HUB))]
        print(f"SDK integration suite: {len(ids)} tests collected, {len(deselected)} deselected because they need the Hugging Face Hub:")
        for name, reason in NEEDS_THE_HUB.items():
            print(f"  {name.rstrip('[')}  ({sum(i.startswith(name) for i in deselected)}): {reason}")
        sys.stdout.flush()

        junit = work / "junit.xml"
        command = [sys.executable, "-m", "pytest", "-q", "-rfEs", "--disable-warnings", "-p", "no:cacheprovider",
                   f"--timeout={TEST_TIMEOUT_SECONDS}", f"--junitxml={junit}", "tests/integration"]
        for name in NEEDS_THE_HUB:
            command += ["--deselect", name]
        rc = subprocess.run(command, cwd=suite, env=env).returncode

        if not junit.exists():
            print(f"pytest ended ({rc}) without a report")
            return 1
        tree = ET.parse(junit)
        cases = list(tree.iter("testcase"))
        failed = [c for c in cases if c.find("failure") is not None or c.find("error") is not None]
        skipped = [f"{c.get('classname')}::{c.get('name')}" for c in cases if c.find("skipped") is not None]
        passed = len(cases) - len(failed) - len(skipped)
        unexpected_skips = [s for s in skipped if s not in SKIPPED_BY_THE_SUITE]
        print(f"SDK integration suite (argilla 2.8.0 tests/integration, {'PostgreSQL' if os.environ.get('DATABASE_URL') else 'SQLite'}): "
              f"{passed} passed, {len(failed)} failed, {len(skipped)} skipped by the suite itself, {len(deselected)} deselected (Hub), of {len(ids)}")
        if unexpected_skips:
            print("skipped, but not by the suite's own unconditional marks: " + ", ".join(unexpected_skips))
        ok = rc == 0 and not failed and not unexpected_skips and passed > 0 and len(cases) == len(ids) - len(deselected)
        if not ok:
            print("--- last lines of the server log ---")
            print("\n".join(log_path.read_text().splitlines()[-40:]))
        return 0 if ok else 1
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if log is not None:
            log.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
