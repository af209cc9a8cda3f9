package dev.fenced.internal.config;

import java.time.Duration;

/** One {@code fenced.lease.<name>.*} family, for the agent: the method that runs under lease {@code name}. */
public record LeaseMethod(String name, String className, String methodName, Duration ttl, OnBusy onBusy) {

    /** What a call does when the lease is held elsewhere. */
    public enum OnBusy {
        SKIP,
        WAIT,
        FAIL
    }
}
