package dev.fenced.example.nightly.scenario;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One instance's network path to PostgreSQL: a loopback port that forwards every connection to the server, byte
 * for byte, and lets the {@link WireHold} see (and hold) what the instance sends.
 */
final class Link implements AutoCloseable {

    private final String name;
    private final String serverHost;
    private final int serverPort;
    private final WireHold hold;
    private final ServerSocket listener;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    Link(String name, String serverHost, int serverPort, WireHold hold) throws IOException {
        this.name = name;
        this.serverHost = serverHost;
        this.serverPort = serverPort;
        this.hold = hold;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon("link-" + name + "-accept", this::accept).start();
    }

    int port() {
        return listener.getLocalPort();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(serverHost, serverPort);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                daemon("link-" + name + "-up", () -> pump(client, server, true)).start();
                daemon("link-" + name + "-down", () -> pump(server, client, false))
                        .start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void pump(Socket from, Socket to, boolean fromInstance) {
        byte[] buffer = new byte[64 * 1024];
        byte[] window = new byte[buffer.length + WireHold.TOTALS_WRITE.length];
        int carried = 0;
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (fromInstance) {
                    System.arraycopy(buffer, 0, window, carried, n);
                    hold.inspect(name, window, carried + n);
                    byte[] tail = WireHold.carryOver(window, carried + n);
                    System.arraycopy(tail, 0, window, 0, tail.length);
                    carried = tail.length;
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side closed: close the other
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    @Override
    public void close() {
        closeQuietly(listener);
        sockets.forEach(Link::closeQuietly);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing
        }
    }

    private static Thread daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}
