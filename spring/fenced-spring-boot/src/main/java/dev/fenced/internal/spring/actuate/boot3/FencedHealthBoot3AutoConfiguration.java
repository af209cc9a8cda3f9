package dev.fenced.internal.spring.actuate.boot3;

import dev.fenced.LeaseManager;
import dev.fenced.internal.spring.actuate.FencedHealthCheck;
import dev.fenced.spring.FencedAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/** The {@code fenced} health indicator on Boot 3 ({@code org.springframework.boot.actuate.health}). */
@AutoConfiguration(after = FencedAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.health.AbstractHealthIndicator")
@ConditionalOnBean(LeaseManager.class)
@ConditionalOnProperty(name = "management.health.fenced.enabled", havingValue = "true", matchIfMissing = true)
public class FencedHealthBoot3AutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "fencedHealthIndicator")
    FencedHealthIndicator fencedHealthIndicator(LeaseManager leases) {
        return new FencedHealthIndicator(new FencedHealthCheck(leases));
    }
}
