#!/usr/bin/env bash
# The long fuzzing run of issue 20: tests/test_fuzz.py with many more cases than the test
# suite's, randomized by a seed (printed, so that a failure can be replayed with
# AIRQUEUE_FUZZ_SEED=...). Prints how the cases ended: ok (ran), config (refused with a
# ConfigError), simulation (stopped by the spin guard), cli-exit-N (command-line cases).
#   AIRQUEUE_FUZZ_CASES      cases through the Python API and sweeps (default 10000)
#   AIRQUEUE_FUZZ_CLI_CASES  cases through the command line (default 200)
#   AIRQUEUE_FUZZ_SEED       hypothesis seed (default: the current time)
#   AIRQUEUE_FUZZ_REPORT     where to write the tally as JSON (default: a temporary file)
# Extra arguments go to pytest. Needs the package installed (see scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

export AIRQUEUE_FUZZ_CASES="${AIRQUEUE_FUZZ_CASES:-10000}"
export AIRQUEUE_FUZZ_CLI_CASES="${AIRQUEUE_FUZZ_CLI_CASES:-200}"
export AIRQUEUE_FUZZ_SEED="${AIRQUEUE_FUZZ_SEED:-$(date +%s)}"
export AIRQUEUE_FUZZ_REPORT="${AIRQUEUE_FUZZ_REPORT:-$(mktemp)}"

echo "== fuzz: ${AIRQUEUE_FUZZ_CASES} API/sweep cases, ${AIRQUEUE_FUZZ_CLI_CASES} command-line cases, seed ${AIRQUEUE_FUZZ_SEED}"
status=0
python3 -m pytest -q -p no:cacheprovider tests/test_fuzz.py "$@" || status=$?
echo "== outcomes (${AIRQUEUE_FUZZ_REPORT})"
cat "${AIRQUEUE_FUZZ_REPORT}" 2>/dev/null || echo "(no report: the run stopped early)"
exit "$status"
