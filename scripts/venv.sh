# Sourced by main.sh and test.sh: creates .venv on first use and (re)installs aqmlab into it
# from this checkout. Needs only python3 (>= 3.11), cargo and the package registries.
#
# It says what it is doing: the first install compiles the Rust extension, about 3 minutes on
# a 2-core machine, during which pip itself prints nothing.
t0=$SECONDS
if [ ! -d .venv ]; then
    echo "aqmlab: creating .venv (a Python virtual environment in this checkout)"
fi
python3 -m venv .venv
# shellcheck disable=SC1091
source .venv/bin/activate
python -m pip install --quiet --upgrade "pip>=24"
echo "aqmlab: installing aqmlab${AQMLAB_EXTRAS:+ with [$AQMLAB_EXTRAS]} into .venv: pip compiles the Rust" \
     "simulator first (about 3 min the first time on 2 cores, under a minute when nothing changed) ..."
python -m pip install --quiet ".${AQMLAB_EXTRAS:+[$AQMLAB_EXTRAS]}"
echo "aqmlab: installed in $((SECONDS - t0)) s"
