package dev.fenced.it.support;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The lane ITs' one differential attack: a statement runs raw on pgjdbc, then fenced with a stale token, with none,
 * and with the current token, each from the same reset data, and whatever differs from what fenced promises is
 * reported (an {@link EachForm.Attack}):
 *
 * <ul>
 *   <li>a stale or no token leaves every {@linkplain Builder#untouched untouched} row as it was, fence column
 *       included, and is not refused as unsupported (FN003: the lanes exist so that such forms are fenced);
 *   <li>with {@link Builder#staleMustFail}, a stale or no token's statement that raw changed rows with must fail (the
 *       forms touch a row holding a newer token, so the whole statement is refused), not run as a no-op;
 *   <li>the current token fails or succeeds as raw does and leaves the {@linkplain Builder#compared compared} data as
 *       raw does (the fence column aside where {@link Builder#tokensIgnored}); with {@link Builder#returnedRows}, a
 *       RETURNING's rows too.
 * </ul>
 *
 * The ITs differ only in their tables, data and these switches; the loop is here once, so that a check added for one
 * lane holds for all of them.
 */
public final class RawVsFenced implements EachForm.Attack {

    /** How one statement ended on one connection. */
    public record Ran(String error, String returned) {

        boolean failed() {
            return error != null;
        }

        String describe() {
            return failed() ? error : "ok" + returned;
        }
    }

    /** Runs one statement, plain or prepared. */
    @FunctionalInterface
    public interface Runner {
        Ran run(Connection c, String sql, boolean prepared);
    }

    /** The default runner: the statement as written, its error if any ({@link Outcome#of}). */
    public static final Runner AS_WRITTEN = (c, sql, prepared) -> new Ran(Outcome.of(c, sql, prepared), "");

    /** A runner that also reads what the statement returned (RETURNING's rows, sorted). */
    public static final Runner WITH_RETURNED_ROWS = RawVsFenced::runReadingRows;

    private final Builder b;

    private RawVsFenced(Builder b) {
        this.b = b;
    }

    /** A harness on {@code db}, fenced connections protecting {@code tables} (as {@code fenced.tables} lists them). */
    public static Builder on(TestDatabase db, String tables) {
        return new Builder(db, tables);
    }

    /** The settings of one IT's attack. */
    public static final class Builder {
        private final TestDatabase db;
        private final String tables;
        private final List<String> settings = new ArrayList<>();
        private Runnable reset = () -> {};
        private Supplier<String> untouched;
        private Supplier<String> compared;
        private boolean tokensIgnored;
        private boolean staleMustFail;
        private boolean mustChange;
        private boolean mustRunRaw;
        private boolean returnedRows;
        private Runner raw = AS_WRITTEN;
        private Runner fenced = AS_WRITTEN;
        private Supplier<String> afterCurrent = () -> null;
        private long current = 60;
        private long stale = 40;

        private Builder(TestDatabase db, String tables) {
            this.db = db;
            this.tables = tables;
        }

        /** A setting of the fenced connections beside {@code fenced.tables} ({@code fenced.relativeUpdates=allow}). */
        public Builder setting(String setting) {
            settings.add(setting);
            return this;
        }

        /** Puts the data back before every run. */
        public Builder reset(Runnable reset) {
            this.reset = reset;
            return this;
        }

        /** The rows a stale or no token must leave exactly as they were, fence column included. */
        public Builder untouched(Supplier<String> rows) {
            this.untouched = rows;
            return this;
        }

        /** The data the current token must leave as raw does (by default, the {@link #untouched} rows). */
        public Builder compared(Supplier<String> rows) {
            this.compared = rows;
            return this;
        }

        /**
         * Compares the current token's data with raw's but for every number before a {@code ;} (the fence column,
         * last in each row of {@link TestDatabase#rows}: raw PostgreSQL does not write it).
         */
        public Builder tokensIgnored() {
            this.tokensIgnored = true;
            return this;
        }

        /** A form that raw changed rows with must fail under a stale or no token, not run changing nothing. */
        public Builder staleMustFail() {
            this.staleMustFail = true;
            return this;
        }

        /** Each form must fail raw or change rows raw: a form that does neither tests nothing. */
        public Builder mustChange() {
            this.mustChange = true;
            return this;
        }

        /** As {@link #mustChange}, and each form must also run raw without an error. */
        public Builder mustChangeAndRun() {
            this.mustChange = true;
            this.mustRunRaw = true;
            return this;
        }

        /** The current token's RETURNING rows must be raw's too ({@link #WITH_RETURNED_ROWS} runs both). */
        public Builder returnedRows() {
            this.returnedRows = true;
            this.raw = WITH_RETURNED_ROWS;
            this.fenced = WITH_RETURNED_ROWS;
            return this;
        }

        /** How the raw and the fenced runs execute a form (binding parameters, say). */
        public Builder runners(Runner raw, Runner fenced) {
            this.raw = raw;
            this.fenced = fenced;
            return this;
        }

        /**
         * Every {@code ?} of a form bound to {@code literal} (a SQL literal such as {@code 'three'}): raw runs the
         * text with the literal written in (plain); fenced runs that text plain, or the form itself prepared with
         * each parameter set to the literal's value. A {@code ?} in the comments {@code /* ? ' *}{@code /} and
         * {@code -- c ?} is left as written.
         */
        public Builder boundTo(String literal) {
            String value = literal.substring(1, literal.length() - 1);
            this.raw = (c, sql, prepared) -> new Ran(Outcome.of(c, bound(sql, literal), false), "");
            this.fenced = (c, sql, prepared) -> prepared
                    ? new Ran(preparedWith(c, sql, value), "")
                    : new Ran(Outcome.of(c, bound(sql, literal), false), "");
            return this;
        }

        /**
         * A check run after the current token's run when that ran: null, or what is wrong (a row it wrote without
         * the current token, say).
         */
        public Builder afterCurrent(Supplier<String> check) {
            this.afterCurrent = check;
            return this;
        }

        /** The tokens the fenced runs bind (the rows' own token lies between them). */
        public Builder tokens(long current, long stale) {
            this.current = current;
            this.stale = stale;
            return this;
        }

        public RawVsFenced build() {
            if (untouched == null) {
                throw new IllegalStateException("the rows a stale token must leave untouched are not set");
            }
            if (compared == null) {
                compared = untouched;
            }
            return new RawVsFenced(this);
        }
    }

    /** A fenced connection as the IT's forms run on it. */
    public Connection fencedConnection() throws SQLException {
        List<String> settings = new ArrayList<>(b.settings);
        settings.add(0, "fenced.tables=" + b.tables);
        return DriverManager.getConnection(b.db.fencedUrl(settings.toArray(String[]::new)));
    }

    @Override
    public String wrong(String sql, boolean prepared) throws SQLException {
        List<String> wrong = new ArrayList<>();
        b.reset.run();
        String before = b.untouched.get();
        Ran raw;
        try (Connection c = b.db.rawConnection()) {
            raw = b.raw.run(c, sql, prepared);
        }
        String rawUntouched = b.untouched.get();
        String rawAfter = b.compared.get();
        boolean rawChanged = !before.equals(rawUntouched);
        if (b.mustChange && !raw.failed() && !rawChanged || b.mustRunRaw && raw.failed()) {
            return "the form does not run raw changing rows: " + raw.describe();
        }
        for (Long token : new Long[] {b.stale, null}) {
            b.reset.run();
            try (Connection c = fencedConnection();
                    FencingScope ignored = token == null ? null : Fencing.bind(token)) {
                Ran ran = b.fenced.run(c, sql, prepared);
                String who = token == null ? "no token" : "stale token";
                String after = b.untouched.get();
                if (!before.equals(after)) {
                    wrong.add(who + " changed an existing row (" + ran.describe() + "): " + after);
                } else if (b.staleMustFail && !ran.failed() && rawChanged) {
                    wrong.add(who + " was not refused");
                } else if (ran.failed() && ran.error().contains(":FN003:")) {
                    wrong.add(who + " refused as unsupported: " + ran.error());
                }
            }
        }
        b.reset.run();
        try (Connection c = fencedConnection();
                FencingScope ignored = Fencing.bind(b.current)) {
            Ran ran = b.fenced.run(c, sql, prepared);
            String after = b.compared.get();
            boolean sameEnd = raw.failed() == ran.failed()
                    && (!b.returnedRows || raw.failed() || raw.returned().equals(ran.returned()));
            if (!sameEnd || !normalised(rawAfter).equals(normalised(after))) {
                wrong.add("current token differs from raw: raw " + raw.describe() + " " + rawAfter + " / fenced "
                        + ran.describe() + " " + after);
            }
            String afterCurrent = ran.failed() ? null : b.afterCurrent.get();
            if (afterCurrent != null) {
                wrong.add(afterCurrent);
            }
        }
        return wrong.isEmpty() ? null : String.join("; ", wrong);
    }

    private String normalised(String rows) {
        UnaryOperator<String> tokens = s -> s.replaceAll("(null|\\d+);", "T;");
        return b.tokensIgnored ? tokens.apply(rows) : rows;
    }

    /** {@code sql} with its parameters written as {@code literal} (not the {@code ?}s of the two known comments). */
    private static String bound(String sql, String literal) {
        return sql.replace("?", literal)
                .replace("/* " + literal + " ' */", "/* ? ' */")
                .replace("-- c " + literal, "-- c ?");
    }

    /** Runs {@code sql} prepared, every parameter set to {@code value}: null, or the error. */
    private static String preparedWith(Connection c, String sql, String value) {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int p = 1; p <= ps.getParameterMetaData().getParameterCount(); p++) {
                ps.setString(p, value);
            }
            ps.execute();
            return null;
        } catch (SQLException e) {
            return e.getClass().getSimpleName() + ":" + e.getSQLState() + ":" + e.getMessage();
        }
    }

    private static Ran runReadingRows(Connection c, String sql, boolean prepared) {
        try {
            Statement s = prepared ? c.prepareStatement(sql) : c.createStatement();
            try (s) {
                boolean hasRows = prepared ? ((PreparedStatement) s).execute() : s.execute(sql);
                List<String> got = new ArrayList<>();
                if (hasRows) {
                    try (ResultSet r = s.getResultSet()) {
                        int n = r.getMetaData().getColumnCount();
                        while (r.next()) {
                            StringBuilder row = new StringBuilder();
                            for (int i = 1; i <= n; i++) {
                                row.append(r.getString(i)).append('|');
                            }
                            got.add(row.toString());
                        }
                    }
                }
                got.sort(null);
                return new Ran(null, got.toString());
            }
        } catch (SQLException e) {
            return new Ran(e.getClass().getSimpleName() + ":" + e.getSQLState() + ":" + e.getMessage(), "");
        }
    }
}
