package dev.fenced.it.tokens;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's RFencedLock: every acquisition returns a token one bigger than the last, kept in Redis beside the lock.
 * Needs Redis at 127.0.0.1:6379 (.ci/run starts redis-server when nothing answers there).
 */
class RedissonTokenIT {

    static final String DOMAIN = "redisson";
    static final String ADDRESS = "redis://127.0.0.1:6379";

    static RedissonClient first;
    static RedissonClient second;
    static FencedTable table;

    @BeforeAll
    static void start() {
        Services.require(
                answersPing(),
                "no Redis answers at 127.0.0.1:6379 (apt-get install -y redis-server): the"
                        + " Redisson token source cannot be tested");
        first = client(2_000);
        second = client(30_000);
        table = FencedTable.create(DOMAIN);
    }

    @AfterAll
    static void stop() {
        for (RedissonClient c : new RedissonClient[] {first, second}) {
            if (c != null && !c.isShutdown()) {
                c.shutdown();
            }
        }
    }

    /** A client whose watchdog keeps its locks for {@code watchdogMillis} past its last renewal. */
    private static RedissonClient client(long watchdogMillis) {
        Config config = new Config();
        config.setLockWatchdogTimeout(watchdogMillis);
        config.useSingleServer()
                .setAddress(ADDRESS)
                .setConnectionMinimumIdleSize(1)
                .setConnectionPoolSize(2);
        return Redisson.create(config);
    }

    private static boolean answersPing() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", 6379), 1000);
            s.setSoTimeout(1000);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] reply = in.readNBytes(5);
            return new String(reply, StandardCharsets.US_ASCII).equals("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void aPausedHolderWhoseLockExpiredCannotWriteAfterTheNextHolder() throws Exception {
        String name = "fenced-test:" + UUID.randomUUID(); // the Redis here is shared
        PausedHolder paused = PausedHolder.start(
                "redisson-holder-1",
                () -> first.getFencedLock(name).lockAndGetToken(),
                token -> table.writeUnder(token, 111));
        long firstToken = paused.token();
        // the first holder's process pauses (a GC pause, a stalled VM): its watchdog stops renewing too, and the
        // lock runs out 2 s after its last renewal. Its thread still holds the token and writes once it resumes.
        first.shutdown();

        RFencedLock lock = second.getFencedLock(name);
        Long secondToken = lock.tryLockAndGetToken(20, 30, TimeUnit.SECONDS); // waits until the first lock expired
        assertNotNull(secondToken, "the second holder gets the lock once the first one's expired");
        try {
            table.writeUnder(secondToken, 222);
            Throwable late = paused.resumeAndWrite();
            table.assertOnlyTheSecondHolderWrote(firstToken, secondToken, 222, late);
        } finally {
            lock.unlock();
            second.getKeys().delete("redisson_lock_token:{" + name + "}"); // the Redis here is shared
        }
    }
}
