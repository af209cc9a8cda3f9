package dev.fenced.internal.jdbc;

import dev.fenced.internal.pg.PgStates;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/** Buffers a stream parameter that must be bound at several positions (a fenced DELETE's WHERE). */
public final class Streams {

    private Streams() {}

    public static byte @Nullable [] bytes(@Nullable InputStream in) throws SQLException {
        if (in == null) {
            return null;
        }
        try {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new SQLException(
                    "fenced: cannot read a stream parameter: " + e.getMessage(), PgStates.DATA_EXCEPTION, e);
        }
    }

    public static @Nullable String chars(@Nullable Reader in) throws SQLException {
        if (in == null) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        char[] buf = new char[8192];
        try {
            for (int n; (n = in.read(buf)) > 0; ) {
                b.append(buf, 0, n);
            }
        } catch (IOException e) {
            throw new SQLException(
                    "fenced: cannot read a stream parameter: " + e.getMessage(), PgStates.DATA_EXCEPTION, e);
        }
        return b.toString();
    }

    public static @Nullable InputStream replay(byte @Nullable [] bytes) {
        return bytes == null ? null : new ByteArrayInputStream(bytes);
    }

    public static @Nullable Reader replay(@Nullable String chars) {
        return chars == null ? null : new StringReader(chars);
    }
}
