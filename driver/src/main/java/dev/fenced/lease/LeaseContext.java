package dev.fenced.lease;

/**
 * What a held lease needs from the manager that granted it: the store, its holder name, the renewer and
 * callback thread, the clock deadlines are read from, and the time budget of a release.
 */
record LeaseContext(LeaseStore store, String holder, Renewer renewer, CallbackDispatcher dispatcher, Ticker ticker,
                    long releaseBudgetNanos) {
}
