package dev.fenced.internal.log;

import java.text.MessageFormat;
import java.util.ResourceBundle;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link System.Logger} writing to SLF4J, so fenced's call sites stay one API. Loaded only when SLF4J is on the
 * class path ({@link Logs}). Uses only what SLF4J 1.7 and 2 share, so either works at run time. Messages with
 * parameters are System.Logger's {@link MessageFormat} patterns, formatted here once.
 */
final class Slf4jLogger implements System.Logger {

    private final Logger delegate;

    private Slf4jLogger(Logger delegate) {
        this.delegate = delegate;
    }

    static System.Logger of(String name) {
        return new Slf4jLogger(LoggerFactory.getLogger(name));
    }

    /** False when SLF4J has no provider and would drop every record (its NOP factory). */
    static boolean providerBound() {
        try {
            return !LoggerFactory.getILoggerFactory().getClass().getName().equals("org.slf4j.helpers.NOPLoggerFactory");
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    @Override
    public String getName() {
        return delegate.getName();
    }

    @Override
    public boolean isLoggable(Level level) {
        return switch (level) {
            case ALL, TRACE -> delegate.isTraceEnabled();
            case DEBUG -> delegate.isDebugEnabled();
            case INFO -> delegate.isInfoEnabled();
            case WARNING -> delegate.isWarnEnabled();
            case ERROR -> delegate.isErrorEnabled();
            case OFF -> false;
        };
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        if (isLoggable(level)) {
            write(level, msg, thrown);
        }
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        if (isLoggable(level)) {
            String msg = params == null || params.length == 0 ? format : MessageFormat.format(format, params);
            write(level, msg, null);
        }
    }

    private void write(Level level, String msg, @Nullable Throwable thrown) {
        switch (level) {
            case ALL, TRACE -> delegate.trace(msg, thrown);
            case DEBUG -> delegate.debug(msg, thrown);
            case INFO -> delegate.info(msg, thrown);
            case WARNING -> delegate.warn(msg, thrown);
            case ERROR -> delegate.error(msg, thrown);
            case OFF -> {
                // never logged
            }
        }
    }
}
