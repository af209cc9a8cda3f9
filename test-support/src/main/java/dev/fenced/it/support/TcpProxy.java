package dev.fenced.it.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on a free 127.0.0.1 port to one {@code http://host:port} target, that can be {@link #cut()} into a
 * black hole: bytes either way are read and dropped, new connections accepted and never answered, as across a network
 * partition (calls hang rather than fail fast). For partitioning a client from an etcd cluster.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket server;
    private final String host;
    private final int port;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;

    private TcpProxy(ServerSocket server, String host, int port) {
        this.server = server;
        this.host = host;
        this.port = port;
    }

    /** A proxy to {@code targetUrl} ({@code http://127.0.0.1:2379}), forwarding until cut. */
    public static TcpProxy start(String targetUrl) throws IOException {
        URI target = URI.create(targetUrl);
        TcpProxy proxy = new TcpProxy(
                new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), target.getHost(), target.getPort());
        daemon("proxy-accept-" + proxy.server.getLocalPort(), proxy::accept);
        return proxy;
    }

    /** {@code http://127.0.0.1:<port>}, for a client. */
    public String url() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    /** From now on every byte either way is dropped, and new connections are never answered. */
    public void cut() {
        cut = true;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                sockets.add(client);
                if (cut) {
                    daemon("proxy-hole", () -> pump(client, null)); // held open, never answered
                    continue;
                }
                Socket upstream = new Socket(host, port);
                sockets.add(upstream);
                daemon("proxy-up", () -> pump(client, upstream));
                daemon("proxy-down", () -> pump(upstream, client));
            } catch (IOException e) {
                // closed, or the target refused: the client sees its connection dropped
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16384];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to == null ? null : to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (!cut && out != null) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
        } catch (IOException e) {
            // either side closed
        } finally {
            close(from);
            if (to != null && !cut) {
                close(to);
            }
        }
    }

    private static void daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }

    private void close(Socket s) {
        sockets.remove(s);
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        sockets.forEach(this::close);
    }
}
