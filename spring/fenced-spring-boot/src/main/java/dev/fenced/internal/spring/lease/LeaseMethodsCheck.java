package dev.fenced.internal.spring.lease;

import dev.fenced.FencedProperty;
import dev.fenced.internal.config.LeaseMethod;
import dev.fenced.spring.config.FencedConfigurationException;
import java.util.Arrays;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.util.ClassUtils;

/**
 * Fails start-up for a configured lease method AOP cannot run under its lease: a class that is not on the class
 * path, declares no method of that name, or is no Spring bean (only bean methods are proxied; the agent covers
 * the rest). A job must never run silently unfenced because of a typo.
 */
public final class LeaseMethodsCheck implements SmartInitializingSingleton {

    private final LeaseMethods methods;
    private final ListableBeanFactory beans;

    public LeaseMethodsCheck(LeaseMethods methods, ListableBeanFactory beans) {
        this.methods = methods;
        this.beans = beans;
    }

    @Override
    public void afterSingletonsInstantiated() {
        for (LeaseMethod m : methods.configured()) {
            String key = FencedProperty.LEASE_METHOD.keyFor(m.name());
            Class<?> type;
            try {
                type = ClassUtils.forName(m.className(), beans.getClass().getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                throw new FencedConfigurationException(
                        "fenced: " + key + " names class " + m.className() + ", which is not on the class path");
            }
            if (Arrays.stream(type.getDeclaredMethods())
                    .noneMatch(d -> d.getName().equals(m.methodName()))) {
                throw new FencedConfigurationException("fenced: " + key + " names " + m.className() + "#"
                        + m.methodName() + ", but that class declares no method of that name");
            }
            if (beans.getBeanNamesForType(type, true, false).length == 0) {
                throw new FencedConfigurationException("fenced: " + key + " names " + m.className() + "#"
                        + m.methodName() + ", but no Spring bean is of that class: without the java agent only bean"
                        + " methods run under a lease (make it a bean, or attach the agent)");
            }
        }
    }
}
