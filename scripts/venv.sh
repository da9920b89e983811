# Sourced by main.sh and test.sh: creates .venv on first use and (re)installs aqmlab into it
# from this checkout. Needs only python3 (>= 3.11), cargo and the package registries.
python3 -m venv .venv
# shellcheck disable=SC1091
source .venv/bin/activate
python -m pip install --quiet --upgrade "pip>=24"
python -m pip install --quiet ".${AQMLAB_EXTRAS:+[$AQMLAB_EXTRAS]}"
