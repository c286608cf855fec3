// TestConnection's JDBC probe: opens one connection with the JDBC drivers on the classpath and closes it.
// Reads three base64 lines from stdin (URL, user, password: never on the command line), takes the login
// timeout in seconds and extra connection properties (key=value) as arguments. Prints "OK <product>"
// and exits 0, or prints "FAILED <why>" (the SQLException's messages, causes included) and exits 1.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Base64;
import java.util.Properties;

public class ConnectionProbe {
    private static String decoded(String line) {
        if (line == null) {
            return "";
        }
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

    public static void main(String[] args) throws Exception {
        BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String url = decoded(input.readLine());
        String user = decoded(input.readLine());
        String password = decoded(input.readLine());
        int timeout = Integer.parseInt(args[0]);
        Properties properties = new Properties();
        if (!user.isEmpty()) {
            properties.setProperty("user", user);
        }
        if (!password.isEmpty()) {
            properties.setProperty("password", password);
        }
        for (int i = 1; i < args.length; i++) {
            int equals = args[i].indexOf('=');
            properties.setProperty(args[i].substring(0, equals), args[i].substring(equals + 1));
        }
        DriverManager.setLoginTimeout(timeout);
        try (Connection connection = DriverManager.getConnection(url, properties)) {
            if (!connection.isValid(timeout)) {
                System.out.println("FAILED the database did not answer a validity check");
                System.exit(1);
            }
            System.out.println("OK " + connection.getMetaData().getDatabaseProductName());
        } catch (SQLException | RuntimeException error) {
            System.out.println("FAILED " + why(error));
            System.exit(1);
        }
    }
}
