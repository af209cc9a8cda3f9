-- A second token-less INSERT into the protected table, in a migration of its own (after V1 committed the table).
INSERT INTO totals (restaurant_id, amount) VALUES (4, 400);
