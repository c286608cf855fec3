// TestConnection's Kafka probe: asks the cluster for its brokers with Kafka's Java admin client, configured with
// the properties a streaming job's Kafka source would use (TLS, SASL, MSK IAM). Reads the client properties from
// stdin as base64 lines, key then value (passwords never on the command line); takes the timeout in seconds.
// First checks that some bootstrap server accepts a TCP connection (the admin client would only retry and time
// out). Prints "OK <brokers>" and exits 0, "FAILED <why>" (the client's exception messages, causes included) and
// exits 1, or "TIMEOUT <why>" and exits 2.

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;

public class KafkaProbe {
    private static String decoded(String line) {
        return new String(Base64.getDecoder().decode(line.trim()), StandardCharsets.UTF_8);
    }

    private static String why(Throwable error) {
        StringBuilder text = new StringBuilder();
        for (Throwable at = error; at != null; at = at.getCause()) {
            String message = at.getMessage();
            if (message == null || text.indexOf(message) >= 0) {
                continue;
            }
            if (text.length() > 0) {
                text.append(": ");
            }
            text.append(message.replace('\n', ' ').trim());
        }
        return text.length() > 0 ? text.toString() : error.getClass().getName();
    }

    private static void finish(String outcome, String detail, int status) {
        System.out.println(outcome + " " + detail);
        System.out.flush();
        System.exit(status);
    }

    // null when a bootstrap server accepts a connection, else why none did
    private static String unreachable(String servers, int timeoutMillis) {
        List<String> reasons = new ArrayList<>();
        for (String server : servers.split(",")) {
            String address = server.trim();
            int colon = address.lastIndexOf(':');
            if (address.isEmpty() || colon < 0) {
                reasons.add(address + ": not host:port");
                continue;
            }
            String host = address.substring(0, colon).replace("[", "").replace("]", "");
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(host, Integer.parseInt(address.substring(colon + 1))),
                               timeoutMillis);
                return null;
            } catch (IOException | RuntimeException error) {
                reasons.add(address + ": " + why(error));
            }
        }
        return String.join("; ", reasons);
    }

    public static void main(String[] args) throws Exception {
        int timeoutSeconds = Integer.parseInt(args[0]);
        BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Properties properties = new Properties();
        for (String key = input.readLine(); key != null; key = input.readLine()) {
            String value = input.readLine();
            properties.setProperty(decoded(key), value == null ? "" : decoded(value));
        }
        String servers = properties.getProperty("bootstrap.servers", "");
        String refused = unreachable(servers, timeoutSeconds * 1000);
        if (refused != null) {
            finish("FAILED", refused, 1);
        }
        int timeoutMillis = timeoutSeconds * 1000;
        properties.setProperty("request.timeout.ms", Integer.toString(timeoutMillis));
        properties.setProperty("default.api.timeout.ms", Integer.toString(timeoutMillis));
        properties.putIfAbsent("client.id", "glueball-test-connection");
        try (Admin admin = Admin.create(properties)) {
            Collection<Node> nodes = admin.describeCluster(new DescribeClusterOptions().timeoutMs(timeoutMillis))
                .nodes().get(timeoutSeconds + 5L, TimeUnit.SECONDS);
            if (nodes.isEmpty()) {
                finish("FAILED", "the cluster reported no brokers", 1);
            }
            List<String> brokers = new ArrayList<>();
            for (Node node : nodes) {
                brokers.add(node.host() + ":" + node.port());
            }
            finish("OK", String.join(",", brokers), 0);
        } catch (ExecutionException error) {
            Throwable cause = error.getCause() != null ? error.getCause() : error;
            boolean timedOut = cause instanceof org.apache.kafka.common.errors.TimeoutException;
            finish(timedOut ? "TIMEOUT" : "FAILED", why(cause), timedOut ? 2 : 1);
        } catch (TimeoutException error) {
            finish("TIMEOUT", "no answer from " + servers + " within " + timeoutSeconds + " seconds", 2);
        } catch (RuntimeException error) {  // a property the client refuses (a bad JAAS setting, a missing class)
            finish("FAILED", why(error), 1);
        }
    }
}
