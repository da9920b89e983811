import pytest

from aqmlab import catalog


@pytest.fixture(scope="session")
def quick_outcomes():
    """Every experiment of the catalog in quick mode, two processes at a time: {id: Outcome}."""
    exps = catalog.experiments()
    return {o.id: o for o in catalog.run_experiments(exps, quick=True, jobs=2)}
