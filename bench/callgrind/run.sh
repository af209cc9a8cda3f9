#!/usr/bin/env bash
# Server-side instructions per execution of the UPDATE forms in forms.txt (fenced's guard before and after, the
# article's hand-written form, and two floors), on a PostgreSQL run under callgrind. Instructions, not time: the
# figures repeat within ~0.2% on a loaded machine. Needs valgrind, a PostgreSQL bin directory, a non-root user
# to run it as (postgres), and the pgjdbc jar. Counted: PortalRun (executor start, run, end), GetCachedPlan
# (the plan fetch at Bind) and the per-execution copies of the statement text (pgstat_report_activity,
# MemoryContextStrdup); connection start-up, parse and commit are not, so the figures are per execution.
#
#   bench/callgrind/run.sh /path/to/pg/bin /path/to/postgresql.jar [executions, default 1200]
set -euo pipefail
PGBIN=$1; JDBC=$2; N=${3:-1200}; PORT=55439
DIR=$(mktemp -d /tmp/fenced-cg.XXXXXX); chown postgres "$DIR"
here=$(cd "$(dirname "$0")" && pwd)
runuser -u postgres -- "$PGBIN/initdb" -D "$DIR/data" -U postgres -A trust >/dev/null
# synchronous_commit=on, full_page_writes=off, no checkpoints or autovacuum: nothing time-dependent in the count
(cd "$DIR" && runuser -u postgres -- valgrind --tool=callgrind --vgdb=no --toggle-collect=PortalRun \
  --toggle-collect=GetCachedPlan --toggle-collect=pgstat_report_activity --toggle-collect=MemoryContextStrdup \
  --callgrind-out-file="$DIR/cg.%p" "$PGBIN/postgres" -D "$DIR/data" -p $PORT -c listen_addresses=127.0.0.1 \
  -c fsync=off -c synchronous_commit=on -c full_page_writes=off -c autovacuum=off -c checkpoint_timeout=1d \
  -c max_wal_size=20GB > "$DIR/server.log" 2>&1 &)
for i in $(seq 60); do grep -q "ready to accept" "$DIR/server.log" 2>/dev/null && break; sleep 1; done
java -Dcg.dir="$DIR" -cp "$JDBC" "$here/GuardCost.java" "jdbc:postgresql://127.0.0.1:$PORT/postgres?user=postgres" \
  "$N" "$here/forms.txt" cg
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$DIR/data" stop -m fast >/dev/null
echo "callgrind files: $DIR (callgrind_annotate $DIR/cg.<backend pid> for a breakdown)"
