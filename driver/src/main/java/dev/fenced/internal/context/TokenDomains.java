package dev.fenced.internal.context;

import java.util.regex.Pattern;

/**
 * Token domains: which counter a token comes from. Tokens of two domains are unrelated numbers (a lease token of
 * fenced's own store is timeline × 2^43 + sequence, an etcd revision counts the cluster's writes), so a row fenced
 * with one must never be checked against the other: a stale holder of one source would pass just because its
 * number is bigger. Each protected table has one domain; a write whose token is of another is refused.
 */
public final class TokenDomains {

    /** The domain of fenced's own leases, and of a token bound without one ({@code Fencing.bind(long)}). */
    public static final String FENCED = "fenced";

    /** Lower-case letters, digits and {@code . _ : -}, starting with a letter or digit, at most 63 characters. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._:-]{0,62}");

    private TokenDomains() {}

    /**
     * Checks a domain name and returns it.
     *
     * @throws IllegalArgumentException naming the rule, for null, empty, upper-case or otherwise odd names: domains
     *         are compared exactly, so {@code Etcd} and {@code etcd} would be two domains without this
     */
    public static String check(String domain) {
        if (domain == null || !NAME.matcher(domain).matches()) {
            throw new IllegalArgumentException("a token domain is 1 to 63 lower-case letters, digits, '.', '_', ':'"
                    + " or '-', starting with a letter or digit (e.g. fenced, etcd, zookeeper, redisson), got "
                    + (domain == null ? "null" : "'" + domain + "'"));
        }
        return domain;
    }
}
