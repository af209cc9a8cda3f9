-- A data migration: writes to a protected table with no lease behind them.
INSERT INTO totals (restaurant_id, amount) VALUES (1, 10), (2, 20), (3, 30);
UPDATE totals SET amount = amount * 100 WHERE restaurant_id > 1;
DELETE FROM totals WHERE restaurant_id = 1;
