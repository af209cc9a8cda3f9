package dev.fenced.internal.spring.actuate.boot3;

import dev.fenced.internal.spring.actuate.FencedHealthCheck;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/** Boot 3's health API ({@code org.springframework.boot.actuate.health}) over {@link FencedHealthCheck}. */
public final class FencedHealthIndicator extends AbstractHealthIndicator {

    private final FencedHealthCheck check;

    public FencedHealthIndicator(FencedHealthCheck check) {
        super("fenced: lease store check failed");
        this.check = check;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        builder.up().withDetails(check.check());
    }
}
