-- Rows of their own for the ShedLock job (5) and the JPA tests (6, 7, 8), so no test sees another's token.
INSERT INTO totals (restaurant_id, amount) VALUES (5, 500), (6, 600), (7, 700), (8, 800);
