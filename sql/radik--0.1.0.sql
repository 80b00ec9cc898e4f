-- radik--0.1.0.sql: install script for radik 0.1.0
-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION radik" to load this file. \quit

-- Loading the extension's library registers the planner hook and the custom scan in this
-- session; radik_topk() and friends are added by later parts of this script.
LOAD 'radik';
