import pytest

import aqmlab
from support import small_scenario


@pytest.fixture
def small():
    return small_scenario()


@pytest.fixture(scope="session")
def small_result():
    return aqmlab.run(small_scenario(), progress=False)
