package dev.fenced.internal.spring.lease;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fenced.internal.config.LeaseMethod;
import dev.fenced.spring.WithLease;
import dev.fenced.spring.config.FencedConfigurationException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;

/**
 * Issue 25, item 5: without the agent, a lease method that is final, private or static ran its body with no lease
 * and no word logged (a proxy cannot intercept it); start-up checked only that the class and a method of that name
 * exist. Now start-up fails naming the method and the way out.
 */
class LeaseMethodsCheckTest {

    static class FinalJob {
        public final void run() {}
    }

    static class PrivateJob {
        public void trigger() {
            job();
        }

        @WithLease(name = "private-job")
        private void job() {}
    }

    static class StaticJob {
        @WithLease(name = "static-job")
        public static void job() {}
    }

    static class GoodJob {
        @WithLease(name = "good-job")
        public void job() {}

        public void run() {
            helper();
        }

        private void helper() {}
    }

    private static FencedConfigurationException refused(Class<?> bean, LeaseMethod... configured) {
        return assertThrows(FencedConfigurationException.class, () -> check(bean, configured));
    }

    private static void check(Class<?> bean, LeaseMethod... configured) {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerBeanDefinition("job", new RootBeanDefinition(bean));
        new LeaseMethodsCheck(new LeaseMethods(List.of(configured)), beans).afterSingletonsInstantiated();
    }

    private static LeaseMethod configured(Class<?> type, String method) {
        return new LeaseMethod("nightly", type.getName(), method, Duration.ofSeconds(30), LeaseMethod.OnBusy.SKIP);
    }

    private static void assertNames(FencedConfigurationException e, String method, String modifier) {
        String m = e.getMessage();
        assertTrue(m.contains(method), m);
        assertTrue(m.contains("which is " + modifier), m);
        assertTrue(m.contains("-javaagent") && m.contains("call it through the bean"), m);
    }

    @Test
    void aConfiguredFinalMethodFailsStartUp() {
        FencedConfigurationException e = refused(FinalJob.class, configured(FinalJob.class, "run"));
        assertNames(e, FinalJob.class.getName() + "#run", "final");
        assertTrue(e.getMessage().contains("fenced.lease.nightly.method"), e.getMessage());
    }

    @Test
    void aPrivateWithLeaseMethodFailsStartUp() {
        assertNames(refused(PrivateJob.class), PrivateJob.class.getName() + "#job", "private");
    }

    @Test
    void aStaticWithLeaseMethodFailsStartUp() {
        assertNames(refused(StaticJob.class), StaticJob.class.getName() + "#job", "static");
    }

    @Test
    void publicNonFinalLeaseMethodsPass() {
        assertDoesNotThrow(() -> check(GoodJob.class, configured(GoodJob.class, "run")));
    }
}
