package dev.fenced.it.agent;

import dev.fenced.Fencing;
import dev.fenced.FencingScope;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;

/**
 * Run with the agent: binds a token of domain etcd and prints, as {@code domain <path> <domain>:<token>}, what a
 * task handed over on each path sees.
 */
public final class DomainMain {
    private DomainMain() {}

    private static String seen() {
        return Fencing.currentTokenDomain().orElse("none") + ":"
                + Fencing.currentToken().orElse(0);
    }

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(1);
        try (FencingScope ignored = Fencing.bind("etcd", 40)) {
            System.out.println(
                    "domain executor " + pool.submit(DomainMain::seen).get());
            System.out.println("domain completable "
                    + CompletableFuture.supplyAsync(DomainMain::seen, pool).get());
            System.out.println("domain forkjoin "
                    + ForkJoinPool.commonPool().submit(DomainMain::seen).get());
        }
        System.out.println("domain after " + pool.submit(DomainMain::seen).get());
        pool.shutdown();
    }
}
