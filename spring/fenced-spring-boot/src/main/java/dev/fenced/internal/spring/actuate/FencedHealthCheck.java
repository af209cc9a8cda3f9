package dev.fenced.internal.spring.actuate;

import dev.fenced.LeaseManager;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The health of fenced's lease store, for Actuator (one adapter per Boot line, since Boot 4 moved the health
 * API): reachable within the store timeout, on a primary, its token sequence sane. The checks are the lease
 * manager's own ({@link LeaseManager#checkStore}), those of a first grant.
 */
public final class FencedHealthCheck {

    private final LeaseManager leases;

    public FencedHealthCheck(LeaseManager leases) {
        this.leases = leases;
    }

    /** The details to report when up. @throws Exception naming what is wrong: the indicator reports DOWN with it */
    public Map<String, Object> check() throws Exception {
        Optional<String> note = leases.checkStore();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("leaseStore", note.isPresent() ? "reachable" : "ready");
        details.put("primary", true);
        details.put("holder", leases.holder());
        note.ifPresent(n -> details.put("note", n));
        return details;
    }
}
