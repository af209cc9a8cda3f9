package dev.fenced.jdbc;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/**
 * Values read from a result set or a call that carry pgjdbc objects of their own: a refcursor comes back as a
 * ResultSet and an array's {@code getResultSet()} builds one, each with a raw pgjdbc statement behind
 * {@code getStatement()}, whose connection writes with no fencing at all. They are handed out wrapped, pointing
 * at the fenced statement that produced them.
 */
final class FencedValues {

    private FencedValues() {
    }

    static Object guard(Object value, Statement owner) {
        if (value instanceof ResultSet rs && !(rs instanceof FencedResultSet)) {
            return FencedResultSet.wrap(rs, owner);
        }
        if (value instanceof Array a && !(a instanceof FencedArray)) {
            return new FencedArray(a, owner);
        }
        return value;
    }

    static <T> T guard(Object value, Class<T> type, Statement owner) throws SQLException {
        Object guarded = guard(value, owner);
        if (guarded != null && !type.isInstance(guarded)) {
            throw new SQLException("fenced hands out result sets and arrays as java.sql.ResultSet and java.sql.Array"
                    + " only (a pgjdbc class would bypass fencing); asked for " + type.getName());
        }
        return type.cast(guarded);
    }

    /** An array whose row view is a fenced result set. */
    static final class FencedArray implements Array {
        private final Array array;
        private final Statement owner;

        FencedArray(Array array, Statement owner) {
            this.array = array;
            this.owner = owner;
        }

        @Override
        public String getBaseTypeName() throws SQLException {
            return array.getBaseTypeName();
        }

        @Override
        public int getBaseType() throws SQLException {
            return array.getBaseType();
        }

        @Override
        public Object getArray() throws SQLException {
            return array.getArray();
        }

        @Override
        public Object getArray(Map<String, Class<?>> map) throws SQLException {
            return array.getArray(map);
        }

        @Override
        public Object getArray(long index, int count) throws SQLException {
            return array.getArray(index, count);
        }

        @Override
        public Object getArray(long index, int count, Map<String, Class<?>> map) throws SQLException {
            return array.getArray(index, count, map);
        }

        @Override
        public ResultSet getResultSet() throws SQLException {
            return FencedResultSet.wrap(array.getResultSet(), owner);
        }

        @Override
        public ResultSet getResultSet(Map<String, Class<?>> map) throws SQLException {
            return FencedResultSet.wrap(array.getResultSet(map), owner);
        }

        @Override
        public ResultSet getResultSet(long index, int count) throws SQLException {
            return FencedResultSet.wrap(array.getResultSet(index, count), owner);
        }

        @Override
        public ResultSet getResultSet(long index, int count, Map<String, Class<?>> map) throws SQLException {
            return FencedResultSet.wrap(array.getResultSet(index, count, map), owner);
        }

        @Override
        public void free() throws SQLException {
            array.free();
        }

        @Override
        public String toString() {
            return array.toString();
        }
    }
}
