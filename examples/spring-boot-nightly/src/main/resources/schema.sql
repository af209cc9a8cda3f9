-- The nightly-totals service's tables. totals is protected (fenced.tables): last_token is its fence column.
CREATE TABLE IF NOT EXISTS orders (
    order_id      bigserial PRIMARY KEY,
    restaurant_id int       NOT NULL,
    amount        bigint    NOT NULL
);
CREATE INDEX IF NOT EXISTS orders_restaurant ON orders (restaurant_id);
CREATE TABLE IF NOT EXISTS totals (
    restaurant_id int    PRIMARY KEY,
    amount        bigint NOT NULL DEFAULT 0,
    last_token    bigint
);
-- One row per finished run: which night, who ran it, under which token. The job reads it, under the lock, before
-- it starts; no unique key on night: that check is the lock's job, and the lock is what fails when its holder
-- freezes after the check.
CREATE TABLE IF NOT EXISTS nightly_runs (
    run_id      bigserial PRIMARY KEY,
    night       date   NOT NULL,
    instance    text   NOT NULL,
    token       bigint NOT NULL,
    restaurants int    NOT NULL,
    orders      bigint NOT NULL
);
