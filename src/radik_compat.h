/*
 * radik_compat.h
 *	  The few names PostgreSQL 16, 17 and 18 changed that radik uses, under the names of the
 *	  newest version, so that one source tree builds on PostgreSQL 15 to 18.
 *
 * Each entry maps an older version's spelling to the new one, at the smallest scope that works;
 * differences that are more than a name stay as #if blocks at the point of difference.
 */
#ifndef RADIK_COMPAT_H
#define RADIK_COMPAT_H

#include "postgres.h"

/* 16 moved the varlena macros out of postgres.h. */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/* 16 renamed a relation's RelFileNode to RelFileLocator. */
#if PG_VERSION_NUM < 160000
#define rd_locator rd_node
#endif

/* 17 removed old_snapshot_threshold, and with it the check of a page's age. */
#if PG_VERSION_NUM >= 170000
#define TestForOldSnapshot(snapshot, relation, page) ((void) 0)
#endif

/*
 * 18 made get_ordering_op_properties give a CompareType (COMPARE_LT, COMPARE_GT) where it gave a
 * btree strategy number of the same values.
 */
#if PG_VERSION_NUM < 180000
#include "access/stratnum.h"
typedef int16 CompareType;
#define COMPARE_LT BTLessStrategyNumber
#define COMPARE_GT BTGreaterStrategyNumber
#endif

/* 18 replaced pg_attribute_noreturn() after a declaration with pg_noreturn before it. */
#ifndef pg_attribute_noreturn
#define pg_attribute_noreturn() __attribute__((noreturn))
#endif

#endif							/* RADIK_COMPAT_H */
