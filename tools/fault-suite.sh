#!/usr/bin/env bash
# The lease fault suite, long: tools/fault-suite.sh [seconds per seed] [seeds]
#   e.g. tools/fault-suite.sh 600 1,2,3,4,5   (about 55 minutes: five fenced runs of 10 min and one control run)
# Reports go to integration-tests/target/fault-report.md.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_SEED=${1:-600}
SEEDS=${2:-1,2,3}
exec mvn -B verify -pl integration-tests -am -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test=FaultSuiteTest -Dfenced.faults.seconds="$SECONDS_PER_SEED" -Dfenced.faults.seeds="$SEEDS"
