package dev.fenced.internal.context;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/** How a token cell's value is read; see {@link dev.fenced.internal.bootstrap.FencedContextStore}. */
public final class TokenCells {

    /** Value of the cell bound inside {@code Fencing.unfenced}. */
    public static final long UNFENCED = 0L;

    private TokenCells() {}

    /** A live cell for {@code token} of {@code domain}. */
    public static AtomicLong live(String domain, long token) {
        return new TokenCell(domain, token);
    }

    /** A cell that was lost from the start: every write under it is refused as the lease's would be. */
    public static AtomicLong lost(String domain, long token) {
        AtomicLong cell = live(domain, token);
        poison(cell);
        return cell;
    }

    /**
     * The domain of the token in {@code cell}. A cell made by this driver says it; one made by a copy of the driver
     * in another class loader (a child-first web application beside the agent's shared state) is asked by name,
     * once per class; a cell with no domain (a driver from before token domains, where every token was fenced's)
     * is {@link TokenDomains#FENCED}. A cell whose domain cannot be read has none that any table matches.
     */
    public static String domainOf(AtomicLong cell) {
        if (cell instanceof TokenCell t) {
            return t.tokenDomain();
        }
        return FOREIGN.get(cell.getClass()).domainOf(cell);
    }

    /**
     * The database whose counter drew the token in {@code cell} ({@link TokenCell#tokenOrigin}), or null when it was
     * not one database's counter or is not known. A cell of a driver copy in another class loader is asked by name,
     * as for its domain; one that cannot say has none.
     */
    public static @Nullable String originOf(AtomicLong cell) {
        if (cell instanceof TokenCell t) {
            return t.tokenOrigin();
        }
        return FOREIGN_ORIGIN.get(cell.getClass()).originOf(cell);
    }

    private interface OriginReader {
        @Nullable
        String originOf(AtomicLong cell);
    }

    private static final ClassValue<OriginReader> FOREIGN_ORIGIN = new ClassValue<>() {
        @Override
        protected OriginReader computeValue(Class<?> type) {
            MethodHandle getter;
            try {
                getter = MethodHandles.publicLookup()
                        .findVirtual(type, "tokenOrigin", MethodType.methodType(String.class));
            } catch (NoSuchMethodException | IllegalAccessException e) {
                return cell -> null; // a driver from before origins: its domain check is all there is
            }
            return cell -> {
                try {
                    Object origin = getter.invoke(cell);
                    return origin instanceof String s ? s : null;
                } catch (Throwable t) {
                    return null;
                }
            };
        }
    };

    /** A domain no table has (names are checked by {@link TokenDomains#check}): refused everywhere. */
    static final String UNREADABLE = "<unreadable token domain>";

    private interface DomainReader {
        String domainOf(AtomicLong cell);
    }

    private static final ClassValue<DomainReader> FOREIGN = new ClassValue<>() {
        @Override
        protected DomainReader computeValue(Class<?> type) {
            MethodHandle getter;
            try {
                getter = MethodHandles.publicLookup()
                        .findVirtual(type, "tokenDomain", MethodType.methodType(String.class));
            } catch (NoSuchMethodException e) {
                return cell -> TokenDomains.FENCED;
            } catch (IllegalAccessException e) {
                return cell -> UNREADABLE;
            }
            return cell -> {
                try {
                    Object domain = getter.invoke(cell);
                    return domain instanceof String s ? s : UNREADABLE;
                } catch (Throwable t) {
                    return UNREADABLE;
                }
            };
        }
    };

    public static boolean isLost(long value) {
        return value < 0;
    }

    /** The token a cell value stands for, whether it is still live or was lost. */
    public static long tokenOf(long value) {
        return value < 0 ? -value : value;
    }

    /** Marks the cell as belonging to a lost lease; every holder of the cell sees it at once. */
    public static void poison(AtomicLong cell) {
        long v;
        do {
            v = cell.get();
            if (v <= 0) {
                return;
            }
        } while (!cell.compareAndSet(v, -v));
    }
}
