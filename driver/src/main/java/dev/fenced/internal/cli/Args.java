package dev.fenced.internal.cli;

import dev.fenced.FencedProperty;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A parsed command line: {@code <command> [options] [arguments]}. Options are {@code --name value} or
 * {@code --name=value}; any fenced key is written {@code --fenced.mode=observe} or {@code -Dfenced.mode=observe};
 * {@code --tables} and {@code --config} are short for {@code fenced.tables} and {@code fenced.config}.
 * {@code --} ends the options. Each option is given once: the last of two silently winning would hide a typo.
 */
final class Args {

    private final Map<String, List<String>> options = new LinkedHashMap<>();
    private final Map<String, String> fencedKeys = new LinkedHashMap<>();
    private final List<String> arguments = new ArrayList<>();

    private Args() {}

    static Args parse(String command, List<String> argv, List<Option> known) throws CliException {
        Args a = new Args();
        boolean optionsEnded = false;
        for (int i = 0; i < argv.size(); i++) {
            String arg = argv.get(i);
            if (optionsEnded || !arg.startsWith("-") || arg.equals("-")) {
                a.arguments.add(arg);
                continue;
            }
            if (arg.equals("--")) {
                optionsEnded = true;
                continue;
            }
            if (arg.equals("-h")) {
                arg = "--help";
            }
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg : arg.substring(0, eq);
            String inline = eq < 0 ? null : arg.substring(eq + 1);
            if (name.startsWith("-D" + FencedProperty.PREFIX) || name.startsWith("--" + FencedProperty.PREFIX)) {
                String key = name.substring(2); // -Dfenced.x and --fenced.x alike
                String value = inline;
                if (value == null && name.startsWith("--") && i + 1 < argv.size()) {
                    value = argv.get(++i);
                }
                if (value == null) {
                    throw CliException.usage(name + " needs a value: " + name + "=VALUE");
                }
                a.putKey(key, value, name);
                continue;
            }
            Option option = find(known, name);
            if (option == null) {
                throw CliException.usage(
                        "unknown option " + name + " for " + command + "; see: fenced " + command + " --help");
            }
            List<String> values = new ArrayList<>();
            if (inline != null) {
                if (option.arity() != 1) {
                    throw CliException.usage(
                            option.arity() == 0
                                    ? option.name() + " takes no value"
                                    : "write " + option.synopsis() + " with spaces, not =");
                }
                values.add(inline);
            } else {
                for (int k = 0; k < option.arity(); k++) {
                    if (i + 1 >= argv.size() || argv.get(i + 1).startsWith("--")) {
                        throw CliException.usage(option.name() + " needs " + String.join(" ", option.values()) + ": "
                                + option.synopsis());
                    }
                    values.add(argv.get(++i));
                }
            }
            if (option == Option.TABLES) {
                a.putKey(FencedProperty.TABLES.key(), values.get(0), name);
            } else if (option == Option.CONFIG) {
                a.putKey(FencedProperty.CONFIG.key(), values.get(0), name);
            } else if (a.options.put(option.name(), values) != null) {
                throw CliException.usage(option.name() + " given twice; give it once");
            }
        }
        return a;
    }

    private void putKey(String key, String value, String spelledAs) throws CliException {
        if (fencedKeys.put(key, value) != null) {
            throw CliException.usage(key + " given twice on the command line (" + spelledAs + "); give it once");
        }
    }

    private static @Nullable Option find(List<Option> known, String name) {
        for (Option o : known) {
            if (o.name().equals(name)) {
                return o;
            }
        }
        return null;
    }

    boolean has(Option o) {
        return options.containsKey(o.name());
    }

    /** The option's single value, or null when it was not given. */
    @Nullable
    String value(Option o) {
        List<String> v = options.get(o.name());
        return v == null ? null : v.get(0);
    }

    /** The option's values, or an empty list when it was not given. */
    List<String> values(Option o) {
        return options.getOrDefault(o.name(), List.of());
    }

    /** The fenced keys given on the command line, for {@code ConfigLoader.forCommandLine}. */
    Map<String, String> fencedKeys() {
        return fencedKeys;
    }

    /** What is left: the SQL of {@code explain}. */
    List<String> arguments() {
        return arguments;
    }
}
