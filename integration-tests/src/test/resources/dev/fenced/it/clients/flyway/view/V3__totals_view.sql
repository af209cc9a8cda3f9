CREATE VIEW big_totals AS SELECT * FROM totals WHERE amount > 1000;
