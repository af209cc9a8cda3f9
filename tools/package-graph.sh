#!/usr/bin/env bash
# Prints the package dependency graph of fenced's compiled modules (jdeps), one edge per line, then its cycles
# (strongly connected components of more than one package): among the packages below the API, and in the whole graph.
# Run after `mvn -q -B package -DskipTests`; an optional argument names another checkout to read instead.
# docs/architecture.md is drawn from its output.
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
edges=$(for m in driver agent spring/fenced-spring-boot integrations/*; do
  [ -d "$m/target/classes" ] || continue
  jdeps -verbose:package -filter:none -e 'dev\.fenced.*' "$m/target/classes" 2>/dev/null \
    | awk '$2 == "->" && $1 != $3 && $3 !~ /jsqlparser|shaded/ {print $1, $3}'
done | sort -u)
echo "$edges"
python3 - "$edges" <<'PY'
import sys
API = {"dev.fenced", "dev.fenced.spring", "dev.fenced.spring.dao", "dev.fenced.spring.config", "dev.fenced.shedlock",
       "dev.fenced.quartz", "dev.fenced.dbscheduler", "dev.fenced.spring.integration"}
edges = [l.split() for l in sys.argv[1].splitlines() if l.strip()]

def cycles(keep):
    g = {}
    for a, b in edges:
        if keep(a) and keep(b):
            g.setdefault(a, set()).add(b)
            g.setdefault(b, set())
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in g[v]:
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            c = []
            while True:
                w = stack.pop(); on.discard(w); c.append(w)
                if w == v:
                    break
            if len(c) > 1:
                out.append(sorted(c))
    for v in list(g):
        if v not in index:
            visit(v)
    return out

for title, keep in (("below the API", lambda p: p not in API), ("whole graph", lambda p: True)):
    found = cycles(keep)
    print(f"--- cycles {title}: {len(found)}")
    for c in found:
        print(f"{len(c)} packages: " + " <-> ".join(c))
PY
