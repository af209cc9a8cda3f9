package dev.fenced.it.locks.node;

import dev.fenced.Fencing;

/** How the nightly-totals job writes, and so how a run whose lease was lost before its write is stopped. */
public enum LateWrite {

    /**
     * On the run's own thread, under the binding the lock library made: the driver knows the lease is lost and
     * refuses on the client ({@code LeaseLostException}); a write that slipped past would meet PostgreSQL's fence.
     */
    OWN_THREAD,

    /**
     * On a worker the run hands a copy of its token to just before writing ({@link Fencing#bind(long)}): the copy
     * of a lease that ended in this JVM binds as lost, so the driver refuses it on the client as well.
     */
    COPY_BOUND_LATE,

    /**
     * Under a copy of the token bound when the run starts, while the lease is valid, as a job does that hands its
     * token to its own worker up front: its lease's loss cannot reach that copy, so only PostgreSQL's fence, the
     * newer token on the row, stops the write ({@code StaleTokenException}).
     */
    COPY_BOUND_EARLY
}
