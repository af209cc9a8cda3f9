-- Seed data written by the migration itself: in enforce mode this INSERT into a protected table carries no
-- token, so it only passes because fenced runs migrations unfenced
-- (StartupTest shows it refused with fenced.spring.unfencedMigrations=false).
CREATE TABLE totals (restaurant_id int PRIMARY KEY, amount bigint NOT NULL, last_token bigint);
INSERT INTO totals (restaurant_id, amount) VALUES (1, 100), (2, 200), (3, 300);
