package dev.fenced.internal.spring.lease;

import java.lang.reflect.Method;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * A plain Spring AOP advisor (no AspectJ weaving): lease-bound methods of any bean are proxied by the
 * application's auto-proxy creator, Boot 3 or 4 alike.
 */
public final class LeaseAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient LeaseMethods methods;
    private final transient LeaseInterceptor interceptor;

    public LeaseAdvisor(LeaseMethods methods, LeaseInterceptor interceptor) {
        this.methods = methods;
        this.interceptor = interceptor;
    }

    @Override
    public Pointcut getPointcut() {
        return new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                return methods.find(AopUtils.getMostSpecificMethod(method, targetClass)) != null;
            }
        };
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }
}
