-- Issue 49: parley serve's spend windows, kept in the database so every
-- replica shares them (spendledger.go): what a window (the server's, or
-- one user's; one setting; one hour or day) spent and holds for calls in
-- flight. SQLite's step 12.
CREATE TABLE spend_window (
	server       INTEGER NOT NULL,
	user_id      TEXT COLLATE "C" NOT NULL,
	setting      TEXT COLLATE "C" NOT NULL,
	window_start TEXT COLLATE "C" NOT NULL,
	spent        DOUBLE PRECISION NOT NULL DEFAULT 0,
	reserved     DOUBLE PRECISION NOT NULL DEFAULT 0,
	PRIMARY KEY (server, user_id, setting, window_start)
);
CREATE INDEX spend_window_start ON spend_window(window_start);
