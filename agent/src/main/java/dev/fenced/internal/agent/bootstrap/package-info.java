/**
 * Classes the agent places on the bootstrap class path, beside the driver's
 * {@code dev.fenced.internal.bootstrap.FencedContextStore}: advice inlined into JDK classes (executors,
 * CompletableFuture, ForkJoinPool, virtual threads) and into application classes calls them, so they may use
 * java.base types only. They are packed into {@code META-INF/fenced/fenced-bootstrap.jar}, never loaded from
 * the agent jar itself.
 */
package dev.fenced.internal.agent.bootstrap;
