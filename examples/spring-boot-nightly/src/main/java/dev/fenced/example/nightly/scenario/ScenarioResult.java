package dev.fenced.example.nightly.scenario;

import java.io.PrintStream;
import java.util.Locale;

/**
 * What the scenario saw, read from the outside only: the instances' Actuator metrics over HTTP, and the database.
 * A is the instance whose write was held and which was frozen; B the other one.
 *
 * @param fencedMode         the instances' fenced.mode (enforce; off to see what the lock alone lets through)
 * @param a                  instance A's name
 * @param b                  instance B's name
 * @param aPid               A's process id
 * @param bPid               B's process id
 * @param aToken             the token A held the lock with when it was frozen
 * @param lockAtMostForMs    the lock's lockAtMostFor
 * @param lockAgeMs          how long before A was resumed it had taken the lock (by the database's clock until
 *                           the freeze, then the launcher's)
 * @param frozenMs           how long A was stopped
 * @param ordersBefore       orders when A read them
 * @param ordersArrived      orders that arrived while A was frozen
 * @param night              tonight's row in nightly_runs: who finished the night, with which token
 * @param aStale             A's {@code fenced.writes.stale}
 * @param aLeaseLost         A's {@code fenced.writes.lease_lost}
 * @param aRefusedRuns       A's {@code nightly.runs} with outcome refused
 * @param aCompletedRuns     A's {@code nightly.runs} with outcome completed
 * @param bStale             B's {@code fenced.writes.stale}
 * @param bCompletedRuns     B's {@code nightly.runs} with outcome completed
 * @param runs               runs recorded in nightly_runs
 * @param totals             rows in totals
 * @param wrongTotals        totals that are not the sum of their orders
 * @param totalsNotB         totals whose last write did not carry the token B finished the night with
 */
public record ScenarioResult(
        String fencedMode,
        String a,
        String b,
        long aPid,
        long bPid,
        long aToken,
        long lockAtMostForMs,
        long lockAgeMs,
        long frozenMs,
        long ordersBefore,
        long ordersArrived,
        Night night,
        double aStale,
        double aLeaseLost,
        double aRefusedRuns,
        double aCompletedRuns,
        double bStale,
        double bCompletedRuns,
        long runs,
        long totals,
        long wrongTotals,
        long totalsNotB) {

    /** The fence held: A's late write was refused in PostgreSQL, and the totals are B's, and right. */
    public boolean fenceHeld() {
        return aStale >= 1
                && aCompletedRuns == 0
                && bStale == 0
                && bCompletedRuns == 1
                && runs == 1
                && night != null
                && night.instance().equals(b)
                && night.token() > aToken
                && night.orders() == ordersBefore + ordersArrived
                && wrongTotals == 0
                && totalsNotB == 0
                && totals > 0;
    }

    /** The token B finished the night with, or -1. */
    public long bToken() {
        return night == null ? -1 : night.token();
    }

    /** The story, as the scenario prints it. */
    public void print(PrintStream out) {
        out.printf(
                Locale.ROOT,
                "%n  1. Both instances run the job every second; ShedLock (on fenced leases) lets one in: %s (pid %d)"
                        + "%n     took the lock with token %d (lockAtMostFor %d ms), read %,d orders and sent its first total.%n",
                a,
                aPid,
                aToken,
                lockAtMostForMs,
                ordersBefore);
        out.printf(
                Locale.ROOT,
                "  2. SIGSTOP: %s froze right after its write left it, before PostgreSQL saw it"
                        + "%n     (its lock was still valid when it sent it: only the token in the statement can stop it now).%n",
                a);
        out.printf(Locale.ROOT, "  3. While %s was frozen, %,d new orders arrived.%n", a, ordersArrived);
        if (night == null) {
            out.printf(Locale.ROOT, "  4. No instance finished the night.%n");
        } else {
            out.printf(
                    Locale.ROOT,
                    "  4. %s's lock ran out; %s took it (token %d) and wrote %,d totals from %,d orders.%n",
                    a,
                    night.instance(),
                    night.token(),
                    night.restaurants(),
                    night.orders());
        }
        out.printf(
                Locale.ROOT,
                "  5. SIGCONT after %.1f s frozen, %.1f s after %s took its %.1f s lock: its late write"
                        + "%n     reached PostgreSQL%s.%n",
                frozenMs / 1000.0,
                lockAgeMs / 1000.0,
                a,
                lockAtMostForMs / 1000.0,
                fencedMode.equals("off") ? " (fenced off: without a token)" : ", carrying token " + aToken);
        out.printf(
                Locale.ROOT,
                "  6. Actuator, %-10s fenced.writes.stale = %.0f, fenced.writes.lease_lost = %.0f,"
                        + " nightly.runs refused = %.0f, completed = %.0f%n",
                a + ":",
                aStale,
                aLeaseLost,
                aRefusedRuns,
                aCompletedRuns);
        out.printf(
                Locale.ROOT,
                "     Actuator, %-10s fenced.writes.stale = %.0f, nightly.runs completed = %.0f%n",
                b + ":",
                bStale,
                bCompletedRuns);
        out.printf(Locale.ROOT, "     nightly_runs: %d run(s) recorded for tonight.%n", runs);
        out.printf(
                Locale.ROOT,
                "  7. totals: %,d rows, %,d not equal to the sum of their orders, %,d not written with %s's token.%n",
                totals,
                wrongTotals,
                totalsNotB,
                b);
        out.println();
        out.println(
                fenceHeld()
                        ? "The fence held: " + a + "'s late write was refused by PostgreSQL, and the totals are " + b
                                + "'s, counting every order."
                        : "The late write was not refused (fenced.mode=" + fencedMode + "): " + wrongTotals
                                + " totals are wrong, " + a + "'s run overwrote " + b + "'s.");
    }
}
