package dev.fenced.it.locks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.github.kagkarlsson.scheduler.task.TaskInstance;
import dev.fenced.dbscheduler.FencedExecutionInterceptor;
import dev.fenced.quartz.FencedJobFactory;
import org.junit.jupiter.api.Test;
import org.quartz.JobKey;

/** Issue 25: the adapters' default lease names of two different jobs were the same, and one job was skipped. */
class AdapterLeaseNamesTest {

    @Test
    void quartzJobsWhoseGroupAndNameSplitDifferentlyGetDifferentLeases() {
        assertNotEquals(
                FencedJobFactory.defaultLeaseName(new JobKey("b.c", "a")),
                FencedJobFactory.defaultLeaseName(new JobKey("c", "a.b")));
        assertEquals("quartz:DEFAULT.nightly", FencedJobFactory.defaultLeaseName(new JobKey("nightly", "DEFAULT")));
    }

    @Test
    void dbSchedulerExecutionsWhoseTaskAndIdSplitDifferentlyGetDifferentLeases() {
        assertNotEquals(
                FencedExecutionInterceptor.defaultLeaseName(new TaskInstance<>("report", "daily/1")),
                FencedExecutionInterceptor.defaultLeaseName(new TaskInstance<>("report/daily", "1")));
        assertEquals(
                "db-scheduler:nightly-totals/recurring",
                FencedExecutionInterceptor.defaultLeaseName(new TaskInstance<>("nightly-totals", "recurring")));
    }
}
