"""The malformed-input campaign (tests/malformed_cases.py): every case gives its expected outcome,
an error or a warning naming the expected field, and docs/robustness.md shows its table."""

import warnings

import pytest

from aqmlab import AqmlabWarning, Scenario, ScenarioError
from aqmlab.sweep import Sweep
from malformed_cases import CASES, DOCS, ERROR, docs_with_table, scenario


@pytest.mark.parametrize("case", CASES, ids=[f"{c.kind}: {c.label}" for c in CASES])
def test_each_case_names_its_field(case):
    data = scenario()
    if case.sweep:
        data = {"name": "campaign", "base": data, "axes": {"flows[0].count": [1, 2]}}
    case.mutate(data)
    build = (lambda: Sweep.from_dict(data)) if case.sweep else (lambda: Scenario.from_dict(data))
    if case.outcome == ERROR:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", AqmlabWarning)  # an error may follow a warning
            with pytest.raises(ScenarioError) as e:
                build()
        assert e.value.path == case.path, str(e.value)
        assert e.value.reason and "Traceback" not in str(e.value)
    else:
        with pytest.warns(AqmlabWarning) as caught:
            build()
        assert any(str(w.message).startswith(f"{case.path}: ") for w in caught), [str(w.message) for w in caught]


def test_the_campaign_is_large_and_its_table_is_in_the_docs():
    assert len(CASES) >= 150
    # Regenerate with `python tests/malformed_cases.py`.
    text = DOCS.read_text()
    assert text == docs_with_table(text)
