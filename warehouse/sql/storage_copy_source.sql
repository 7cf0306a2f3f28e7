-- The name of the database being converted, which COPY FROM DATABASE copies from and whose tables
-- and views the copy is checked against.
SELECT current_database();
