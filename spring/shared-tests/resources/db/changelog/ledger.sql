--liquibase formatted sql

--changeset fenced:ledger-table
CREATE TABLE ledger (id int PRIMARY KEY, amount bigint NOT NULL, last_token bigint);

--changeset fenced:ledger-seed
-- a token-less write to a protected table (FencedBootTest protects ledger): it passes only unfenced
INSERT INTO ledger (id, amount) VALUES (1, 10);
