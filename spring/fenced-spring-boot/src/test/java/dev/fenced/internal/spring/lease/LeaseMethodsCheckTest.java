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

    /** run() calls its own lease method, with arguments of both sizes between the receiver and the call. */
    static class SelfCalling {
        public void run(long from) {
            String label = "x" + from;
            job(from * 2, label, new long[] {from}[0] > 0 ? 1.5 : 2.5);
        }

        @WithLease(name = "self-called")
        public void job(long n, String label, double d) {}
    }

    static class SelfReferenced {
        public void run(java.util.concurrent.Executor executor) {
            executor.execute(this::job);
        }

        @WithLease(name = "self-referenced")
        public void job() {}
    }

    static class SelfCallingInALambda {
        public void run(java.util.concurrent.Executor executor) {
            executor.execute(() -> this.job());
        }

        @WithLease(name = "lambda-called")
        public void job() {}
    }

    static class BaseJob {
        @WithLease(name = "base-job")
        public void job() {}
    }

    static class SuperCalling extends BaseJob {
        public void run() {
            super.job();
        }
    }

    /** The fix the message names: the call goes through an injected reference to the bean (its proxy). */
    static class SelfInjected {
        SelfInjected self = this;

        public void run(long n) {
            self.job(n);
        }

        @WithLease(name = "self-injected")
        public void job(long n) {}
    }

    /** A lease method calling one of the same lease: the inner call runs inside the outer's lease. */
    static class SameLease {
        @WithLease(name = "same")
        public void run() {
            step();
        }

        @WithLease(name = "same")
        public void step() {}
    }

    static class ConfiguredSelfCall {
        public void trigger() {
            this.run();
        }

        public void run() {}
    }

    interface JobApi {
        void job();
    }

    static class CallingThroughItsInterface implements JobApi {
        public void run() {
            ((JobApi) this).job();
        }

        @WithLease(name = "through-interface", ttl = "30s")
        @Override
        public void job() {}
    }

    interface NightlySteps {
        void job();

        default void nightly() {
            job();
        }
    }

    static class DefaultMethodCalling implements NightlySteps {
        @WithLease(name = "default-method", ttl = "30s")
        @Override
        public void job() {}
    }

    static class OuterThisCalling {
        public Runnable trigger() {
            return new Runnable() {
                @Override
                public void run() {
                    job(); // OuterThisCalling.this.job(), past the proxy
                }
            };
        }

        @WithLease(name = "outer-this", ttl = "30s")
        public void job() {}
    }

    static class MemberClassCalling {
        class Step {
            void go() {
                MemberClassCalling.this.job();
            }
        }

        @WithLease(name = "member-class", ttl = "30s")
        public void job() {}
    }

    static class AnonymousInsideTheSameLease {
        @WithLease(name = "same-anonymous", ttl = "30s")
        public void run() {
            new Runnable() {
                @Override
                public void run() {
                    step();
                }
            }.run();
        }

        @WithLease(name = "same-anonymous", ttl = "30s")
        public void step() {}
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

    private static void assertSelfCall(FencedConfigurationException e, String caller, String method) {
        String m = e.getMessage();
        assertTrue(m.contains(caller + " calls " + method), m);
        assertTrue(m.contains("with no lease") && m.contains("inject the bean into itself"), m);
        assertTrue(m.contains("-javaagent"), m);
    }

    @Test
    void aCallOfItsOwnLeaseMethodFailsStartUp() {
        String type = SelfCalling.class.getName();
        FencedConfigurationException e = refused(SelfCalling.class);
        assertSelfCall(e, type + "#run", type + "#job");
        assertTrue(e.getMessage().contains("lease self-called"), e.getMessage());
    }

    @Test
    void aMethodReferenceOnThisFailsStartUp() {
        String type = SelfReferenced.class.getName();
        assertSelfCall(refused(SelfReferenced.class), type + "#run", type + "#job");
    }

    @Test
    void aCallInALambdaFailsStartUp() {
        String type = SelfCallingInALambda.class.getName();
        assertSelfCall(refused(SelfCallingInALambda.class), "a lambda in " + type + "#run", type + "#job");
    }

    @Test
    void aSuperCallFailsStartUp() {
        assertSelfCall(
                refused(SuperCalling.class), SuperCalling.class.getName() + "#run", BaseJob.class.getName() + "#job");
    }

    @Test
    void aConfiguredMethodCalledFromItsBeanFailsStartUp() {
        String type = ConfiguredSelfCall.class.getName();
        FencedConfigurationException e = refused(ConfiguredSelfCall.class, configured(ConfiguredSelfCall.class, "run"));
        assertSelfCall(e, type + "#trigger", type + "#run");
        assertTrue(e.getMessage().contains("fenced.lease.nightly.method"), e.getMessage());
    }

    @Test
    void aConfiguredMethodTheAgentRunsMayBeCalledFromItsBean() {
        // with the agent running the configured methods, LeaseMethods holds none: the agent instruments the body
        assertDoesNotThrow(() -> check(ConfiguredSelfCall.class));
    }

    @Test
    void callsThroughAnInjectedReferenceOrInsideTheSameLeasePass() {
        assertDoesNotThrow(() -> check(SelfInjected.class));
        assertDoesNotThrow(() -> check(SameLease.class));
    }

    @Test
    void publicNonFinalLeaseMethodsPass() {
        assertDoesNotThrow(() -> check(GoodJob.class, configured(GoodJob.class, "run")));
    }

    @Test
    void aCallThroughItsOwnInterfaceFailsStartUp() {
        String type = CallingThroughItsInterface.class.getName();
        assertSelfCall(refused(CallingThroughItsInterface.class), type + "#run", type + "#job");
    }

    @Test
    void aCallInADefaultMethodOfItsInterfaceFailsStartUp() {
        assertSelfCall(
                refused(DefaultMethodCalling.class),
                NightlySteps.class.getName() + "#nightly",
                DefaultMethodCalling.class.getName() + "#job");
    }

    @Test
    void aCallOfTheEnclosingBeanFromAnAnonymousOrMemberClassFailsStartUp() {
        String outer = OuterThisCalling.class.getName();
        assertSelfCall(refused(OuterThisCalling.class), outer + "$1#run", outer + "#job");
        String member = MemberClassCalling.class.getName();
        assertSelfCall(refused(MemberClassCalling.class), member + "$Step#go", member + "#job");
    }

    @Test
    void anAnonymousClassInsideALeaseMethodOfTheSameLeasePasses() {
        check(AnonymousInsideTheSameLease.class);
    }
}
