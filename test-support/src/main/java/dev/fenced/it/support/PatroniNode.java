package dev.fenced.it.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Patroni node of a {@link PatroniCluster} ({@link HaNode}): a Patroni process (Debian's package, run as the postgres user) and the
 * PostgreSQL 15 postmaster it manages, on free loopback ports (Patroni's REST API and PostgreSQL, 127.0.0.1 only),
 * with a data directory, a configuration file and a log under the cluster's folder. Its postmaster can be SIGKILLed
 * alone (Patroni lives on), or the whole node (Patroni, the postmaster and every backend at once), and the node
 * launched again on the same configuration and data directory.
 */
public final class PatroniNode extends HaNode {

    private static final Pattern ROLE = Pattern.compile("\"role\": ?\"([a-z_]+)\"");
    private static final Pattern TIMELINE = Pattern.compile("\"timeline\": ?(\\d+)");

    private final int restPort;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private PatroniNode(String name, Path dir, int restPort, int pgPort) {
        super(name, dir, pgPort, "patroni.log");
        this.restPort = restPort;
    }

    /** Node {@code name}, its files in {@code root/name}, on two free ports; not started. */
    static PatroniNode create(String name, Path root) throws IOException {
        return new PatroniNode(name, root.resolve(name), freePort(), freePort());
    }

    Path config() {
        return dir().resolve("patroni.yml");
    }

    /** This node's part of Patroni's YAML configuration (everything but the scope, the DCS and bootstrap). */
    String localConfig() {
        return "name: " + name() + "\n"
                + "restapi:\n"
                + "  listen: 127.0.0.1:" + restPort + "\n"
                + "  connect_address: 127.0.0.1:" + restPort + "\n"
                + "postgresql:\n"
                + "  listen: 127.0.0.1:" + pgPort() + "\n"
                + "  connect_address: 127.0.0.1:" + pgPort() + "\n"
                + "  data_dir: " + dataDir() + "\n"
                + "  bin_dir: " + PG_BIN + "\n"
                + "  pgpass: " + dir().resolve("pgpass") + "\n"
                + "  authentication:\n"
                + "    superuser: {username: postgres}\n"
                + "    replication: {username: postgres}\n"
                + "    rewind: {username: postgres}\n"
                + "  parameters:\n"
                + "    unix_socket_directories: '" + dir() + "'\n";
    }

    /**
     * Starts Patroni as the postgres user ({@code setpriv}), output appended to the node's log. Does not wait: Patroni
     * bootstraps, clones or rejoins (by {@code pg_rewind} when the node's timeline diverged) on its own.
     */
    void launch() throws IOException {
        launchAsPostgres(List.of(PatroniCluster.PATRONI.toString(), config().toString()), Map.of());
    }

    /** Patroni's answer to {@code GET /<endpoint>}: its HTTP status, or empty if it does not answer within a second. */
    Optional<HttpResponse<String>> get(String endpoint) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + "/" + endpoint))
                .timeout(Duration.ofSeconds(1))
                .GET()
                .build();
        try {
            return Optional.of(http.send(request, HttpResponse.BodyHandlers.ofString()));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Whether Patroni answers {@code GET /<endpoint>} with 200 ({@code primary}, {@code replica}, {@code sync}...). */
    public boolean answers(String endpoint) throws InterruptedException {
        return get(endpoint).map(r -> r.statusCode() == 200).orElse(false);
    }

    /** The role Patroni reports ({@code master}/{@code primary}, {@code replica}...), if it answers. */
    public Optional<String> role() throws InterruptedException {
        return get("patroni").flatMap(r -> group(ROLE, r.body()));
    }

    /** The timeline of the node's PostgreSQL as Patroni reports it, if it answers and PostgreSQL runs. */
    public OptionalLong timeline() throws InterruptedException {
        Optional<String> t = get("patroni").flatMap(r -> group(TIMELINE, r.body()));
        return t.isPresent() ? OptionalLong.of(Long.parseLong(t.get())) : OptionalLong.empty();
    }

    private static Optional<String> group(Pattern p, String body) {
        Matcher m = p.matcher(body);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }
}
