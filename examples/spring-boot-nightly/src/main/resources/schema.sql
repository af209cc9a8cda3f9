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
-- One row per night the job finished: who ran it, under which token.
CREATE TABLE IF NOT EXISTS nightly_runs (
    night       date   PRIMARY KEY,
    instance    text   NOT NULL,
    token       bigint NOT NULL,
    restaurants int    NOT NULL,
    orders      bigint NOT NULL
);
