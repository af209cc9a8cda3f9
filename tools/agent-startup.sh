#!/usr/bin/env bash
# Start-up cost of the fenced agent on a tiny main (integration-tests' TinyMain), 10 interleaved runs each:
# without the agent, with it (no configuration), with it and one lease-bound method.
# Needs: mvn -B -o -pl agent,integration-tests -am package -DskipTests && mvn -pl integration-tests test-compile
# Usage: tools/agent-startup.sh [path/to/java]   (prints mean wall and mean CPU = user+sys, in ms)
set -euo pipefail
cd "$(dirname "$0")/.."
J=${1:-java}
A=$(ls "$PWD"/agent/target/fenced-agent-*.jar | grep -v -e original -e sources | head -1)
V=${A##*/fenced-agent-}; V=${V%.jar}
PG=$(ls ~/.m2/repository/org/postgresql/postgresql/*/postgresql-*.jar | grep -v sources | tail -1)
CP=$PWD/driver/target/fenced-driver-$V.jar:$PG:$PWD/integration-tests/target/test-classes
CFG=$(mktemp); echo "fenced.lease.nightly.method=dev.fenced.it.agent.NightlyJob#run" > "$CFG"
run() { local s e; s=$(date +%s%N); "$J" "$@" -cp "$CP" dev.fenced.it.agent.TinyMain >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e-s)/1000000 )); }
cpu() { ( TIMEFORMAT='%U %S'; { time "$J" "$@" -cp "$CP" dev.fenced.it.agent.TinyMain >/dev/null 2>&1; } 2>&1 ) | awk '{printf "%d", ($1+$2)*1000}'; }
declare -A W C O
O[none]=""; O[agent]="-javaagent:$A"; O[lease]="-javaagent:$A=config=$CFG"
for v in none agent lease; do W[$v]=0; C[$v]=0; done
run -javaagent:"$A" >/dev/null
for i in $(seq 10); do
  for v in none agent lease; do
    # shellcheck disable=SC2086
    w=$(run ${O[$v]}); c=$(cpu ${O[$v]}); W[$v]=$((W[$v]+w)); C[$v]=$((C[$v]+c))
  done
done
"$J" -version 2>&1 | head -1
for v in none agent lease; do echo "$v: wall $((W[$v]/10)) ms, cpu $((C[$v]/10)) ms"; done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$CFG"
