-- radik--0.1.0--0.2.0.sql: update script from radik 0.1.0 to 0.2.0
-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION radik UPDATE TO '0.2.0'" to load this file. \quit

-- radik 0.2.0 has the same SQL objects as 0.1.0 (sql/radik--0.2.0.sql), so there is nothing to
-- change here.  Every change to an object in sql/radik--0.2.0.sql must be made here as well, in
-- the same words (schema-qualified names, @extschema@): the radik_upgrade regression test
-- compares an install updated through this script with a fresh install of 0.2.0, object by
-- object, and fails on any difference.
