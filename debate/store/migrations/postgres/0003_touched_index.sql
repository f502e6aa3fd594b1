-- Issue 50: the sessions updated since a time (Touched, which parley
-- serve reads after every commit it is woken by) read from the index
-- alone, without a lookup of each session's row. SQLite's step 13.
CREATE INDEX conversation_meta_touched ON conversation_meta(updated_time, conversation_id);
DROP INDEX conversation_meta_updated;
