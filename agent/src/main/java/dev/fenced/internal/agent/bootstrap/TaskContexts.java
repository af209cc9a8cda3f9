package dev.fenced.internal.agent.bootstrap;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cell captured for a ForkJoinTask, by task identity, until the task runs. ForkJoinTasks cannot be
 * wrapped (join/get are called on the object that was forked) and the agent adds no fields, so this weak
 * identity map carries them. Only tasks handed over while a token is bound get an entry (a later hand-over
 * with nothing removes it); the lookup costs one {@code isEmpty()} check otherwise. A task that never runs is dropped when it is collected.
 */
final class TaskContexts {

    private static final ConcurrentHashMap<Key, AtomicLong> CELLS = new ConcurrentHashMap<>();
    private static final ReferenceQueue<Object> COLLECTED = new ReferenceQueue<>();

    private TaskContexts() {}

    /** Records {@code cell} for {@code task}; null (nothing captured) drops an earlier capture. */
    static void put(Object task, AtomicLong cell) {
        if (cell == null) {
            if (!CELLS.isEmpty()) {
                CELLS.remove(new Key(task, null));
            }
            return;
        }
        expunge();
        CELLS.put(new Key(task, COLLECTED), cell);
    }

    /** The cell captured for {@code task}, removed from the map; null when there is none. */
    static AtomicLong take(Object task) {
        if (CELLS.isEmpty()) {
            return null;
        }
        return CELLS.remove(new Key(task, null));
    }

    /** The cell captured for {@code task}, left in place (a periodic TimerTask runs many times); null if none. */
    static AtomicLong peek(Object task) {
        if (CELLS.isEmpty()) {
            return null;
        }
        return CELLS.get(new Key(task, null));
    }

    static int size() {
        return CELLS.size();
    }

    private static void expunge() {
        Reference<?> r;
        while ((r = COLLECTED.poll()) != null) {
            CELLS.remove(r);
        }
    }

    private static final class Key extends WeakReference<Object> {
        private final int hash;

        Key(Object referent, ReferenceQueue<Object> queue) {
            super(referent, queue);
            this.hash = System.identityHashCode(referent);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            if (o == this) {
                return true;
            }
            if (!(o instanceof Key)) {
                return false;
            }
            Object mine = get();
            return mine != null && mine == ((Key) o).get();
        }
    }
}
