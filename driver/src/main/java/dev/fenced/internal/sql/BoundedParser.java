package dev.fenced.internal.sql;

import dev.fenced.internal.context.FencedThreads;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserConstants;
import net.sf.jsqlparser.parser.StringProvider;
import net.sf.jsqlparser.statement.Statements;
import org.jspecify.annotations.Nullable;

/**
 * Runs JSqlParser on the caller's thread, in simple mode only, under a deadline.
 *
 * <p>Why not {@code CCJSqlParserUtil}: its convenience methods hand every parse to a new thread (about a
 * millisecond each) and leak that thread when parsing fails, and they fall back to "complex" parsing,
 * which can backtrack for minutes on malformed input. Here one shared daemon watchdog ({@link Watchdog}) flips the parser's
 * {@code interrupted} flag when the deadline passes; the parser then stops and the statement is refused.
 */
final class BoundedParser {

    /**
     * The watchdog, made on the first parse with a deadline (not when this class loads). Its one thread is made
     * by {@link FencedThreads} (a daemon with no context class loader) and dies after {@link #WATCHDOG_IDLE_SECONDS}
     * without a parse in flight (cancelled alarms leave the queue at once), to be made again by the next parse: so
     * no thread of fenced's stays alive in an idle or redeployed application, and there is nothing to stop. A
     * thread per parse would cost about a millisecond each; one kept while parses come costs nothing.
     */
    static final class Watchdog {
        static final ScheduledThreadPoolExecutor INSTANCE = start();

        private static ScheduledThreadPoolExecutor start() {
            ScheduledThreadPoolExecutor timer = FencedThreads.unownedTimer("fenced-parse-watchdog");
            timer.setKeepAliveTime(WATCHDOG_IDLE_SECONDS, TimeUnit.SECONDS);
            timer.allowCoreThreadTimeOut(true);
            return timer;
        }
    }

    /** How long the watchdog's thread waits for the next parse before it ends. */
    static final long WATCHDOG_IDLE_SECONDS = 10;

    /**
     * Nesting of parentheses and brackets beyond this is refused outright: JSqlParser's cost grows
     * exponentially with depth (12 nested subqueries or ARRAY[...]s: a few hundred ms).
     */
    static final int MAX_NESTING = 12;

    private BoundedParser() {}

    /** Parse failed, with a reason fit for an error message. */
    static final class ParseFailure extends Exception {
        private static final long serialVersionUID = 1L;

        final boolean timedOut;

        ParseFailure(String message) {
            this(message, false);
        }

        ParseFailure(String message, boolean timedOut) {
            super(message, null, false, false);
            this.timedOut = timedOut;
        }
    }

    static Statements parseStatements(String sql, Duration timeout) throws ParseFailure {
        CCJSqlParser parser = new CCJSqlParser(new StringProvider(sql)).withAllowComplexParsing(false);
        ScheduledFuture<?> alarm = Watchdog.INSTANCE.schedule(
                () -> {
                    parser.interrupted = true;
                },
                timeout.toNanos(),
                TimeUnit.NANOSECONDS);
        try {
            Statements statements = parser.Statements();
            if (parser.interrupted) {
                throw timedOut(timeout);
            }
            return statements;
        } catch (Exception | StackOverflowError e) {
            throw parser.interrupted ? timedOut(timeout) : new ParseFailure(firstLine(e.getMessage()));
        } catch (Error e) {
            // JSqlParser reports lexical errors in the input as TokenMgrError: bad SQL, not JVM trouble.
            if (e.getClass().getSimpleName().startsWith("TokenMgr")) {
                throw new ParseFailure(firstLine(e.getMessage()));
            }
            throw e;
        } finally {
            alarm.cancel(false);
        }
    }

    /**
     * Parses SQL fenced wrote itself (a check it adds to a statement) as one expression, on the caller's thread:
     * {@code CCJSqlParserUtil} would start a thread per parse. No deadline: the text is fenced's own and short.
     */
    static Expression parseOwnExpression(String sql) throws ParseFailure {
        CCJSqlParser parser = new CCJSqlParser(new StringProvider(sql)).withAllowComplexParsing(false);
        try {
            Expression expression = parser.Expression();
            if (parser.getNextToken().kind != CCJSqlParserConstants.EOF) {
                throw new ParseFailure("text after the expression");
            }
            return expression;
        } catch (ParseFailure e) {
            throw e;
        } catch (Exception | StackOverflowError e) {
            throw new ParseFailure(firstLine(e.getMessage()));
        } catch (Error e) {
            if (e.getClass().getSimpleName().startsWith("TokenMgr")) {
                throw new ParseFailure(firstLine(e.getMessage()));
            }
            throw e;
        }
    }

    private static ParseFailure timedOut(Duration timeout) {
        return new ParseFailure("parsing took longer than fenced.parseTimeout (" + timeout.toMillis() + " ms)", true);
    }

    private static String firstLine(@Nullable String message) {
        if (message == null) {
            return "the SQL parser could not read it";
        }
        String m = message.strip();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl).strip();
    }
}
