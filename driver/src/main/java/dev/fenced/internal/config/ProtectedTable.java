package dev.fenced.internal.config;

import dev.fenced.FencingMode;
import dev.fenced.internal.context.TokenDomains;
import org.jspecify.annotations.Nullable;

/**
 * A table whose writes are fenced: its name as registered, its fence column (folded), its mode and its token domain
 * (where its tokens come from; see {@link TokenDomains}). {@code derivedFrom} is null for a registered table, or the
 * registered table a partition, child or parent was found through in the catalog.
 */
public record ProtectedTable(
        TableName name,
        String column,
        FencingMode mode,
        String tokenDomain,
        @Nullable ProtectedTable derivedFrom) {

    public ProtectedTable {
        TokenDomains.check(tokenDomain);
    }

    /** A registered table of fenced's own token domain. */
    public ProtectedTable(TableName name, String column, FencingMode mode) {
        this(name, column, mode, TokenDomains.FENCED, null);
    }

    /** The name used in messages: the registered spelling. */
    public String displayName() {
        return name.toString();
    }
}
