package dev.fenced.internal.lease;

import java.util.concurrent.ThreadFactory;

/** Named daemon threads: a lease manager's threads must never keep a JVM alive. */
final class DaemonThreads implements ThreadFactory {

    private final String name;

    DaemonThreads(String name) {
        this.name = name;
    }

    @Override
    public Thread newThread(Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}
