ALTER TABLE totals ADD COLUMN last_token bigint;
