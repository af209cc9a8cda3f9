-- DDL on a protected table passes through a fenced data source untouched.
CREATE TABLE totals (
    restaurant_id int PRIMARY KEY,
    amount bigint NOT NULL
);
CREATE INDEX totals_amount ON totals (amount);
COMMENT ON TABLE totals IS 'nightly totals, fenced';
