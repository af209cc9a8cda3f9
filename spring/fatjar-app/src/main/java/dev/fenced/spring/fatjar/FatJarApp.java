package dev.fenced.spring.fatjar;

import dev.fenced.Fencing;
import dev.fenced.spring.WithLease;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Runs two lease-bound jobs once and exits: {@code nightly} by annotation, {@code listed} by the
 * {@code fenced.lease.listed.method} key in its application.properties. Each writes its row of totals (a protected
 * table) and prints the token it ran with, for the test to compare with the row.
 */
@SpringBootApplication
public class FatJarApp {

    public static void main(String[] args) {
        System.exit(SpringApplication.exit(SpringApplication.run(FatJarApp.class, args)));
    }

    @Bean
    CommandLineRunner runJobs(Nightly nightly, Listed listed) {
        return args -> {
            System.out.println("withLease token=" + nightly.run());
            System.out.println("listed token=" + listed.run());
            System.out.println("outside token=" + Fencing.currentToken().orElse(-1));
        };
    }

    @Component
    public static class Nightly {
        private final JdbcTemplate jdbc;

        public Nightly(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @WithLease(name = "nightly", ttl = "10s")
        public long run() {
            jdbc.update("UPDATE totals SET amount = amount WHERE restaurant_id = 1");
            return Fencing.currentToken().orElse(-1);
        }
    }

    @Component
    public static class Listed {
        private final JdbcTemplate jdbc;

        public Listed(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        public long run() {
            jdbc.update("UPDATE totals SET amount = 7 WHERE restaurant_id = 2");
            return Fencing.currentToken().orElse(-1);
        }
    }
}
