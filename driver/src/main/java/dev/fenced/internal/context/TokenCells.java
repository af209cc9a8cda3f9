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
        String domain = FOREIGN_DOMAIN.get(cell.getClass()).read(cell);
        return domain == null ? UNREADABLE : domain;
    }

    /**
     * The database whose counter drew the token in {@code cell} ({@link TokenCell#tokenOrigin}), or null when it was
     * not one database's counter or is not known. A cell of a driver copy in another class loader is asked by name,
     * as for its domain; one that cannot say (a driver from before origins) has none, and its domain check is all
     * there is.
     */
    public static @Nullable String originOf(AtomicLong cell) {
        if (cell instanceof TokenCell t) {
            return t.tokenOrigin();
        }
        return FOREIGN_ORIGIN.get(cell.getClass()).read(cell);
    }

    /** A domain no table has (names are checked by {@link TokenDomains#check}): refused everywhere. */
    static final String UNREADABLE = "<unreadable token domain>";

    private static final ClassValue<Getter> FOREIGN_DOMAIN = getter("tokenDomain", TokenDomains.FENCED, UNREADABLE);
    private static final ClassValue<Getter> FOREIGN_ORIGIN = getter("tokenOrigin", null, null);

    /** One String getter of a cell class, read by name. */
    private interface Getter {
        @Nullable
        String read(AtomicLong cell);
    }

    /**
     * The getter {@code name} of each cell class, looked up once per class: {@code absent} where the class has no
     * such method, {@code unreadable} where it cannot be called or does not answer with a String.
     */
    private static ClassValue<Getter> getter(String name, @Nullable String absent, @Nullable String unreadable) {
        return new ClassValue<>() {
            @Override
            protected Getter computeValue(Class<?> type) {
                MethodHandle handle;
                try {
                    handle = MethodHandles.publicLookup().findVirtual(type, name, MethodType.methodType(String.class));
                } catch (NoSuchMethodException e) {
                    return cell -> absent;
                } catch (IllegalAccessException e) {
                    return cell -> unreadable;
                }
                return cell -> {
                    try {
                        Object value = handle.invoke(cell);
                        return value instanceof String s ? s : unreadable;
                    } catch (Throwable t) {
                        return unreadable;
                    }
                };
            }
        };
    }

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
