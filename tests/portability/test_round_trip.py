"""A tenant carried SQLite → PostgreSQL → SQLite answers every read as it did, at every
instant its export records, and its exports are equal record for record."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgam import Memory
from sgam.portability.exporter import export_tenant
from sgam.portability.importer import import_tenant
from sgam.replay import load_scenario, run_scenario
from tests.conftest import BACKENDS, PostgresUrls

from .reads import reads, recorded_instants, records

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "scenarios").rglob("*.yaml"))
SPEC_EXAMPLES = ROOT.parents[1] / "shared" / "spec" / "examples"
SPEC = sorted(SPEC_EXAMPLES.rglob("*.yaml")) if SPEC_EXAMPLES.is_dir() else []


@pytest.fixture(autouse=True)
def _one_erasure_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tombstones match only under the key they were made with: every store shares one."""
    monkeypatch.setenv("SGAM_ERASURE_KEY", "portability-test-key-" + "k" * 20)


def _middle_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if "postgres" in BACKENDS:
        urls: PostgresUrls = request.getfixturevalue("postgres")
        return urls.app
    return f"sqlite:///{tmp_path / 'middle.db'}"


def carried(source: Memory, tenant: str, stores: list[Memory], folder: Path) -> list[Path]:
    """Export ``tenant`` from ``source``, import it into each of ``stores`` in turn (each
    from the one before), and return every export made on the way."""
    files = [folder / f"{tenant}.0.jsonl"]
    export_tenant(source.ledger, tenant, files[0])
    for number, store in enumerate(stores, start=1):
        import_tenant(store.ledger, tenant, files[-1])
        files.append(folder / f"{tenant}.{number}.jsonl.gz" if number % 2 else folder / f"{tenant}.{number}.jsonl")
        export_tenant(store.ledger, tenant, files[-1])
    return files


def _plain(path: Path, folder: Path) -> Path:
    if path.suffix != ".gz":
        return path
    import gzip

    plain = folder / path.stem
    plain.write_bytes(gzip.decompress(path.read_bytes()))
    return plain


@pytest.mark.parametrize("scenario", SCENARIOS + SPEC, ids=lambda path: str(path.relative_to(path.parents[1])))
def test_a_scenario_carried_to_postgres_and_back_answers_the_same(
    scenario: Path, request: pytest.FixtureRequest, tmp_path: Path,
) -> None:
    loaded = load_scenario(scenario)
    tenants = sorted({loaded.tenant, *(step.tenant for step in loaded.steps)})
    with Memory(f"sqlite:///{tmp_path / 'first.db'}") as first, Memory(_middle_url(request, tmp_path)) as middle, \
            Memory(f"sqlite:///{tmp_path / 'last.db'}") as last:
        run_scenario(loaded, first)
        middle.clock = last.clock = first.clock
        carried_records = 0
        for tenant in tenants:
            files = [_plain(path, tmp_path) for path in carried(first, tenant, [middle, last], tmp_path)]
            carried_records += len(records(files[0]))
            assert records(files[0]) == records(files[1]) == records(files[2])
            instants = recorded_instants(files[0])
            expected = reads(first, tenant, instants)
            assert reads(middle, tenant, instants) == expected
            assert reads(last, tenant, instants) == expected
        assert carried_records, "a scenario leaves its tenant something to carry"
