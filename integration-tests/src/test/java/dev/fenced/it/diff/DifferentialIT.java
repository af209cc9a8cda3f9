package dev.fenced.it.diff;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import dev.fenced.StaleTokenException;
import dev.fenced.UnsupportedStatementException;
import dev.fenced.it.support.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Differential harness (issue 16): each generated statement ({@link DmlGenerator}) runs raw on pgjdbc and through
 * fenced against the same rows, each in a transaction rolled back afterwards.
 * <ul>
 * <li>current token: the same error class, or the same update count, RETURNING rows and final table (the fence
 *     column aside), the same rows written (a row version of the statement's own transaction, {@code xmin}; an
 *     UPDATE to the same values too), each carrying the token, every other row keeping its own;</li>
 * <li>stale token: StaleTokenException or a refusal, or success with every existing row unchanged and unwritten
 *     (only new rows may appear: an INSERT of a new key has no row to be stale against).</li>
 * <li>no token, inside {@code Fencing.unfenced} (the statement prepared and run there): exactly what raw PostgreSQL
 *     did, the fence column included: a write fenced would refuse runs as written, and a fenced one keeps every
 *     row's fence value (new rows get none), as a writer that never fences would leave it.</li>
 * </ul>
 * A refusal (FN003) is counted, not a mismatch: by statement kind and reason where PostgreSQL ran the statement
 * (a coverage gap), apart where PostgreSQL rejects it too. A driver that throws anything but an SQLException is a
 * mismatch. {@code -Dfencedtest.diff.cases=N -Dfencedtest.diff.seed=S} run a long
 * campaign with a new seed; CI runs the default few thousand.
 */
@Tag("server-sensitive")
class DifferentialIT {

    static final long ROW_TOKEN = 100;
    static final long CURRENT = 200;
    static final long STALE = 50;

    /** What one execution did. */
    record Outcome(
            String error,
            long count,
            List<String> returned,
            Map<Integer, String> rows,
            Map<Integer, Long> tokens,
            Set<Integer> written) {
        boolean failed() {
            return error != null;
        }
    }

    @Test
    void fencedAgreesWithRawPostgresAndStaleTokensChangeNothing() throws Exception {
        int cases = Integer.getInteger("fencedtest.diff.cases", 3000);
        long seed = Long.getLong("fencedtest.diff.seed", 16L);
        TestDatabase db = TestDatabase.create();
        db.execute("CREATE TABLE dh (id int PRIMARY KEY, a int, b text, j jsonb, d date, last_token bigint)");
        StringBuilder load = new StringBuilder("INSERT INTO dh VALUES ");
        String[] texts = {"one", "it''s", "x--y", null, "$a$", "a/*b", "WHERE id = 1 --", "?"};
        String[] jsons = {"'{\"a\": 1}'", "'{\"a\": 2, \"b\": [1, 2]}'", "NULL", "'{}'", "'{\"c\": \"x\"}'"};
        for (int i = 1; i <= DmlGenerator.ROWS; i++) {
            String b = texts[i - 1];
            load.append(i > 1 ? ", " : "")
                    .append('(')
                    .append(i)
                    .append(", ")
                    .append(i * 3 % 7)
                    .append(", ")
                    .append(b == null ? "NULL" : "'" + b + "'")
                    .append(", ")
                    .append(jsons[i % jsons.length])
                    .append(", ")
                    .append(i % 4 == 0 ? "NULL" : "DATE '2020-01-01' + " + (i * 50))
                    .append(", ")
                    .append(ROW_TOKEN)
                    .append(')');
        }
        db.execute(load.toString());
        db.execute(DmlGenerator.SOURCES);
        DmlGenerator generator = new DmlGenerator(seed);
        // each unfenced section is logged at INFO (meant for migrations); thousands of them would bury the report
        java.util.logging.Logger sections = java.util.logging.Logger.getLogger("dev.fenced.Fencing");
        java.util.logging.Level was = sections.getLevel();
        sections.setLevel(java.util.logging.Level.WARNING);
        // and each statement an unfenced section runs though fenced would refuse it
        java.util.logging.Logger runtime = java.util.logging.Logger.getLogger("dev.fenced.jdbc");
        java.util.logging.Level runtimeWas = runtime.getLevel();
        runtime.setLevel(java.util.logging.Level.WARNING);
        int agreed = 0;
        int wrote = 0;
        int bothFailed = 0;
        int refused = 0;
        int refusedRawFailed = 0;
        int staleRefused = 0;
        int staleUnsupported = 0;
        int staleOtherError = 0;
        int staleNothingChanged = 0;
        int bothFailedStale = 0;
        int unfencedAgreed = 0;
        List<String> mismatches = new ArrayList<>();
        Map<String, Integer> refusals = new TreeMap<>();
        Map<String, Integer> staleErrors = new TreeMap<>();
        Map<String, String> examples = new TreeMap<>();
        try (Connection raw = DriverManager.getConnection(db.rawUrl());
                Connection fenced =
                        DriverManager.getConnection(db.fencedUrl("fenced.tables=dh", "fenced.relativeUpdates=allow"))) {
            raw.setAutoCommit(false);
            fenced.setAutoCommit(false);
            Outcome initial = run(raw, null);
            for (int n = 0; n < cases; n++) {
                DmlGenerator.Case k = generator.next();
                Outcome expected = run(raw, k);
                Outcome current;
                try (FencingScope ignored = Fencing.bind(CURRENT)) {
                    current = run(fenced, k);
                }
                String unfencedProblem = compareUnfenced(expected, Fencing.unfenced(() -> run(fenced, k)));
                if (unfencedProblem != null) {
                    mismatches.add("case " + n + " (seed " + seed + "), unfenced: " + unfencedProblem + "\n    " + k);
                } else {
                    unfencedAgreed++;
                }
                if (current.failed() && current.error().startsWith(UnsupportedStatementException.SQLSTATE)) {
                    if (expected.failed()) {
                        // PostgreSQL rejects it too: no coverage lost
                        refusedRawFailed++;
                    } else {
                        refused++;
                        String refusal = kind(k) + " " + refusalClass(current.error());
                        refusals.merge(refusal, 1, Integer::sum);
                        examples.putIfAbsent(refusal, k.sql().replace("\n", "\\n"));
                    }
                    continue;
                }
                String problem = compareCurrent(expected, current);
                if (problem == null) {
                    Outcome stale;
                    try (FencingScope ignored = Fencing.bind(STALE)) {
                        stale = run(fenced, k);
                    }
                    problem = checkStale(initial, stale);
                    if (!expected.failed()) {
                        // counted only where raw ran it (else: failed alike)
                        if (!stale.failed()) {
                            staleNothingChanged++;
                        } else if (stale.error().startsWith(StaleTokenException.SQLSTATE)) {
                            staleRefused++;
                        } else if (stale.error().startsWith(UnsupportedStatementException.SQLSTATE)) {
                            staleUnsupported++;
                        } else {
                            staleOtherError++;
                            staleErrors.merge(refusalClass(stale.error()), 1, Integer::sum);
                        }
                    }
                }
                if (problem != null) {
                    mismatches.add("case " + n + " (seed " + seed + "): " + problem + "\n    " + k);
                } else if (expected.failed()) {
                    bothFailed++;
                } else {
                    agreed++;
                    wrote += expected.written().isEmpty() ? 0 : 1;
                }
            }
        }
        sections.setLevel(was);
        runtime.setLevel(runtimeWas);
        StringBuilder report = new StringBuilder();
        report.append("differential harness, seed ")
                .append(seed)
                .append(": ")
                .append(cases)
                .append(" cases, ")
                .append(agreed)
                .append(" fenced and agreed with raw PostgreSQL (")
                .append(wrote)
                .append(" of them wrote rows; stale token: ")
                .append(staleRefused)
                .append(" refused as stale, ")
                .append(staleNothingChanged)
                .append(" ran changing no row, ")
                .append(staleUnsupported)
                .append(" refused as unsupported, ")
                .append(staleOtherError)
                .append(" failed otherwise), ")
                .append(bothFailed)
                .append(" failed alike, ")
                .append(refused)
                .append(" refused by fenced though PostgreSQL ran them, ")
                .append(refusedRawFailed)
                .append(" refused by fenced and rejected by PostgreSQL; ")
                .append(unfencedAgreed)
                .append(" run unfenced exactly as raw; ")
                .append(mismatches.size())
                .append(" mismatches\n");
        staleErrors.forEach((r, c) -> report.append("  stale token, failed ")
                .append(c)
                .append(": ")
                .append(r)
                .append('\n'));
        refusals.forEach((r, c) -> report.append("  refused ")
                .append(c)
                .append(": ")
                .append(r)
                .append("\n    e.g. ")
                .append(examples.get(r))
                .append('\n'));
        mismatches.stream().limit(20).forEach(m -> report.append(m).append('\n'));
        System.out.println(report);
        assertEquals(List.of(), mismatches, report::toString);
        assertTrue(agreed > cases / 2, report::toString);
        // the rows-written comparison is not vacuous: many statements write rows
        assertTrue(wrote > agreed / 10, report::toString);
    }

    /** The statement's first word: UPDATE, DELETE, INSERT or MERGE. */
    private static String kind(DmlGenerator.Case k) {
        return k.sql().strip().split("\\s", 2)[0].toUpperCase(java.util.Locale.ROOT);
    }

    /** A refusal's message without its numbers and the statement's own text, so refusals of one kind count as one. */
    private static String refusalClass(String error) {
        String message = error.replaceAll("\\d+", "N");
        message = message.replace(
                "FNN UnsupportedStatementException: fenced: statement on protected table dh refused: ", "");
        return message.length() > 200 ? message.substring(0, 200) : message;
    }

    private static String compareCurrent(Outcome raw, Outcome fenced) {
        String problem = compareResults(raw, fenced, "fenced");
        if (problem != null || raw.failed()) {
            return problem;
        }
        // the same rows written as raw, each carrying the current token; every other row keeps its own
        if (!raw.written().equals(fenced.written())) {
            return "rows written " + raw.written() + " raw, " + fenced.written() + " fenced";
        }
        for (Map.Entry<Integer, Long> e : fenced.tokens().entrySet()) {
            long want = fenced.written().contains(e.getKey())
                    ? CURRENT
                    : raw.tokens().get(e.getKey());
            if (e.getValue() != want) {
                return "row " + e.getKey() + " has fence token " + e.getValue() + ", not " + want
                        + (want == CURRENT ? ": a protected write passed unfenced" : "");
            }
        }
        return null;
    }

    /** Inside {@code Fencing.unfenced}: the same outcome as raw, every column of every row, the fence column too. */
    private static String compareUnfenced(Outcome raw, Outcome unfenced) {
        String problem = compareResults(raw, unfenced, "unfenced");
        if (problem == null && !raw.failed() && !raw.tokens().equals(unfenced.tokens())) {
            return "fence tokens " + raw.tokens() + " raw, " + unfenced.tokens() + " unfenced";
        }
        if (problem == null && !raw.failed() && !raw.written().equals(unfenced.written())) {
            return "rows written " + raw.written() + " raw, " + unfenced.written() + " unfenced";
        }
        return problem;
    }

    /**
     * Null when both failed (a bad cast, a duplicate key: nothing landed either way), or both succeeded with the
     * same update count, RETURNING rows and table rows (the fence column aside); else what differs.
     */
    private static String compareResults(Outcome raw, Outcome other, String label) {
        if (other.failed() && other.error().startsWith("RUNTIME")) {
            return label + " threw " + other.error();
        }
        if (raw.failed() || other.failed()) {
            return raw.failed() && other.failed()
                    ? null
                    : "raw " + (raw.failed() ? "failed: " + raw.error() : "succeeded") + ", " + label + " "
                            + (other.failed() ? "failed: " + other.error() : "succeeded");
        }
        if (raw.count() != other.count()) {
            return "update count " + raw.count() + " raw, " + other.count() + " " + label;
        }
        if (!raw.returned().equals(other.returned())) {
            return "RETURNING " + raw.returned() + " raw, " + other.returned() + " " + label;
        }
        if (!raw.rows().equals(other.rows())) {
            return "rows " + raw.rows() + " raw, " + other.rows() + " " + label;
        }
        return null;
    }

    private static String checkStale(Outcome initial, Outcome stale) {
        if (stale.failed()) {
            return stale.error().startsWith(StaleTokenException.SQLSTATE)
                            || stale.error().startsWith(UnsupportedStatementException.SQLSTATE)
                            || !stale.error().startsWith("FN")
                    ? null
                    : "stale token: " + stale.error();
        }
        for (Map.Entry<Integer, String> e : initial.rows().entrySet()) {
            if (stale.written().contains(e.getKey())
                    || !e.getValue().equals(stale.rows().get(e.getKey()))
                    || !initial.tokens().get(e.getKey()).equals(stale.tokens().get(e.getKey()))) {
                return "a stale token changed row " + e.getKey() + ": "
                        + stale.rows().get(e.getKey());
            }
        }
        return null;
    }

    /** Runs {@code k} (or nothing) in a transaction, reads the table, rolls back. */
    private static Outcome run(Connection c, DmlGenerator.Case k) throws SQLException {
        String error = null;
        long count = 0;
        List<String> returned = new ArrayList<>();
        try {
            if (k != null) {
                Statement s;
                boolean results;
                if (k.prepared()) {
                    PreparedStatement ps = c.prepareStatement(k.sql());
                    for (int i = 0; i < k.parameters().size(); i++) {
                        ps.setObject(i + 1, k.parameters().get(i));
                    }
                    s = ps;
                    results = ps.execute();
                } else {
                    s = c.createStatement();
                    results = s.execute(k.sql());
                }
                try (s) {
                    while (true) {
                        if (results) {
                            try (ResultSet rs = s.getResultSet()) {
                                int columns = rs.getMetaData().getColumnCount();
                                while (rs.next()) {
                                    StringBuilder row = new StringBuilder();
                                    for (int i = 1; i <= columns; i++) {
                                        row.append(rs.getString(i)).append('|');
                                    }
                                    returned.add(row.toString());
                                }
                            }
                        } else if (s.getUpdateCount() >= 0) {
                            count += s.getUpdateCount();
                        } else {
                            break;
                        }
                        results = s.getMoreResults();
                    }
                }
            }
        } catch (SQLException e) {
            error = e.getSQLState() + " " + e.getClass().getSimpleName() + ": " + e.getMessage();
        } catch (RuntimeException e) {
            // a driver that throws anything but an SQLException is a finding, not the end of the campaign
            error = "RUNTIME " + e + " at " + (e.getStackTrace().length > 0 ? e.getStackTrace()[0] : "?");
        }
        returned.sort(null);
        Map<Integer, String> rows = new TreeMap<>();
        Map<Integer, Long> tokens = new TreeMap<>();
        Set<Integer> written = new TreeSet<>();
        if (error == null) {
            // age(xmin) = 0: the row version this transaction wrote (an UPDATE to the same values too)
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT id, a, b, j, d, last_token, age(xmin) = 0 FROM dh")) {
                while (rs.next()) {
                    rows.put(
                            rs.getInt(1),
                            rs.getString(2) + "|" + rs.getString(3) + "|" + rs.getString(4) + "|" + rs.getString(5));
                    long t = rs.getLong(6);
                    tokens.put(rs.getInt(1), rs.wasNull() ? -1 : t);
                    if (rs.getBoolean(7)) {
                        written.add(rs.getInt(1));
                    }
                }
            }
        }
        c.rollback();
        return new Outcome(error, count, returned, rows, tokens, written);
    }
}
