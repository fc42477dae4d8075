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
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sdk"))
from tessera_server import tessera_server  # noqa: E402 (the SDK suites' shared server harness)

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
    try:
        (work / "data").mkdir()
        with tessera_server(work / "data") as server:
            return run(suite, work, server)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(suite: Path, work: Path, server) -> int:
    env = {**os.environ, "ARGILLA_API_URL": server.url, "ARGILLA_API_KEY": server.api_key,
           # Nothing selected reaches the Hub: offline mode makes a stray call fail at once.
           "HF_HOME": str(work / "hf"), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}
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

    cases = list(ET.parse(junit).iter("testcase"))
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
        print("\n".join(server.log_path.read_text().splitlines()[-40:]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
