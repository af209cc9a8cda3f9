#!/usr/bin/env bash
# Start-up cost of the fenced agent on a tiny main (integration-tests' TinyMain), whole process, paired runs:
# each round runs, back to back, the JVM without the agent, with it (no configuration) and with it and one
# lease-bound method (NightlyJob#run, which TinyMain never calls), so a change of machine load hits all three alike.
# Needs: mvn -B -o -q package -pl agent,integration-tests -am -DskipTests -Djacoco.skip=true -Dspotless.check.skip=true
#        mvn -B -o -q -pl integration-tests test-compile
# Usage: tools/agent-startup.sh [path/to/java] [rounds, default 15]
#        AGENT=other-agent.jar tools/agent-startup.sh ...   measures that agent jar instead of agent/target's
#        BEFORE=old-agent.jar tools/agent-startup.sh ...    adds "before" and "before-lease" (that jar, without
#                                                           and with the lease method), to compare two builds paired
# Prints, per variant, wall and CPU (user+sys) in ms: median [min-max], and the agent's median cost over the
# no-agent run of the same round (paired difference).
set -euo pipefail
cd "$(dirname "$0")/.."
J=${1:-java}
N=${2:-15}
T=$(ls "$PWD"/agent/target/fenced-agent-*.jar | grep -v -e original -e sources -e javadoc | head -1)
V=${T##*/fenced-agent-}; V=${V%.jar}
A=${AGENT:-$T}
PG=$(ls ~/.m2/repository/org/postgresql/postgresql/*/postgresql-*.jar | grep -v sources | tail -1)
CP=$PWD/driver/target/fenced-driver-$V.jar:$PG:$PWD/integration-tests/target/test-classes
CFG=$(mktemp); echo "fenced.lease.nightly.method=dev.fenced.it.agent.NightlyJob#run" > "$CFG"
OUT=$(mktemp -d)
trap 'rm -rf "$CFG" "$OUT"' EXIT
declare -A O
O[none]=""; O[agent]="-javaagent:$A"; O[lease]="-javaagent:$A=config=$CFG"
VARIANTS="none agent lease"
if [ -n "${BEFORE:-}" ]; then
  O[before]="-javaagent:$BEFORE"; O[before-lease]="-javaagent:$BEFORE=config=$CFG"
  VARIANTS="none before before-lease agent lease"
fi
# one timed run: appends "wall_ms cpu_ms" to $OUT/<variant>
run() {
  local v=$1 t
  # shellcheck disable=SC2086
  t=$( { TIMEFORMAT='%R %U %S'; time "$J" ${O[$v]} -cp "$CP" dev.fenced.it.agent.TinyMain >/dev/null 2>&1; } 2>&1 )
  awk '{printf "%d %d\n", $1*1000, ($2+$3)*1000}' <<<"$t" >> "$OUT/$v"
}
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
for v in $VARIANTS; do run "$v"; : > "$OUT/$v"; done   # warm the page cache
for _ in $(seq "$N"); do for v in $VARIANTS; do run "$v"; done; done
# median [min-max] of column $2 of file $1
stat() { cut -d' ' -f"$2" "$1" | sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:int((a[NR/2]+a[NR/2+1])/2); printf "%d [%d-%d]", m, a[1], a[NR]}'; }
"$J" -version 2>&1 | head -1
echo "$N paired rounds; ms, median [min-max]"
for v in $VARIANTS; do
  printf '%-13s wall %-18s cpu %s\n' "$v:" "$(stat "$OUT/$v" 1)" "$(stat "$OUT/$v" 2)"
done
for v in ${VARIANTS#none }; do
  paste -d' ' "$OUT/$v" "$OUT/none" | awk '{print $1-$3, $2-$4}' > "$OUT/$v-diff"
  printf '%-13s wall %-18s cpu %s  (paired, over none)\n' "+$v:" "$(stat "$OUT/$v-diff" 1)" "$(stat "$OUT/$v-diff" 2)"
done
echo "load average (1, 5, 15 min): at start $LOAD0, at end $(cut -d' ' -f1-3 /proc/loadavg)"
