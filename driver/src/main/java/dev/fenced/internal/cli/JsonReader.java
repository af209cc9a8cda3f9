package dev.fenced.internal.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads one JSON value (RFC 8259) into maps, lists, strings, numbers ({@link Long}, or {@link Double} with a
 * fraction or exponent), booleans and null. For what the tool reads: the writer inventory's JSON report and
 * PostgreSQL's {@code jsonlog} lines. The driver jar carries no JSON library, and these documents are small.
 */
final class JsonReader {

    /** The text is not one JSON value; the message says where and why. */
    static final class Malformed extends Exception {
        private static final long serialVersionUID = 1L;

        Malformed(String message) {
            super(message);
        }
    }

    private final String s;
    private int at;

    private JsonReader(String s) {
        this.s = s;
    }

    /** The one value the whole text holds (whitespace around it allowed). */
    static @Nullable Object parse(String text) throws Malformed {
        JsonReader r = new JsonReader(text);
        r.space();
        Object v = r.value();
        r.space();
        if (r.at < text.length()) {
            throw r.fail("text after the end of the JSON value");
        }
        return v;
    }

    private @Nullable Object value() throws Malformed {
        if (at >= s.length()) {
            throw fail("the text ends where a value should be");
        }
        char c = s.charAt(at);
        return switch (c) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> word("true", Boolean.TRUE);
            case 'f' -> word("false", Boolean.FALSE);
            case 'n' -> word("null", null);
            default -> {
                if (c == '-' || c >= '0' && c <= '9') {
                    yield number();
                }
                throw fail("unexpected character '" + c + "'");
            }
        };
    }

    private Map<String, Object> object() throws Malformed {
        Map<String, Object> m = new LinkedHashMap<>();
        at++;
        space();
        if (peek() == '}') {
            at++;
            return m;
        }
        while (true) {
            space();
            if (peek() != '"') {
                throw fail("a member name (a string) expected");
            }
            String name = string();
            space();
            expect(':');
            space();
            m.put(name, value());
            space();
            char c = next("',' or '}'");
            if (c == '}') {
                return m;
            }
            if (c != ',') {
                throw fail("',' or '}' expected");
            }
        }
    }

    private List<Object> array() throws Malformed {
        List<Object> list = new ArrayList<>();
        at++;
        space();
        if (peek() == ']') {
            at++;
            return list;
        }
        while (true) {
            space();
            list.add(value());
            space();
            char c = next("',' or ']'");
            if (c == ']') {
                return list;
            }
            if (c != ',') {
                throw fail("',' or ']' expected");
            }
        }
    }

    private String string() throws Malformed {
        at++;
        StringBuilder b = new StringBuilder();
        while (true) {
            char c = next("the closing '\"' of a string");
            if (c == '"') {
                return b.toString();
            }
            if (c < 0x20) {
                throw fail("a control character inside a string");
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            char e = next("an escape");
            switch (e) {
                case '"', '\\', '/' -> b.append(e);
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'u' -> {
                    if (at + 4 > s.length()) {
                        throw fail("a \\u escape needs four hex digits");
                    }
                    try {
                        b.append((char) Integer.parseInt(s.substring(at, at + 4), 16));
                    } catch (NumberFormatException x) {
                        throw fail("a \\u escape needs four hex digits");
                    }
                    at += 4;
                }
                default -> throw fail("unknown escape \\" + e);
            }
        }
    }

    private Object number() throws Malformed {
        int start = at;
        if (peek() == '-') {
            at++;
        }
        boolean fraction = false;
        while (at < s.length()) {
            char c = s.charAt(at);
            if (c >= '0' && c <= '9') {
                at++;
            } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                fraction = true;
                at++;
            } else {
                break;
            }
        }
        String n = s.substring(start, at);
        try {
            return fraction ? (Object) Double.parseDouble(n) : (Object) Long.parseLong(n);
        } catch (NumberFormatException e) {
            throw fail("not a number: " + n);
        }
    }

    private @Nullable Object word(String w, @Nullable Object v) throws Malformed {
        if (!s.startsWith(w, at)) {
            throw fail("unexpected word");
        }
        at += w.length();
        return v;
    }

    private void space() {
        while (at < s.length()
                && (s.charAt(at) == ' ' || s.charAt(at) == '\t' || s.charAt(at) == '\n' || s.charAt(at) == '\r')) {
            at++;
        }
    }

    private char peek() {
        return at < s.length() ? s.charAt(at) : '\0';
    }

    private char next(String expected) throws Malformed {
        if (at >= s.length()) {
            throw fail("the text ends where " + expected + " should be");
        }
        return s.charAt(at++);
    }

    private void expect(char c) throws Malformed {
        if (next("'" + c + "'") != c) {
            at--;
            throw fail("'" + c + "' expected");
        }
    }

    private Malformed fail(String why) {
        int line = 1;
        for (int i = 0; i < Math.min(at, s.length()); i++) {
            if (s.charAt(i) == '\n') {
                line++;
            }
        }
        return new Malformed(why + " (line " + line + ")");
    }
}
