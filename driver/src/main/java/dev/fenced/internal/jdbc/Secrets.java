package dev.fenced.internal.jdbc;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Takes credentials out of URLs before they go into a message, a log line or a map key. */
final class Secrets {

    /** Any parameter whose name says it holds a secret: password, sslpassword, sslkeypassword, token, secret... */
    private static final Pattern PARAMETER =
            Pattern.compile("(?i)([?&;]([\\w.-]*(?:password|passwd|pwd|secret|token|credential)[\\w.-]*)=)[^&;]*");
    /** {@code scheme://user:password@host}. */
    private static final Pattern USER_INFO = Pattern.compile("(//[^/?#@:]*:)[^/?#@]*@");

    private Secrets() {}

    /** {@code url} with its secrets masked; null for null (a URL not given). */
    static @Nullable String mask(@Nullable String url) {
        if (url == null) {
            return null;
        }
        String masked = PARAMETER.matcher(url).replaceAll("$1***");
        return USER_INFO.matcher(masked).replaceAll("$1***@");
    }
}
