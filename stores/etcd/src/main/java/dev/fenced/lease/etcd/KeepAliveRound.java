package dev.fenced.lease.etcd;

import io.etcd.jetcd.Lease;
import io.etcd.jetcd.api.LeaseKeepAliveRequest;
import io.etcd.jetcd.api.LeaseKeepAliveResponse;
import io.etcd.jetcd.api.VertxLeaseGrpc;
import io.vertx.core.streams.WriteStream;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The keep-alives of one renewal round, on gRPC streams of etcd's {@code LeaseKeepAlive} opened for the round and
 * ended with it: one message a lease instead of a stream a lease ({@code Lease.keepAliveOnce} opens a stream for each
 * call, and etcd pays for each). Every request on these streams is this round's, sent after the round began, so every
 * answer on them is to a keep-alive sent then, never to an older request still in flight (jetcd's own shared
 * keep-alive stream, {@code Lease.keepAlive}, cannot promise that, and sends only every 500 ms). etcd answers a
 * stream's keep-alives one after the other, so a round spreads them over up to {@value #STREAMS} streams.
 *
 * <p>jetcd has no public way to open such a stream; the stub is read from its lease client as jetcd 0.8.5 keeps it
 * ({@link #stubOf}). Where it cannot be read (another jetcd, or a module path that closes it), the round keeps each
 * lease alive with {@code keepAliveOnce}, as renewal did before: slower (a stream a lease), never weaker.
 */
final class KeepAliveRound implements AutoCloseable {

    /** Streams a round opens at most (the first {@code STREAMS} keep-alives open one each). */
    static final int STREAMS = 8;

    private static final System.Logger LOG = System.getLogger(KeepAliveRound.class.getName());

    private final Lease lease;
    private final VertxLeaseGrpc.@Nullable LeaseVertxStub stub;
    private final Map<Long, CompletableFuture<Boolean>> answers = new ConcurrentHashMap<>();
    private final List<CompletableFuture<WriteStream<LeaseKeepAliveRequest>>> streams = new ArrayList<>(STREAMS);
    private int asked;
    private boolean over;

    /**
     * A round on {@code stub} ({@link #stubOf}); streams open as keep-alives are asked for. Without a stub every
     * keep-alive is {@code lease}'s own {@code keepAliveOnce}.
     */
    KeepAliveRound(Lease lease, VertxLeaseGrpc.@Nullable LeaseVertxStub stub) {
        this.lease = lease;
        this.stub = stub;
    }

    /**
     * jetcd's stub for etcd's lease service, the one {@code keepAliveOnce} opens its streams on (with the client's
     * credentials and channel). jetcd has no public way to open a stream of one's own; the stub is read from its lease
     * client, as jetcd 0.8.5 keeps it; null (said once in the log) if this jetcd keeps it elsewhere.
     */
    static VertxLeaseGrpc.@Nullable LeaseVertxStub stubOf(Lease lease) {
        try {
            Field field = lease.getClass().getDeclaredField("leaseStub");
            field.setAccessible(true);
            return (VertxLeaseGrpc.LeaseVertxStub) field.get(lease);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "fenced: the etcd lease store cannot read jetcd 0.8.5's lease stub (field leaseStub of "
                            + lease.getClass().getName() + ": " + e
                            + "); renewals keep each lease alive with keepAliveOnce, a stream a lease, which costs"
                            + " etcd more");
            return null;
        }
    }

    /** True once etcd kept lease {@code id} alive on one of this round's streams, false if it has no such lease. */
    CompletableFuture<Boolean> keepAlive(long id) {
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        CompletableFuture<Boolean> already = answers.putIfAbsent(id, answer);
        if (already != null) {
            return already; // one keep-alive a lease and round
        }
        VertxLeaseGrpc.LeaseVertxStub on = stub;
        if (on == null) {
            lease.keepAliveOnce(id).whenComplete((alive, failure) -> {
                if (failure != null) {
                    answer.completeExceptionally(failure);
                } else {
                    answer.complete(alive.getTTL() > 0);
                }
            });
            return answer;
        }
        nextStream(on).whenComplete((out, failure) -> {
            if (failure != null) {
                answer.completeExceptionally(failure);
            } else {
                write(out, LeaseKeepAliveRequest.newBuilder().setID(id).build());
            }
        });
        return answer;
    }

    /** The stream the next keep-alive goes on: a new one for each of the first {@value #STREAMS}, then in turn. */
    private synchronized CompletableFuture<WriteStream<LeaseKeepAliveRequest>> nextStream(
            VertxLeaseGrpc.LeaseVertxStub on) {
        int at = asked++ % STREAMS;
        if (at < streams.size()) {
            return streams.get(at);
        }
        CompletableFuture<WriteStream<LeaseKeepAliveRequest>> stream = new CompletableFuture<>();
        streams.add(stream);
        if (over) {
            stream.completeExceptionally(new IllegalStateException("the renewal round is over"));
            return stream;
        }
        on.leaseKeepAliveWithHandler(
                out -> {
                    if (!stream.complete(out)) {
                        end(out); // opened after the round was over
                    }
                },
                this::answered,
                end -> failAll(new IllegalStateException("etcd ended a keep-alive stream")),
                this::failAll);
        return stream;
    }

    /** Writes from the readers' threads and the streams' own, one at a time. */
    private synchronized void write(WriteStream<LeaseKeepAliveRequest> out, LeaseKeepAliveRequest request) {
        out.write(request);
    }

    private synchronized void end(WriteStream<LeaseKeepAliveRequest> out) {
        out.end();
    }

    private void answered(LeaseKeepAliveResponse response) {
        CompletableFuture<Boolean> answer = answers.get(response.getID());
        if (answer != null) {
            answer.complete(response.getTTL() > 0);
        }
    }

    /** A stream failed: every keep-alive of the round not answered yet fails (the renewal call fails). */
    private void failAll(Throwable failure) {
        answers.values().forEach(a -> a.completeExceptionally(failure));
    }

    /** Ends the streams; keep-alives not answered by now fail. */
    @Override
    public void close() {
        List<CompletableFuture<WriteStream<LeaseKeepAliveRequest>>> opened;
        synchronized (this) {
            over = true;
            opened = List.copyOf(streams);
        }
        failAll(new IllegalStateException("the renewal round is over"));
        for (CompletableFuture<WriteStream<LeaseKeepAliveRequest>> stream : opened) {
            if (!stream.completeExceptionally(new IllegalStateException("the renewal round is over"))) {
                stream.thenAccept(this::end);
            }
        }
    }
}
