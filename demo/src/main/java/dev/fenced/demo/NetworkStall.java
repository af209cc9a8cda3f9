package dev.fenced.demo;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import javax.net.SocketFactory;

/**
 * A write delayed on its way to the database. The worker arms a stall just before {@code executeUpdate};
 * fenced has by then read the token and checked the lease, and pgjdbc's first write to the socket, on the
 * worker's own thread, is held for the freeze. The database then sees a write from a holder whose lease
 * ran out meanwhile: only the token check inside the statement can refuse it. Installed with pgjdbc's
 * {@code socketFactory} connection property.
 */
public final class NetworkStall extends SocketFactory {

    private record Armed(long millis, Freezer freezer) {}

    private static final ThreadLocal<Armed> ARMED = new ThreadLocal<>();

    /** pgjdbc instantiates the factory by class name. */
    public NetworkStall() {}

    static void arm(long millis, Freezer freezer) {
        ARMED.set(new Armed(millis, freezer));
    }

    static void disarm() {
        ARMED.remove();
    }

    /** Called before every write to a database socket: freezes once if this thread armed a stall. */
    static void hold() throws IOException {
        Armed armed = ARMED.get();
        if (armed == null) {
            return;
        }
        ARMED.remove();
        try {
            armed.freezer().freeze(armed.millis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while the write was held");
        }
    }

    @Override
    public Socket createSocket() {
        return new StallingSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected(new StallingSocket(), host, port);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return connected(new StallingSocket(), host, port);
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected(new StallingSocket(), host.getHostAddress(), port);
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return connected(new StallingSocket(), address.getHostAddress(), port);
    }

    private static Socket connected(Socket s, String host, int port) throws IOException {
        s.connect(new java.net.InetSocketAddress(host, port));
        return s;
    }

    private static final class StallingSocket extends Socket {
        private OutputStream out;

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (out == null) {
                out = new FilterOutputStream(super.getOutputStream()) {
                    @Override
                    public void write(int b) throws IOException {
                        hold();
                        this.out.write(b);
                    }

                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        hold();
                        this.out.write(b, off, len);
                    }
                };
            }
            return out;
        }
    }
}
