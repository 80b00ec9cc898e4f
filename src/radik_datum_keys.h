/*
 * radik_datum_keys.h
 *	  The sort key types radik orders, and from a PostgreSQL value of one of them to the engine's
 *	  unsigned key.
 *
 * The engine orders unsigned integers; cuda/radik_keys.h holds the bit-level maps for each kind
 * of value.  This file picks the right map for a PostgreSQL type and sort direction once, so that
 * the scan loop calls one small function per row instead of switching on the type, or one per
 * page of rows (radik_key_map_many), whose loop the compiler specializes for the type.
 */
#ifndef RADIK_DATUM_KEYS_H
#define RADIK_DATUM_KEYS_H

#include "postgres.h"

/*
 * Can radik order values of this type (as its default btree opclass does) with a stateless map
 * of this file?  The types that need a mapper's state are radik_key_mapper.h's.
 */
extern bool radik_key_type_supported(Oid type);

/*
 * Are this type's keys its values, one key per value, made without state?  Not for numeric or
 * interval, whose key only summarizes its value (radik_datum_keys.c), nor for the types of
 * radik_key_mapper.h (text, uuid, enums, ...): rows tied on such a key at the cut are gathered
 * and sorted by the values themselves.
 */
extern bool radik_key_type_exact(Oid type);

/*
 * Does a selection on nkeys sort keys, the first of first_type, hand back candidates to be sorted
 * by all keys with PostgreSQL's comparators (several keys, or a first key that is not exact)?
 * The planner costs it, the scan does it.
 */
extern bool radik_keys_sort_candidates(int nkeys, Oid first_type);

/* The supported types' names, for error messages: "smallint, integer, ...". */
extern const char *radik_supported_type_names(void);

/* Turns one non-NULL value into its engine key (a 32-bit key is returned zero-extended). */
typedef uint64 (*RadikKeyMap) (Datum value);

/* Turns n non-NULL values into their engine keys, in one call per page of rows. */
typedef void (*RadikKeyMapMany) (Datum *values, int n, uint64 *keys);

/*
 * The key map for values of type (one of radik_key_type_supported()'s types) sorted ascending or
 * descending, and the width of its keys in bytes (4 or 8).
 */
extern RadikKeyMap radik_key_map(Oid type, bool descending, int *key_bytes);

/* The same map, for many values at a time. */
extern RadikKeyMapMany radik_key_map_many(Oid type, bool descending);

/*
 * The value a key was made from, by radik_key_map(type, descending), for the types
 * radik_key_type_exact accepts (not numeric).  Integer-like types come back exactly; a float key
 * that stands for several values (zero for -0 and +0, every NaN) sets *exact to false, and then
 * only the row itself knows its value.
 */
extern Datum radik_datum_from_key(Oid type, bool descending, uint64 key, bool *exact);

#endif							/* RADIK_DATUM_KEYS_H */
