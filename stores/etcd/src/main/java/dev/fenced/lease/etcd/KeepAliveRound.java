package dev.fenced.lease.etcd;

import io.etcd.jetcd.Lease;
import io.etcd.jetcd.api.LeaseKeepAliveRequest;
import io.etcd.jetcd.api.LeaseKeepAliveResponse;
import io.etcd.jetcd.api.VertxLeaseGrpc;
import io.vertx.core.streams.WriteStream;
import java.lang.reflect.Field;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keep-alives of one renewal round, all on one gRPC stream of etcd's {@code LeaseKeepAlive} opened for the round
 * and ended with it: one message a lease instead of a stream a lease ({@code Lease.keepAliveOnce} opens a stream for
 * each call, and etcd pays for each). Every request on the stream is this round's, sent after the round began, so
 * every answer on it is to a keep-alive sent then: an answer is never one to an older request still in flight (jetcd's
 * own shared keep-alive stream, {@code Lease.keepAlive}, cannot promise that, and sends only every 500 ms).
 */
final class KeepAliveRound implements AutoCloseable {

    private final Map<Long, CompletableFuture<Boolean>> answers = new ConcurrentHashMap<>();
    private final CompletableFuture<WriteStream<LeaseKeepAliveRequest>> stream = new CompletableFuture<>();

    /** Opens the round's stream through {@code stub} ({@link #stubOf}). */
    KeepAliveRound(VertxLeaseGrpc.LeaseVertxStub stub) {
        stub.leaseKeepAliveWithHandler(
                out -> {
                    if (!stream.complete(out)) {
                        end(out); // opened after the round was over
                    }
                },
                this::answered,
                end -> failAll(new IllegalStateException("etcd ended the keep-alive stream")),
                this::failAll);
    }

    /**
     * jetcd's stub for etcd's lease service, the one {@code keepAliveOnce} opens its streams on (with the client's
     * credentials and channel). jetcd has no public way to open a stream of one's own; the stub is read from its lease
     * client, as jetcd 0.8.5 keeps it.
     *
     * @throws IllegalStateException if this jetcd keeps it elsewhere
     */
    static VertxLeaseGrpc.LeaseVertxStub stubOf(Lease lease) {
        try {
            Field field = lease.getClass().getDeclaredField("leaseStub");
            field.setAccessible(true);
            return (VertxLeaseGrpc.LeaseVertxStub) field.get(lease);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(
                    "the etcd lease store needs jetcd 0.8.5's lease stub (field leaseStub of "
                            + lease.getClass().getName() + "): renewal cannot keep leases alive with this jetcd",
                    e);
        }
    }

    /** True once etcd kept lease {@code id} alive on this round's stream, false if it has no such lease. */
    CompletableFuture<Boolean> keepAlive(long id) {
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        CompletableFuture<Boolean> asked = answers.putIfAbsent(id, answer);
        if (asked != null) {
            return asked; // one keep-alive a lease and round
        }
        stream.whenComplete((out, failure) -> {
            if (failure != null) {
                answer.completeExceptionally(failure);
            } else {
                write(out, LeaseKeepAliveRequest.newBuilder().setID(id).build());
            }
        });
        return answer;
    }

    /** Writes from the readers' threads and the stream's own, one at a time. */
    private synchronized void write(WriteStream<LeaseKeepAliveRequest> out, LeaseKeepAliveRequest request) {
        out.write(request);
    }

    private void answered(LeaseKeepAliveResponse response) {
        CompletableFuture<Boolean> answer = answers.get(response.getID());
        if (answer != null) {
            answer.complete(response.getTTL() > 0);
        }
    }

    private void failAll(Throwable failure) {
        stream.completeExceptionally(failure);
        answers.values().forEach(a -> a.completeExceptionally(failure));
    }

    /** Ends the stream; keep-alives not answered by now fail. */
    @Override
    public void close() {
        failAll(new IllegalStateException("the renewal round is over"));
        stream.thenAccept(this::end);
    }

    private synchronized void end(WriteStream<LeaseKeepAliveRequest> out) {
        out.end();
    }
}
