package dev.fenced.internal.jdbc;

import dev.fenced.FencedProperty;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@code jdbc:fenced:postgresql:...} URL split in two: the pgjdbc URL (the leading {@code jdbc:fenced:}
 * becomes {@code jdbc:}, exactly once; everything else is kept as written, except the {@code fenced.*}
 * parameters, which are ours and are taken out).
 */
record FencedUrl(String delegateUrl, Map<String, String> fencedParameters, List<String> repeated) {

    static final String PREFIX = "jdbc:fenced:";
    static final String ACCEPTED = "jdbc:fenced:postgresql:";

    static boolean accepts(String url) {
        return url != null && url.startsWith(ACCEPTED);
    }

    static FencedUrl parse(String url) {
        String rest = "jdbc:" + url.substring(PREFIX.length());
        int q = rest.indexOf('?');
        if (q < 0) {
            return new FencedUrl(rest, Map.of(), List.of());
        }
        Map<String, String> ours = new LinkedHashMap<>();
        List<String> repeated = new ArrayList<>();
        StringBuilder kept = new StringBuilder();
        for (String pair : rest.substring(q + 1).split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String key = decode(eq < 0 ? pair : pair.substring(0, eq));
            if (key.startsWith(FencedProperty.PREFIX)) {
                // one source, one value: the last of two silently winning would unprotect the first's tables
                if (ours.put(key, eq < 0 ? "" : decode(pair.substring(eq + 1))) != null) {
                    repeated.add(key);
                }
            } else {
                kept.append(kept.length() == 0 ? "" : "&").append(pair);
            }
        }
        String base = rest.substring(0, q);
        return new FencedUrl(kept.length() == 0 ? base : base + "?" + kept, ours, List.copyOf(repeated));
    }

    /** Identifies the database and user, without secrets: runtimes are shared per value. */
    String databaseKey(String user) {
        return Secrets.mask(delegateUrl) + "|" + user;
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
