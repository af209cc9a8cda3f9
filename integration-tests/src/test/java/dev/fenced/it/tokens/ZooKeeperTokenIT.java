package dev.fenced.it.tokens;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ZooKeeper through Curator: the token is the czxid of the holder's lock node (the transaction id that created
 * it), which grows with every write to the ensemble, so a later holder's node always has a bigger one. A real
 * ZooKeeper server runs in the JVM (curator-test).
 */
class ZooKeeperTokenIT {

    static final String DOMAIN = "zookeeper";

    static TestingServer zookeeper;
    static FencedTable table;

    @BeforeAll
    static void start() throws Exception {
        zookeeper = new TestingServer(true);
        table = FencedTable.create(DOMAIN);
    }

    @AfterAll
    static void stop() throws Exception {
        zookeeper.close();
    }

    /** The recipe: InterProcessMutex with its lock node's czxid as the fencing token. */
    static final class FencedMutex extends InterProcessMutex {
        private final CuratorFramework client;

        FencedMutex(CuratorFramework client, String path) {
            super(client, path);
            this.client = client;
        }

        /** The token of the lock this thread holds: its lock node's czxid. */
        long token() throws Exception {
            return client.checkExists().forPath(getLockPath()).getCzxid();
        }
    }

    private static CuratorFramework client() throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.builder()
                .connectString(zookeeper.getConnectString())
                .sessionTimeoutMs(10_000)
                .connectionTimeoutMs(5_000)
                .retryPolicy(new RetryOneTime(100))
                .build();
        c.start();
        assertTrue(c.blockUntilConnected(10, TimeUnit.SECONDS));
        return c;
    }

    /**
     * Ends the session on the server, as its timeout does for a client that stopped answering (paused past it):
     * another handle on the same session closes it, and the server deletes the session's ephemeral lock node.
     */
    private static void expireSession(CuratorFramework paused) throws Exception {
        ZooKeeper zk = paused.getZookeeperClient().getZooKeeper();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper other = new ZooKeeper(
                zookeeper.getConnectString(),
                10_000,
                e -> {
                    if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                        connected.countDown();
                    }
                },
                zk.getSessionId(),
                zk.getSessionPasswd());
        assertTrue(connected.await(10, TimeUnit.SECONDS));
        other.close();
    }

    @Test
    void aPausedHolderWhoseSessionExpiredCannotWriteAfterTheNextHolder() throws Exception {
        try (CuratorFramework first = client();
                CuratorFramework second = client()) {
            FencedMutex firstLock = new FencedMutex(first, "/locks/totals");
            PausedHolder paused = PausedHolder.start(
                    "zookeeper-holder-1",
                    () -> {
                        assertTrue(firstLock.acquire(10, TimeUnit.SECONDS));
                        return firstLock.token();
                    },
                    token -> table.writeUnder(token, 111));
            long firstToken = paused.token();

            expireSession(first);
            FencedMutex secondLock = new FencedMutex(second, "/locks/totals");
            assertTrue(secondLock.acquire(10, TimeUnit.SECONDS), "the lock is free once the first session ended");
            long secondToken = secondLock.token();
            table.writeUnder(secondToken, 222);

            Throwable late = paused.resumeAndWrite();
            table.assertOnlyTheSecondHolderWrote(firstToken, secondToken, 222, late);
            secondLock.release();
        }
    }
}
