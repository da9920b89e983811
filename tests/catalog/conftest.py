import pytest

from aqmlab import catalog


@pytest.fixture(scope="session")
def quick_outcomes():
    """Every experiment of the catalog in quick mode, two processes at a time: {id: Outcome}."""
    exps = catalog.experiments()
    return {o.id: o for o in catalog.run_experiments(exps, quick=True, jobs=2)}


@pytest.fixture(scope="session")
def full_outcomes():
    """Every experiment at full length (5 seeds, 5 null-control seeds), two processes at a
    time: {id: Outcome}. About 5 minutes on this project's 2 cores."""
    exps = catalog.experiments()
    return {o.id: o for o in catalog.run_experiments(exps, quick=False, jobs=2)}
