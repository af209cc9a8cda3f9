package dev.fenced.spring.it.app;

import dev.fenced.Fencing;
import dev.fenced.spring.WithLease;
import java.util.OptionalLong;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/** Lease-bound by annotation: each call writes restaurant 1's total under lease "nightly". */
@Component
public class Jobs {

    private final JdbcTemplate jdbc;

    public Jobs(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @WithLease(name = "nightly", ttl = "10s")
    public OptionalLong nightly(long amount) {
        jdbc.update("UPDATE totals SET amount = ? WHERE restaurant_id = 1", amount);
        return Fencing.currentToken();
    }

    @WithLease(name = "nightly", ttl = "10s", onBusy = WithLease.OnBusy.FAIL)
    public OptionalLong nightlyOrFail() {
        return Fencing.currentToken();
    }
}
