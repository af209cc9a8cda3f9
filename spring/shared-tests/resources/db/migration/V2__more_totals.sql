-- V1 is committed by now, so fenced knows totals is protected: this token-less INSERT passes only unfenced.
INSERT INTO totals (restaurant_id, amount) VALUES (4, 400);
