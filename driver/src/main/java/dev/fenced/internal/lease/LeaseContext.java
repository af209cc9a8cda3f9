package dev.fenced.internal.lease;

import dev.fenced.Ticker;
import dev.fenced.internal.metrics.Tracker;

/**
 * What a held lease needs from the manager that granted it: the store, its holder name, the renewer and
 * callback thread, the clock deadlines are read from, the time budget of a release, and whether the manager
 * renews its leases in the background (if it does not, a holder may {@link dev.fenced.Lease#extend} them), and
 * the manager's counters.
 */
record LeaseContext(
        StoreAccess store,
        String holder,
        Renewer renewer,
        CallbackDispatcher dispatcher,
        Ticker ticker,
        long releaseBudgetNanos,
        boolean renews,
        Tracker tracker) {}
