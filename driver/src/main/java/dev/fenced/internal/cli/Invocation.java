package dev.fenced.internal.cli;

import dev.fenced.FencingException;
import dev.fenced.internal.config.ConfigLoader;
import dev.fenced.internal.config.FencedConfig;
import dev.fenced.internal.jdbc.ConnectionFactory;
import java.io.PrintStream;
import java.sql.Connection;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** One run of a command: its arguments, where it writes, and the configuration read as the driver reads it. */
final class Invocation {

    private final Args args;
    private final PrintStream out;
    private @Nullable FencedConfig config;

    Invocation(Args args, PrintStream out) {
        this.args = args;
        this.out = out;
    }

    Args args() {
        return args;
    }

    PrintStream out() {
        return out;
    }

    /** The {@code --url}, or null. */
    @Nullable
    String url() {
        return args.value(Option.URL);
    }

    /**
     * The configuration: the {@code --url}'s fenced parameters, the command line's keys, then system properties,
     * environment and fenced.properties, checked by the driver's own loader (an unknown key is the driver's error).
     */
    FencedConfig config() throws CliException {
        if (config == null) {
            try {
                Map<String, String> fromUrl = url() != null && ConnectionFactory.accepts(url())
                        ? ConnectionFactory.fencedParameters(url())
                        : Map.of();
                config = ConfigLoader.forCommandLine(fromUrl, args.fencedKeys());
            } catch (FencingException e) {
                throw CliException.usage(String.valueOf(e.getMessage()));
            }
        }
        return config;
    }

    /** The configuration, which must protect at least one table. */
    FencedConfig configWithTables() throws CliException {
        FencedConfig c = config();
        if (c.tables().isEmpty()) {
            throw CliException.usage(
                    "no protected tables: give --tables t1,t2 (or fenced.tables in --config or" + " the --url)");
        }
        return c;
    }

    /** The {@code --url}, which the command needs: bad usage without it. */
    String requiredUrl() throws CliException {
        String url = url();
        if (url == null) {
            throw CliException.usage(
                    "give --url jdbc:postgresql://host:port/db?user=... (or a jdbc:fenced:postgresql:" + " URL)");
        }
        return url;
    }

    /** A read-only connection to the {@code --url}, which the command needs. */
    Connection connect() throws CliException {
        return Database.open(requiredUrl());
    }

    /** A connection to the {@code --url} that may write ({@code install}). */
    Connection connectForWrites() throws CliException {
        return Database.openForWrites(requiredUrl());
    }

    /** The {@code --format}: text unless json or markdown was asked for. */
    Output.Format format() throws CliException {
        return Output.Format.parse(args.value(Option.FORMAT));
    }
}
