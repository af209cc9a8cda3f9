package dev.fenced.internal.spring.quartz.boot3;

import dev.fenced.LeaseManager;
import dev.fenced.internal.spring.quartz.FencedSchedulerCustomizer;
import dev.fenced.spring.config.FencedSettings;
import org.quartz.spi.JobFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.quartz.SchedulerFactoryBeanCustomizer;

/** {@link FencedSchedulerCustomizer} as Boot 3's customizer ({@code org.springframework.boot.autoconfigure.quartz}). */
public final class FencedSchedulerFactoryBeanCustomizer extends FencedSchedulerCustomizer
        implements SchedulerFactoryBeanCustomizer {

    public FencedSchedulerFactoryBeanCustomizer(
            ObjectProvider<FencedSettings> settings,
            ObjectProvider<LeaseManager> leases,
            ObjectProvider<JobFactory> jobFactories) {
        super(settings, leases, jobFactories);
    }
}
