package dev.fenced.lease;

/** What a held lease needs from the manager that granted it. */
record LeaseContext(LeaseStore store, String holder, Renewer renewer, CallbackDispatcher dispatcher) {
}
