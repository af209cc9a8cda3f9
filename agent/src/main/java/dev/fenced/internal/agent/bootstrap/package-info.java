/**
 * Classes the agent places on the bootstrap class path, beside the driver's
 * {@code dev.fenced.internal.bootstrap.FencedContextStore}: advice inlined into JDK classes (executors,
 * CompletableFuture, ForkJoinPool, virtual threads) and into application classes calls them, so they may use
 * java.base types only. They are packed into {@code META-INF/fenced/fenced-bootstrap.jar}, never loaded from
 * the agent jar itself.
 *
 * <p>Not {@code @NullMarked}, as the driver's {@code dev.fenced.internal.bootstrap} is not: JSpecify's annotations
 * are outside java.base and have RUNTIME retention, so marking the package (and the {@code @Nullable}s it would then
 * need) would put references to a jar the bootstrap class path does not hold into these class files. Null is a real
 * value here, as the methods say: "nothing captured" for a token cell, "not installed" for the lease gate's factory.
 */
package dev.fenced.internal.agent.bootstrap;
