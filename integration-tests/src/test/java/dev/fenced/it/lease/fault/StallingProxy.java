package dev.fenced.it.lease.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on loopback in front of a PostgreSQL server that can stop forwarding bytes without a
 * word, like a peer that vanished behind a NAT or a firewall that started dropping packets: no RST, no
 * FIN, the sockets stay open and nothing arrives. {@link #stall()} blackholes every open connection for
 * good and every new one until {@link #heal()}; connections opened after the heal work again, the
 * blackholed ones never do (their peer is gone), so only a client that gives up on them recovers.
 * {@link #reset()} aborts every open connection with a TCP RST (the peer crashed and came back, or a middlebox
 * dropped its state), and {@link #delay(long)} holds every chunk of bytes back, in both directions, before
 * passing it on (a congested or long path).
 */
public final class StallingProxy implements AutoCloseable {

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private volatile boolean stalled;
    private volatile long delayMillis;
    private volatile boolean closed;

    public StallingProxy(int targetPort) throws IOException {
        this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::acceptLoop, "stalling-proxy-accept");
        t.setDaemon(true);
        t.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Every open connection and every new one goes silent. */
    public void stall() {
        stalled = true;
        for (Link l : links) {
            l.blackholed = true;
        }
    }

    /** Every open connection is aborted with an RST on both sides; new ones work. */
    public void reset() {
        for (Link l : links) {
            l.abort();
        }
    }

    /** From now on every chunk waits {@code millis} before it is passed on (0: none). */
    public void delay(long millis) {
        delayMillis = millis;
    }

    /** New connections forward again; the silent ones stay silent. */
    public void heal() {
        stalled = false;
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                try {
                    upstream.connect(target, 5000);
                } catch (IOException down) {
                    client.close(); // the server is down (restarting): the client hears of it at once
                    continue;
                }
                Link link = new Link(client, upstream, stalled);
                links.add(link);
                pump(link, client.getInputStream(), upstream.getOutputStream(), "up");
                pump(link, upstream.getInputStream(), client.getOutputStream(), "down");
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pump(Link link, InputStream in, OutputStream out, String dir) {
        Thread t = new Thread(
                () -> {
                    byte[] buf = new byte[16384];
                    try {
                        int n;
                        while ((n = in.read(buf)) >= 0) {
                            if (link.blackholed) {
                                continue; // swallowed: the other side never hears of it
                            }
                            long delay = delayMillis;
                            if (delay > 0) {
                                try {
                                    Thread.sleep(delay);
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                    return;
                                }
                            }
                            out.write(buf, 0, n);
                            out.flush();
                        }
                    } catch (IOException ignored) {
                        // one side closed
                    } finally {
                        if (!link.blackholed) {
                            link.close();
                        }
                        // a blackholed link is closed only by close(): its far side must not learn anything
                    }
                },
                "stalling-proxy-" + dir);
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Link l : links) {
            l.close();
        }
    }

    private final class Link {
        final Socket client;
        final Socket upstream;
        volatile boolean blackholed;

        Link(Socket client, Socket upstream, boolean blackholed) {
            this.client = client;
            this.upstream = upstream;
            this.blackholed = blackholed;
        }

        /** SO_LINGER 0: close sends an RST instead of a FIN, so both peers see "connection reset". */
        void abort() {
            try {
                client.setSoLinger(true, 0);
                upstream.setSoLinger(true, 0);
            } catch (IOException ignored) {
                // already closed
            }
            close();
        }

        void close() {
            links.remove(this);
            try {
                client.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            try {
                upstream.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
