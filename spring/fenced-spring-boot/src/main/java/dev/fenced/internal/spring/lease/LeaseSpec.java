package dev.fenced.internal.spring.lease;

import dev.fenced.internal.config.LeaseMethod;
import java.time.Duration;

/** What one lease-bound method needs: the lease's name, ttl and busy policy, and where it was declared. */
record LeaseSpec(String name, Duration ttl, LeaseMethod.OnBusy onBusy, String declaredBy) {}
